import type { AppDeps } from '../../platform/deps.js';

/**
 * True when `phone` is one of the company's assigned numbers: the From number a batch may call from
 * (the form offers the same numbers, from GET /phone/assigned).
 */
export async function isAssignedNumber(deps: AppDeps, companyId: string, phone: string): Promise<boolean> {
  const row = await deps.db.db
    .selectFrom('phone_numbers')
    .select('id')
    .where('company_id', '=', companyId)
    .where('phone_number', '=', phone)
    .executeTakeFirst();
  return row !== undefined;
}
