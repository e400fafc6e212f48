import { type Kysely, sql, type Updateable } from 'kysely';
import type { BatchRecipientsTable, DB } from '../../platform/db/schema.js';
import { NUMBER_ZONES } from './number-zones.js';

/**
 * The queries of the batch dispatcher (./dispatcher.ts, whose header explains the queue, the leases and
 * the pacing). A recipient is addressed by its (upload_id, row_number) key; batches by id and company.
 * The dispatcher serves every company, so its scans (sending batches, ended calls, expired leases) are
 * not scoped to one.
 */

type RecipientUpdate = Updateable<BatchRecipientsTable>;

/** Up to `limit` recipients being called whose call has ended, with their call's end and their batch's retry rules. */
export function recipientsWithEndedCalls(db: Kysely<DB>, limit: number) {
  return db
    .selectFrom('batch_recipients as r')
    .innerJoin('call_sessions as s', 's.id', 'r.call_id')
    .innerJoin('batch_calls as b', 'b.id', 'r.batch_id')
    .select([
      'r.upload_id',
      'r.row_number',
      'r.call_id',
      'r.attempts',
      's.status',
      's.disconnection_reason',
      'b.max_attempts',
      'b.retry_delay_s',
      'b.status as batch_status',
    ])
    .where('r.state', '=', 'calling')
    .where('s.status', 'not in', ['registered', 'ongoing'])
    .limit(limit)
    .execute();
}

/** Records the outcome (or the retry) of a recipient still being called on `callId`. */
export async function settleRecipient(
  db: Kysely<DB>,
  r: { upload_id: string; row_number: number; call_id: string | null },
  set: RecipientUpdate,
): Promise<void> {
  await db
    .updateTable('batch_recipients')
    .set(set)
    .where('upload_id', '=', r.upload_id)
    .where('row_number', '=', r.row_number)
    .where('state', '=', 'calling')
    .where('call_id', '=', r.call_id)
    .execute();
}

/** Puts back in the queue the recipients whose lease expired before they got a call. */
export async function releaseExpiredLeases(db: Kysely<DB>, now: string): Promise<void> {
  await db
    .updateTable('batch_recipients')
    .set({ state: 'queued', lease_owner: null, lease_until: null })
    .where('state', '=', 'calling')
    .where('call_id', 'is', null)
    .where('lease_until', '<', now)
    .execute();
}

/** Up to `limit` batches being sent, oldest first. */
export function sendingBatches(db: Kysely<DB>, limit: number) {
  return db
    .selectFrom('batch_calls')
    .select(['id', 'company_id', 'from_number', 'calling_window', 'time_zone', 'resumed_at'])
    .where('status', '=', 'sending')
    .orderBy('created_at')
    .limit(limit)
    .execute();
}

/** How many recipients of the batch finished since `since`, and how many of them failed. */
export async function finishedSince(
  db: Kysely<DB>,
  batchId: string,
  since: string,
): Promise<{ finished: number; failed: number }> {
  const row = await db
    .selectFrom('batch_recipients')
    .select([
      sql<number>`count(*)`.as('finished'),
      sql<number>`coalesce(sum(case when state = 'failed' then 1 else 0 end), 0)`.as('failed'),
    ])
    .where('batch_id', '=', batchId)
    .where('finished_at', '>=', since)
    .executeTakeFirstOrThrow();
  return { finished: Number(row.finished), failed: Number(row.failed) };
}

/** Pauses a sending batch with its reason; true when this call paused it. */
export async function pauseSendingBatch(
  db: Kysely<DB>,
  batchId: string,
  companyId: string,
  reason: string,
  now: string,
): Promise<boolean> {
  const res = await db
    .updateTable('batch_calls')
    .set({ status: 'paused', paused_reason: reason, updated_at: now })
    .where('id', '=', batchId)
    .where('company_id', '=', companyId)
    .where('status', '=', 'sending')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** The company's next dial time (ms), its pacing row created at 0 when it has none. */
export async function nextDialMs(trx: Kysely<DB>, companyId: string): Promise<number> {
  await trx
    .insertInto('batch_dial_pacing')
    .values({ company_id: companyId, next_dial_ms: 0 })
    .onConflict((oc) => oc.column('company_id').doNothing())
    .execute();
  const row = await trx
    .selectFrom('batch_dial_pacing')
    .select('next_dial_ms')
    .where('company_id', '=', companyId)
    .executeTakeFirstOrThrow();
  return Number(row.next_dial_ms);
}

/** Moves the company's next dial time from `from` to `to` (compare-and-set); false when another server moved it first. */
export async function moveNextDial(trx: Kysely<DB>, companyId: string, from: number, to: number): Promise<boolean> {
  const res = await trx
    .updateTable('batch_dial_pacing')
    .set({ next_dial_ms: to })
    .where('company_id', '=', companyId)
    .where('next_dial_ms', '=', from)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Whether any recipient of the batch is queued or being called (one row is read, not counted). */
export async function recipientsLeft(db: Kysely<DB>, batchId: string): Promise<boolean> {
  const left = await db
    .selectFrom('batch_recipients')
    .select('row_number')
    .where('batch_id', '=', batchId)
    .where('state', 'in', ['queued', 'calling'])
    .limit(1)
    .executeTakeFirst();
  return left !== undefined;
}

/** Marks a sending batch completed; true when this call completed it. */
export async function completeSendingBatch(db: Kysely<DB>, batchId: string, companyId: string, now: string): Promise<boolean> {
  const done = await db
    .updateTable('batch_calls')
    .set((eb) => ({
      status: 'completed',
      updated_at: now,
      // every recipient failed (and there was one): the batch is shown as failed, not as a success
      all_failed: eb
        .case()
        .when(
          eb.and([
            eb.exists(eb.selectFrom('batch_recipients').select('row_number').where('batch_id', '=', batchId)),
            eb.not(
              eb.exists(
                eb
                  .selectFrom('batch_recipients')
                  .select('row_number')
                  .where('batch_id', '=', batchId)
                  .where('state', '!=', 'failed'),
              ),
            ),
          ]),
        )
        .then(1)
        .else(0)
        .end(),
    }))
    .where('id', '=', batchId)
    .where('company_id', '=', companyId)
    .where('status', '=', 'sending')
    .executeTakeFirst();
  return Number(done.numUpdatedRows) > 0;
}

/** A batch as its `batch_completed` event tells it: its row and how many recipients ended in each state. */
export async function batchOutcomes(db: Kysely<DB>, batchId: string, companyId: string) {
  const batch = await db
    .selectFrom('batch_calls')
    .select(['id', 'name', 'status', 'sent_count', 'updated_at'])
    .where('id', '=', batchId)
    .where('company_id', '=', companyId)
    .executeTakeFirstOrThrow();
  const states = await db
    .selectFrom('batch_recipients')
    .select(['state', sql<number>`count(*)`.as('n')])
    .where('batch_id', '=', batchId)
    .groupBy('state')
    .execute();
  return { batch, states };
}

/**
 * The next recipient due of a batch still sending, whose window is open (`zones`; null = no window);
 * locked with SKIP LOCKED on PostgreSQL (`pg`), so two servers never read the same one.
 */
export function nextDueRecipient(
  trx: Kysely<DB>,
  batchId: string,
  companyId: string,
  now: string,
  zones: { zones: string[]; batchZone: boolean } | null,
  pg: boolean,
) {
  let next = trx
    .selectFrom('batch_recipients')
    .select(['upload_id', 'row_number', 'phone_number', 'variables', 'attempts'])
    .where('batch_id', '=', batchId)
    .where('company_id', '=', companyId)
    .where('state', '=', 'queued')
    .where((eb) => eb.or([eb('next_attempt_at', 'is', null), eb('next_attempt_at', '<=', now)]))
    // a paused or canceled batch is never claimed from, even by a tick that listed it as sending
    .where('batch_id', 'in', (eb) =>
      eb
        .selectFrom('batch_calls')
        .select('id')
        .where('id', '=', batchId)
        .where('company_id', '=', companyId)
        .where('status', '=', 'sending'),
    )
    .orderBy('row_number')
    .limit(1);
  if (zones) {
    const { zones: open, batchZone } = zones;
    next = next.where((eb) =>
      eb.or([
        ...(open.length > 0 ? [eb('time_zone', 'in', open)] : []),
        // no zone of its own (or one this version does not know): the batch's
        ...(batchZone ? [eb('time_zone', 'is', null), eb('time_zone', 'not in', [...NUMBER_ZONES])] : []),
      ]),
    );
  }
  if (pg) next = next.forUpdate().skipLocked();
  return next.executeTakeFirst();
}

/** One more recipient of the batch was sent (its first attempt). */
export async function countSent(trx: Kysely<DB>, batchId: string, companyId: string): Promise<void> {
  await trx
    .updateTable('batch_calls')
    .set({ sent_count: sql`sent_count + 1` })
    .where('id', '=', batchId)
    .where('company_id', '=', companyId)
    .execute();
}

/** Updates a recipient while `owner` holds its lease. */
export async function updateLeasedRecipient(
  db: Kysely<DB>,
  r: { upload_id: string; row_number: number },
  owner: string,
  set: RecipientUpdate,
): Promise<void> {
  await db
    .updateTable('batch_recipients')
    .set(set)
    .where('upload_id', '=', r.upload_id)
    .where('row_number', '=', r.row_number)
    .where('lease_owner', '=', owner)
    .execute();
}
