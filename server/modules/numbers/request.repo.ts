import { type NumberRequest, normalizePhoneNumber } from '@contract/phone.js';
import type { Kysely } from 'kysely';
import { newId } from '../../platform/crypto/ids.js';
import type { DB } from '../../platform/db/schema.js';

/**
 * Companies' requests for free numbers of the pool, and granting them. A request is one row per
 * company and number (a unique index), so asking twice changes nothing. Granting moves the number to
 * the requesting company; when several companies asked for the same number, the earliest request wins
 * and the others are dropped (the number is no longer free).
 */

export interface RequestOutcome {
  request: NumberRequest;
  /** false when the company had asked already (nothing changed) */
  created: boolean;
}

async function requestOf(db: Kysely<DB>, companyId: string, phoneNumberId: string): Promise<NumberRequest | undefined> {
  const row = await db
    .selectFrom('number_requests as r')
    .innerJoin('phone_numbers as p', 'p.id', 'r.phone_number_id')
    .select(['r.id', 'r.created_at', 'r.granted_at', 'p.phone_number', 'p.id as phone_number_id'])
    .where('r.company_id', '=', companyId)
    .where('r.phone_number_id', '=', phoneNumberId)
    .executeTakeFirst();
  return (
    row && {
      _id: row.id,
      phone: row.phone_number,
      phoneNumberId: row.phone_number_id,
      requestedAt: row.created_at,
      granted: row.granted_at !== null,
    }
  );
}

/**
 * Records the company's request for the free number `phone` (any formatting). Null when the number is
 * not in the free pool (unknown, or another company's). Asking again for a number the company asked for
 * (or was granted) answers the existing request unchanged.
 */
export async function requestNumber(
  db: Kysely<DB>,
  p: { companyId: string; accountId: string; phone: string; now: Date },
): Promise<RequestOutcome | null> {
  const phone = normalizePhoneNumber(p.phone) ?? p.phone;
  const number = await db
    .selectFrom('phone_numbers')
    .select(['id', 'company_id'])
    .where('phone_number', '=', phone)
    .executeTakeFirst();
  if (!number) return null;
  if (number.company_id !== null) {
    // granted to this company already: the same request, unchanged; anyone else's number: not available
    const existing = number.company_id === p.companyId ? await requestOf(db, p.companyId, number.id) : undefined;
    return existing ? { request: existing, created: false } : null;
  }
  const res = await db
    .insertInto('number_requests')
    .values({
      id: newId(p.now),
      company_id: p.companyId,
      account_id: p.accountId,
      phone_number_id: number.id,
      created_at: p.now.toISOString(),
      granted_at: null,
    })
    .onConflict((oc) => oc.columns(['company_id', 'phone_number_id']).doNothing())
    .executeTakeFirst();
  const request = await requestOf(db, p.companyId, number.id);
  if (!request) return null;
  return { request, created: Number(res.numInsertedOrUpdatedRows ?? 0) > 0 };
}

export interface PendingRequest {
  requestId: string;
  phone: string;
  phoneNumberId: string;
  companyId: string;
  accountId: string | null;
  /** email of the account that asked ('' when that account is gone) */
  requestedBy: string;
  requestedAt: string;
}

/** Requests waiting for a grant (their number still free), oldest first; of one company when given. */
export async function pendingNumberRequests(db: Kysely<DB>, companyId?: string): Promise<PendingRequest[]> {
  let q = db
    .selectFrom('number_requests as r')
    .innerJoin('phone_numbers as p', 'p.id', 'r.phone_number_id')
    .leftJoin('accounts as a', 'a.id', 'r.account_id')
    .select(['r.id', 'r.company_id', 'r.account_id', 'r.created_at', 'r.phone_number_id', 'p.phone_number', 'a.email'])
    .where('r.granted_at', 'is', null)
    .where('p.company_id', 'is', null)
    .orderBy('r.created_at')
    .orderBy('r.id');
  if (companyId) q = q.where('r.company_id', '=', companyId);
  return (await q.execute()).map((r) => ({
    requestId: r.id,
    phone: r.phone_number,
    phoneNumberId: r.phone_number_id,
    companyId: r.company_id,
    accountId: r.account_id,
    requestedBy: r.email ?? '',
    requestedAt: r.created_at,
  }));
}

/**
 * Grants pending requests, oldest first: each moves its number (if still free) to the requesting
 * company and account, and drops the other companies' requests for it. `companyId` limits it to one
 * company's requests, `requestId` to one request. Answers the requests granted.
 */
export async function grantNumberRequests(
  db: Kysely<DB>,
  p: { now: Date; companyId?: string; requestId?: string },
): Promise<PendingRequest[]> {
  const granted: PendingRequest[] = [];
  const at = p.now.toISOString();
  for (const r of await pendingNumberRequests(db, p.companyId)) {
    if (p.requestId && r.requestId !== p.requestId) continue;
    const done = await db.transaction().execute(async (trx) => {
      const moved = await trx
        .updateTable('phone_numbers')
        .set({ company_id: r.companyId, account_id: r.accountId, assigned_at: at, updated_at: at })
        .where('id', '=', r.phoneNumberId)
        .where('company_id', 'is', null)
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) === 0) return false;
      await trx.updateTable('number_requests').set({ granted_at: at }).where('id', '=', r.requestId).execute();
      await trx
        .deleteFrom('number_requests')
        .where('phone_number_id', '=', r.phoneNumberId)
        .where('id', '!=', r.requestId)
        .execute();
      return true;
    });
    if (done) granted.push(r);
  }
  return granted;
}
