import type { AppDeps } from '../../lib/deps.js';

/**
 * The numbers a batch may call from: the company's assigned numbers. The form's From options
 * (GET /batch-call/from-numbers) and the create rule (isAssignedNumber) read the same rows.
 */
function assigned(deps: AppDeps, companyId: string) {
  return deps.db.db.selectFrom('phone_numbers').where('company_id', '=', companyId);
}

export async function fromNumbers(deps: AppDeps, companyId: string) {
  const rows = await assigned(deps, companyId).select(['id', 'phone_number', 'provider']).orderBy('phone_number').execute();
  return rows.map((r) => ({ _id: r.id, phone: r.phone_number, provider: r.provider }));
}

/** True when `phone` is one of the company's assigned numbers. */
export async function isAssignedNumber(deps: AppDeps, companyId: string, phone: string): Promise<boolean> {
  const row = await assigned(deps, companyId).select('id').where('phone_number', '=', phone).executeTakeFirst();
  return row !== undefined;
}
