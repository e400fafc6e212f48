import type { Kysely } from 'kysely';
import type { DB, IdempotencyKeysTable } from '../db/schema.js';

/** The idempotency_keys queries of ./idempotency.ts; every one scoped to a company (but the expiry sweep). */

export type IdempotencyKeyRow = IdempotencyKeysTable;

/** Inserts a 'pending' claim; a second claim of the same company and key fails with a unique violation. */
export async function insertPendingKey(
  db: Kysely<DB>,
  row: Pick<IdempotencyKeyRow, 'company_id' | 'key' | 'request_hash' | 'created_at' | 'expires_at'>,
): Promise<void> {
  await db
    .insertInto('idempotency_keys')
    .values({ ...row, state: 'pending', response_status: null, response_body: null })
    .execute();
}

export function keyRow(db: Kysely<DB>, companyId: string, key: string) {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('key', '=', key)
    .executeTakeFirst();
}

/** Forgets every key past its expiry, whatever the company. */
export async function deleteExpiredKeys(db: Kysely<DB>, now: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('expires_at', '<', now).execute();
}

/** Releases a pending claim (only the one created at `createdAt` when given: a stale claim seen earlier). */
export async function deletePendingKey(db: Kysely<DB>, companyId: string, key: string, createdAt?: string): Promise<void> {
  let q = db
    .deleteFrom('idempotency_keys')
    .where('company_id', '=', companyId)
    .where('key', '=', key)
    .where('state', '=', 'pending');
  if (createdAt !== undefined) q = q.where('created_at', '=', createdAt);
  await q.execute();
}

export async function storeKeyAnswer(
  db: Kysely<DB>,
  companyId: string,
  key: string,
  status: number,
  body: string,
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ state: 'done', response_status: status, response_body: body })
    .where('company_id', '=', companyId)
    .where('key', '=', key)
    .execute();
}
