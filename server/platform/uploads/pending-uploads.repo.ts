/**
 * The SQL of the upload leases (pending-uploads.ts): the `pending_uploads` rows, and whether a row of the
 * data refers to an upload (a batch's list, a knowledge base, an uploaded file), by the upload's own id.
 */
import type { Kysely } from 'kysely';
import type { DB, PendingUploadsTable } from '../db/schema.js';

type Lease = Pick<PendingUploadsTable, 'id' | 'kind' | 'company_id' | 'owner' | 'lease_until' | 'created_at'>;

export async function insertLease(db: Kysely<DB>, lease: Lease): Promise<void> {
  await db.insertInto('pending_uploads').values(lease).execute();
}

/** Inserts a lease unless one of that id exists. */
export async function insertLeaseOnce(db: Kysely<DB>, lease: Lease): Promise<void> {
  await db
    .insertInto('pending_uploads')
    .values(lease)
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
}

/** Ends a lease held by `owner`; answers whether it was still theirs. */
export async function deleteLease(db: Kysely<DB>, id: string, owner: string): Promise<boolean> {
  const res = await db.deleteFrom('pending_uploads').where('id', '=', id).where('owner', '=', owner).executeTakeFirst();
  return Number(res.numDeletedRows) === 1;
}

export async function renewLeaseOf(db: Kysely<DB>, id: string, owner: string, leaseUntil: string): Promise<void> {
  await db
    .updateTable('pending_uploads')
    .set({ lease_until: leaseUntil })
    .where('id', '=', id)
    .where('owner', '=', owner)
    .execute();
}

/** Up to `limit` leases run out before `now`, the oldest first. */
export function expiredLeases(db: Kysely<DB>, now: string, limit: number) {
  return db
    .selectFrom('pending_uploads')
    .selectAll()
    .where('lease_until', '<', now)
    .orderBy('lease_until')
    .limit(limit)
    .execute();
}

/** Takes a run-out lease over (compare-and-set on its owner and time); answers whether this sweep has it. */
export async function takeLeaseOver(
  db: Kysely<DB>,
  row: Pick<PendingUploadsTable, 'id' | 'owner' | 'lease_until'>,
  owner: string,
  leaseUntil: string,
): Promise<boolean> {
  const res = await db
    .updateTable('pending_uploads')
    .set({ owner, lease_until: leaseUntil })
    .where('id', '=', row.id)
    .where('owner', '=', row.owner)
    .where('lease_until', '=', row.lease_until)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** The ids of `ids` that have a lease. */
export async function leasedIds(db: Kysely<DB>, ids: string[]): Promise<string[]> {
  return (await db.selectFrom('pending_uploads').select('id').where('id', 'in', ids).execute()).map((r) => r.id);
}

/** The ids of `ids` that are knowledge bases. */
export async function knowledgeBaseIds(db: Kysely<DB>, ids: string[]): Promise<string[]> {
  return (await db.selectFrom('knowledge_bases').select('id').where('id', 'in', ids).execute()).map((r) => r.id);
}

/** The names of `names` that are uploaded files. */
export async function fileNames(db: Kysely<DB>, names: string[]): Promise<string[]> {
  return (await db.selectFrom('files').select('name').where('name', 'in', names).execute()).map((r) => r.name);
}
