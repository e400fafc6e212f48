import {
  BATCH_DEFAULT_TIME_ZONE,
  BATCH_MAX_ATTEMPTS,
  BATCH_RETRY_DELAY_SECONDS,
  type BatchStatus,
  type CallingWindow,
  RECIPIENT_STATES,
  type RecipientState,
} from '@contract/batch.js';
import { type ExpressionBuilder, type Kysely, type Selectable, sql } from 'kysely';
import { newestFirstPage } from '../../platform/db/page.js';
import type { BatchCallsTable, DB } from '../../platform/db/schema.js';
import { yieldToLoop } from '../../platform/jobs/cooperative.js';
import { zoneOfNumber } from './number-zones.js';

/**
 * Batch calls and their recipients: every query of the batch-call routes and of the recipients ingest.
 * Every function that reads or writes a company's batch takes the company id from the caller's token and
 * scopes the query by it, so another company's batch is "not found" exactly like a missing one.
 * Functions take a Kysely handle, so the callers can run them inside a transaction (withCompanyLock).
 */

export type BatchRow = Selectable<BatchCallsTable>;

export interface RecipientRow {
  row: number;
  phone: string;
  variables: string;
}

/** The statuses from which recipients may be (re)uploaded (and only before the first dial). */
export const UPLOADABLE: BatchStatus[] = ['draft', 'scheduled', 'sending'];

export function findBatch(db: Kysely<DB>, companyId: string, id: string): Promise<BatchRow | undefined> {
  return db.selectFrom('batch_calls').selectAll().where('id', '=', id).where('company_id', '=', companyId).executeTakeFirst();
}

export async function listBatches(
  db: Kysely<DB>,
  companyId: string,
  q: { page: number; limit: number; status?: BatchStatus | undefined },
): Promise<{ rows: BatchRow[]; total: number }> {
  let base = db.selectFrom('batch_calls').where('company_id', '=', companyId);
  if (q.status) base = base.where('status', '=', q.status);
  return newestFirstPage(base, q);
}

/** The row of a new batch: no recipients yet. */
export function newBatchRow(p: {
  id: string;
  companyId: string;
  name: string;
  fromNumber: string;
  sendMode: string;
  scheduledAt: string | null;
  status: string;
  idempotencyKey: string;
  requestHash: string;
  now: Date;
  rules?: Partial<BatchRules>;
}): BatchRow {
  const at = p.now.toISOString();
  return {
    id: p.id,
    company_id: p.companyId,
    name: p.name,
    from_number: p.fromNumber,
    send_mode: p.sendMode,
    scheduled_at: p.scheduledAt,
    status: p.status,
    idempotency_key: p.idempotencyKey,
    request_hash: p.requestHash,
    upload_id: null,
    recipients_count: 0,
    invalid_count: 0,
    duplicate_count: 0,
    sent_count: 0,
    created_at: at,
    updated_at: at,
    max_attempts: p.rules?.max_attempts ?? BATCH_MAX_ATTEMPTS.default,
    retry_delay_s: p.rules?.retry_delay_s ?? BATCH_RETRY_DELAY_SECONDS.default,
    calling_window: p.rules?.calling_window ?? null,
    time_zone: p.rules?.time_zone ?? BATCH_DEFAULT_TIME_ZONE,
    paused_reason: null,
    resumed_at: null,
    all_failed: 0,
  };
}

/** The stored calling window (JSON), or null (any time). */
export function parseWindow(json: string | null): CallingWindow | null {
  if (!json) return null;
  try {
    const w = JSON.parse(json) as CallingWindow;
    return Array.isArray(w.days) && typeof w.start === 'string' && typeof w.end === 'string' ? w : null;
  } catch {
    return null;
  }
}

/** The dialling rules of a batch as stored (migrations 013 and 015). */
export type BatchRules = Pick<BatchRow, 'max_attempts' | 'retry_delay_s' | 'calling_window' | 'time_zone'>;

/** Changes the dialling rules of a batch that has not ended; false when it has (or is not the company's). */
export async function updateBatchRules(
  db: Kysely<DB>,
  companyId: string,
  id: string,
  rules: Partial<BatchRules>,
  now: Date,
): Promise<boolean> {
  return setBatchStatus(db, companyId, id, RULES_EDITABLE, rules, now);
}

/** The statuses in which the dialling rules may change. */
export const RULES_EDITABLE: BatchStatus[] = ['draft', 'scheduled', 'sending', 'paused'];

/** Inserts a new batch; a unique violation means its Idempotency-Key was used before (the caller maps it). */
export async function insertBatch(db: Kysely<DB>, row: BatchRow): Promise<void> {
  await db.insertInto('batch_calls').values(row).execute();
}

/**
 * Moves a batch only from the given statuses (compare-and-set on the status); false when it was in none of
 * them any more (a concurrent change won).
 */
export async function setBatchStatus(
  db: Kysely<DB>,
  companyId: string,
  id: string,
  from: BatchStatus[],
  set: Partial<Pick<BatchRow, 'status' | 'send_mode' | 'scheduled_at' | 'paused_reason' | 'resumed_at'> & BatchRules>,
  now: Date,
): Promise<boolean> {
  const res = await db
    .updateTable('batch_calls')
    .set({ ...set, updated_at: now.toISOString() })
    .where('id', '=', id)
    .where('company_id', '=', companyId)
    .where('status', 'in', from)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/**
 * Makes `uploadId` the batch's recipients list with its counts, if the batch still holds `previous` and is
 * still uploadable (compare-and-set); false when something changed meanwhile.
 */
export async function swapBatchUpload(
  db: Kysely<DB>,
  p: {
    companyId: string;
    batchId: string;
    previous: string | null;
    uploadId: string;
    counts: { valid: number; invalid: number; duplicates: number };
    now: Date;
  },
): Promise<boolean> {
  let swap = db
    .updateTable('batch_calls')
    .set({
      upload_id: p.uploadId,
      recipients_count: p.counts.valid,
      invalid_count: p.counts.invalid,
      duplicate_count: p.counts.duplicates,
      updated_at: p.now.toISOString(),
    })
    .where('id', '=', p.batchId)
    .where('company_id', '=', p.companyId)
    .where('status', 'in', UPLOADABLE)
    .where('sent_count', '=', 0);
  swap = p.previous === null ? swap.where('upload_id', 'is', null) : swap.where('upload_id', '=', p.previous);
  const res = await swap.executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** One page of the recipients of the batch's current upload, in row order. */
export async function listRecipients(db: Kysely<DB>, row: BatchRow, limit: number, offset: number) {
  if (!row.upload_id) return [];
  const rows = await db
    .selectFrom('batch_recipients')
    .select(['row_number', 'phone_number', 'variables'])
    .where('upload_id', '=', row.upload_id)
    .where('batch_id', '=', row.id)
    .orderBy('row_number')
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map((x) => ({
    row: Number(x.row_number),
    phone: x.phone_number,
    variables: JSON.parse(x.variables) as Record<string, string>,
  }));
}

/**
 * Stores recipients under `uploadId`; a phone already stored under the same upload is skipped (the
 * unique index (upload_id, phone_number)). Returns the row numbers that were stored.
 */
export async function insertRecipients(
  db: Kysely<DB>,
  target: { batchId: string; companyId: string; uploadId: string },
  rows: RecipientRow[],
): Promise<Set<number>> {
  const inserted = await db
    .insertInto('batch_recipients')
    .values(
      rows.map((p) => ({
        batch_id: target.batchId,
        company_id: target.companyId,
        upload_id: target.uploadId,
        row_number: p.row,
        phone_number: p.phone,
        variables: p.variables,
        time_zone: zoneOfNumber(p.phone),
      })),
    )
    .onConflict((oc) => oc.columns(['upload_id', 'phone_number']).doNothing())
    .returning('row_number')
    .execute();
  return new Set(inserted.map((r) => Number(r.row_number)));
}

/** Rows per DELETE when an upload is removed. */
const DELETE_ROWS = 5000;

/**
 * Removes the rows of one upload (a replaced list, or a failed upload) a range of DELETE_ROWS row numbers
 * at a time, the event loop turning between them: SQLite runs on the event loop, and one statement for a
 * 1.3-million-row list held it for seconds (300,000 rows: 0.45 s of CPU).
 */
export async function deleteUploadRecipients(db: Kysely<DB>, uploadId: string): Promise<void> {
  const top = await db
    .selectFrom('batch_recipients')
    .select((eb) => eb.fn.max('row_number').as('last'))
    .where('upload_id', '=', uploadId)
    .executeTakeFirst();
  const last = Number(top?.last ?? 0);
  for (let from = 0; from <= last; from += DELETE_ROWS) {
    await db
      .deleteFrom('batch_recipients')
      .where('upload_id', '=', uploadId)
      .where('row_number', '>=', from)
      .where('row_number', '<', from + DELETE_ROWS)
      .execute();
    if (from + DELETE_ROWS <= last) await yieldToLoop();
  }
}

/**
 * Recipients of the batch per state (the dispatcher's queue), every state present. Until the first dial
 * (`sent_count` 0: the dispatcher counts a recipient's first claim) every recipient is queued, and no query
 * is needed; after it the list can no longer be replaced, so the batch's rows are its list and the count
 * reads only the (batch_id, state) index (300,000 recipients on SQLite: about 40 ms, against 150 ms or more
 * when each row is read to check its upload).
 */
export async function recipientStateCounts(db: Kysely<DB>, row: BatchRow): Promise<Record<RecipientState, number>> {
  const counts = Object.fromEntries(RECIPIENT_STATES.map((s) => [s, 0])) as Record<RecipientState, number>;
  if (Number(row.sent_count) === 0 || !row.upload_id) {
    counts.queued = Number(row.recipients_count);
    return counts;
  }
  const rows = await db
    .selectFrom('batch_recipients')
    .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
    .where('batch_id', '=', row.id)
    .groupBy('state')
    .execute();
  for (const r of rows) if (r.state in counts) counts[r.state as RecipientState] = Number(r.n);
  return counts;
}

/** The recipients of the batch's list joined with their last call (company-scoped on both sides). */
const withCalls = (db: Kysely<DB>, row: BatchRow, uploadId: string) =>
  db
    .selectFrom('batch_recipients as r')
    .leftJoin('call_sessions as s', (j) => j.onRef('s.id', '=', 'r.call_id').onRef('s.company_id', '=', 'r.company_id'))
    .leftJoin('calls as c', (j) => j.onRef('c.id', '=', 'r.call_id').onRef('c.company_id', '=', 'r.company_id'))
    .where('r.upload_id', '=', uploadId)
    .where('r.batch_id', '=', row.id)
    .where('r.company_id', '=', row.company_id);

export interface RecipientOutcomeRow {
  row_number: number;
  phone_number: string;
  variables: string;
  state: string;
  attempts: number;
  call_id: string | null;
  call_status: string | null;
  duration: number | null;
  disconnection_reason: string | null;
  failure_reason: string | null;
}

const outcomeColumns = [
  'r.row_number',
  'r.phone_number',
  'r.variables',
  'r.state',
  'r.attempts',
  'r.call_id',
  // the finished call's row when it has one, else the live session's
  sql<string | null>`coalesce(c.status, s.status)`.as('call_status'),
  'c.duration',
  sql<string | null>`coalesce(c.disconnection_reason, nullif(s.disconnection_reason, ''))`.as('disconnection_reason'),
  'r.failure_reason',
] as const;

const dialled = (eb: ExpressionBuilder<DB & { r: DB['batch_recipients'] }, 'r'>) =>
  eb.or([eb('r.state', '!=', 'queued'), eb('r.attempts', '>', 0), eb('r.call_id', 'is not', null)]);

/**
 * The batch's recipients that have been dialled (the batch's calls), in row order: the first `limit`, and
 * how many there are: the batch's `sent_count` (the dispatcher counts each recipient's first claim), so a
 * poll of a large batch never counts its rows. The dispatcher claims in row order, so the first dialled
 * rows are found at the start of the list's (upload_id, row_number) key.
 */
export async function listBatchCalls(
  db: Kysely<DB>,
  row: BatchRow,
  limit: number,
): Promise<{ rows: RecipientOutcomeRow[]; total: number }> {
  if (!row.upload_id || Number(row.sent_count) === 0) return { rows: [], total: 0 };
  const rows = await withCalls(db, row, row.upload_id)
    .where(dialled)
    .select(outcomeColumns)
    .orderBy('r.row_number')
    .limit(limit)
    .execute();
  return { rows: rows.map(outcomeRow), total: Number(row.sent_count) };
}

/** Every recipient of the batch with its outcome, `size` at a time by row number (keyset), for the export. */
export async function recipientOutcomesAfter(
  db: Kysely<DB>,
  row: BatchRow,
  afterRow: number,
  size: number,
): Promise<RecipientOutcomeRow[]> {
  if (!row.upload_id) return [];
  const rows = await withCalls(db, row, row.upload_id)
    .where('r.row_number', '>', afterRow)
    .select(outcomeColumns)
    .orderBy('r.row_number')
    .limit(size)
    .execute();
  return rows.map(outcomeRow);
}

const outcomeRow = (x: {
  row_number: number;
  phone_number: string;
  variables: string;
  state: string;
  attempts: number;
  call_id: string | null;
  call_status: string | null;
  duration: number | null;
  disconnection_reason: string | null;
  failure_reason: string | null;
}): RecipientOutcomeRow => ({
  ...x,
  row_number: Number(x.row_number),
  attempts: Number(x.attempts),
  duration: x.duration === null ? null : Number(x.duration),
});

/** Whether a batch calls the recipients list `uploadId` (the upload sweep leaves its rows). */
export async function uploadInUse(db: Kysely<DB>, uploadId: string): Promise<boolean> {
  return (await db.selectFrom('batch_calls').select('id').where('upload_id', '=', uploadId).executeTakeFirst()) !== undefined;
}

/**
 * True when `phone` is one of the company's assigned numbers: the From number a batch may call from
 * (the form offers the same numbers, from GET /phone/assigned).
 */
export async function isAssignedNumber(db: Kysely<DB>, companyId: string, phone: string): Promise<boolean> {
  const row = await db
    .selectFrom('phone_numbers')
    .select('id')
    .where('company_id', '=', companyId)
    .where('phone_number', '=', phone)
    .executeTakeFirst();
  return row !== undefined;
}
