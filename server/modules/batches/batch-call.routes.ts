import { createHash } from 'node:crypto';
import {
  BATCH_CALLS_PREVIEW,
  BATCH_CSV_MAX_BYTES,
  BATCH_DIAL_COST,
  BATCH_MESSAGES,
  BATCH_PATHS,
  BATCH_STATUS_LABELS,
  BATCH_TEMPLATE_CSV,
  BATCH_TEMPLATE_FILENAME,
  type Batch,
  BatchListQuerySchema,
  type BatchStatus,
  type CallingWindow,
  CreateBatchBodySchema,
  finishedOf,
  normalizePhone,
  RECIPIENTS_PREVIEW,
  RecipientsQuerySchema,
  ScheduleBatchBodySchema,
  type SendMode,
  UpdateBatchBodySchema,
} from '@contract/batch.js';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_MESSAGES } from '@contract/idempotency.js';
import { Hono } from 'hono';
import type { Kysely } from 'kysely';
import { newId } from '../../platform/crypto/ids.js';
import { withCompanyLock } from '../../platform/db/company-lock.js';
import type { DB } from '../../platform/db/schema.js';
import type { AppDeps } from '../../platform/deps.js';
import { JSON_BODY_MAX, limitBody } from '../../platform/http/body-limit.js';
import { checkExportToken, csvHeaders, EXPORT_LINK_EXPIRED, exportToken } from '../../platform/http/csv-export.js';
import { isUniqueViolation } from '../../platform/http/db-errors.js';
import { HttpError, jsonBody, notFound, ok, query } from '../../platform/http/http.js';
import { idempotent } from '../../platform/http/idempotency.js';
import type { AppEnv } from '../../platform/http/types.js';
import { TooLargeError } from '../../platform/uploads/byte-limit.js';
import { beginUpload, retireUpload } from '../../platform/uploads/pending-uploads.js';
import { requireAuth } from '../auth/index.js';
import { billingLimits, committedSpend } from '../billing/index.js';
import { requireConnectedCarrier } from '../telephony/index.js';
import { exportRecipients, recipientsExportPurpose } from './batch.export.js';
import { ingestRecipients } from './batch.ingest.js';
import {
  type BatchRow,
  type BatchRules,
  deleteUploadRecipients,
  findBatch,
  insertBatch,
  isAssignedNumber,
  listBatchCalls,
  listBatches,
  listRecipients,
  newBatchRow,
  parseWindow,
  recipientStateCounts,
  setBatchStatus,
  swapBatchUpload,
  UPLOADABLE,
  updateBatchRules,
} from './batch-call.repo.js';

type Row = BatchRow;

const CSV_TYPES = ['text/csv', 'application/csv', 'text/plain', 'application/vnd.ms-excel'];

export function toBatch(row: Row): Batch {
  return {
    _id: row.id,
    name: row.name,
    status: row.status as BatchStatus,
    fromNumber: row.from_number,
    sendMode: row.send_mode as SendMode,
    scheduledAt: row.scheduled_at,
    recipients: Number(row.recipients_count),
    invalid: Number(row.invalid_count),
    duplicates: Number(row.duplicate_count),
    sent: Number(row.sent_count),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    callingWindow: parseWindow(row.calling_window),
    timeZone: row.time_zone,
    maxAttempts: Number(row.max_attempts),
    retryDelaySeconds: Number(row.retry_delay_s),
    pausedReason: row.paused_reason,
    allFailed: Number(row.all_failed) === 1,
  };
}

/** The dialling rules of a create or update body, as columns (only the fields given). */
function rulesOf(body: {
  callingWindow?: CallingWindow | null | undefined;
  timeZone?: string | undefined;
  maxAttempts?: number | undefined;
  retryDelaySeconds?: number | undefined;
}): Partial<BatchRules> {
  const rules: Partial<BatchRules> = {};
  if (body.callingWindow !== undefined)
    rules.calling_window = body.callingWindow === null ? null : JSON.stringify(body.callingWindow);
  if (body.timeZone !== undefined) rules.time_zone = body.timeZone;
  if (body.maxAttempts !== undefined) rules.max_attempts = body.maxAttempts;
  if (body.retryDelaySeconds !== undefined) rules.retry_delay_s = body.retryDelaySeconds;
  return rules;
}

const fieldError = (field: string, msg: string, status: 400 | 422 = 400) =>
  new HttpError(status, msg, { errors: { [field]: msg } });

/** /batch-call: drafts, recipients upload (streamed CSV), send / schedule / cancel. Dialling is out of scope. */
export function batchCallRoutes(deps: AppDeps) {
  const db = deps.db.db;
  const r = new Hono<AppEnv>();

  // public: the template holds no data, and a plain download link carries no bearer token
  r.get('/template.csv', (c) => {
    c.header('Content-Type', 'text/csv; charset=utf-8');
    c.header('Content-Disposition', `attachment; filename="${BATCH_TEMPLATE_FILENAME}"`);
    c.header('Cache-Control', 'public, max-age=3600');
    return c.body(BATCH_TEMPLATE_CSV);
  });

  // 'Export recipients': a plain download link carries the signed token of POST /:id/recipients/export;
  // without a token the request goes on to the bearer check like every other path
  const recipientsCsv = async (companyId: string, id: string) => {
    const row = await load(companyId, id);
    return new Response(await exportRecipients(db, row), { headers: csvHeaders(`batch-call-${row.id}-recipients.csv`) });
  };
  r.get('/:id/recipients.csv', async (c, next) => {
    const token = c.req.query('token');
    if (token === undefined) return next();
    const id = c.req.param('id');
    const companyId = checkExportToken(deps.secrets.jwtKey, recipientsExportPurpose(id), token, deps.clock.now().getTime());
    if (!companyId) throw new HttpError(404, EXPORT_LINK_EXPIRED);
    return recipientsCsv(companyId, id);
  });

  r.use('*', requireAuth(deps));
  // JSON bodies are small; the recipients upload has its own streamed 50 MB limit
  r.use('*', async (c, next) => {
    if (c.req.method === 'POST' && c.req.path.endsWith('/recipients')) return next();
    return limitBody(JSON_BODY_MAX)(c, next);
  });

  const load = async (companyId: string, id: string, on: Kysely<DB> = db) => {
    const row = await findBatch(on, companyId, id);
    if (!row) throw notFound(BATCH_MESSAGES.notFound);
    return row;
  };

  const notEditable = (row: Row) =>
    new HttpError(409, BATCH_MESSAGES.notEditable(BATCH_STATUS_LABELS[row.status as BatchStatus] ?? row.status));

  /**
   * Moves a batch from the given statuses. Spend-relevant moves (send, schedule) run inside
   * withCompanyLock with the check that allows them; a concurrent change loses cleanly with 409.
   */
  const transition = async (trx: Kysely<DB>, row: Row, from: BatchStatus[], set: Parameters<typeof setBatchStatus>[4]) => {
    if (!(await setBatchStatus(trx, row.company_id, row.id, from, set, deps.clock.now())))
      throw notEditable(await load(row.company_id, row.id, trx));
    return load(row.company_id, row.id, trx);
  };

  /**
   * The monthly spend limit must cover what is committed (other batches, calls so far) plus these dials.
   * Only inside withCompanyLock (`trx`), so that no other commit of the company slips in between.
   */
  const ensureWithinSpend = async (trx: Kysely<DB>, row: Row, recipients: number) => {
    const limits = await billingLimits(deps, row.company_id, trx);
    const committed = await committedSpend(deps, row.company_id, row.id, trx);
    if (committed + recipients * BATCH_DIAL_COST > limits.monthlySpendLimit + 1e-9)
      throw new HttpError(422, BATCH_MESSAGES.overSpendLimit);
  };

  const ensureSendable = async (trx: Kysely<DB>, row: Row) => {
    if (Number(row.recipients_count) === 0) throw new HttpError(422, BATCH_MESSAGES.noRecipients);
    await ensureWithinSpend(trx, row, Number(row.recipients_count));
  };

  /** Send and schedule: the batch re-read, checked against the spend limit and moved, as one step per company. */
  const commit = (companyId: string, id: string, set: Parameters<typeof setBatchStatus>[4]) =>
    withCompanyLock(db, companyId, async (trx) => {
      const row = await load(companyId, id, trx);
      if (!SENDABLE.includes(row.status as BatchStatus)) throw notEditable(row);
      await ensureSendable(trx, row);
      return transition(trx, row, SENDABLE, set);
    });

  const future = (iso: string, field = 'scheduledAt') => {
    if (Date.parse(iso) <= deps.clock.now().getTime()) throw fieldError(field, BATCH_MESSAGES.scheduledAtPast);
  };

  r.get('/', async (c) => {
    const { page, limit, status } = query(c, BatchListQuerySchema);
    const { rows, total } = await listBatches(db, c.get('auth').companyId, { page, limit, status });
    return ok(c, { data: { batches: rows.map(toBatch), total } });
  });

  // the Idempotency-Key middleware answers repeats with the first answer and 422 for another body
  r.post('/', idempotent(deps, { required: true }), async (c) => {
    const key = c.req.header(IDEMPOTENCY_HEADER) ?? '';
    const body = await jsonBody(c, CreateBatchBodySchema);
    const { companyId } = c.get('auth');
    const input = {
      ...body,
      fromNumber: normalizePhone(body.fromNumber) ?? body.fromNumber,
      scheduledAt: body.scheduledAt ?? null,
    };
    if (!(await isAssignedNumber(deps.db.db, companyId, input.fromNumber)))
      throw fieldError('fromNumber', BATCH_MESSAGES.fromNotOwned);
    if (input.status === 'scheduled' && input.scheduledAt) future(input.scheduledAt);
    // nothing is sent or scheduled from a number whose carrier is not connected (a draft may wait for it)
    if (input.status !== 'draft') await requireConnectedCarrier(deps, companyId, input.fromNumber, 'fromNumber');

    const row = newBatchRow({
      id: newId(deps.clock.now()),
      companyId,
      name: input.name,
      fromNumber: input.fromNumber,
      sendMode: input.sendMode,
      scheduledAt: input.sendMode === 'scheduled' ? input.scheduledAt : null,
      status: input.status,
      // the batch keeps its key for good (the middleware forgets keys after a day)
      idempotencyKey: key,
      requestHash: createHash('sha256').update(JSON.stringify(input)).digest('hex'),
      now: deps.clock.now(),
      rules: rulesOf(input),
    });
    try {
      await insertBatch(db, row);
    } catch (e) {
      // a key older than the middleware remembers, sent again: never a second batch under one key
      if (isUniqueViolation(e)) throw new HttpError(422, IDEMPOTENCY_MESSAGES.reused);
      throw e;
    }
    return ok(c, { msg: BATCH_MESSAGES.created, batch: toBatch(row) }, 201);
  });

  r.get('/:id', async (c) => {
    const { companyId } = c.get('auth');
    const row = await load(companyId, c.req.param('id'));
    const [recipients, limits, counts, calls] = await Promise.all([
      listRecipients(db, row, RECIPIENTS_PREVIEW, 0),
      billingLimits(deps, companyId),
      recipientStateCounts(db, row),
      listBatchCalls(db, row, BATCH_CALLS_PREVIEW),
    ]);
    const total = Number(row.recipients_count);
    return ok(c, {
      batch: toBatch(row),
      recipients,
      estimatedCost: Math.round(total * BATCH_DIAL_COST * 100) / 100,
      concurrencyLimit: limits.concurrencyLimit,
      progress: { counts, total, finished: finishedOf(counts, total) },
      calls: {
        rows: calls.rows.map((x) => ({
          row: x.row_number,
          phone: x.phone_number,
          state: x.state,
          attempts: x.attempts,
          callId: x.call_id,
          callStatus: x.call_id ? x.call_status : null,
          duration: x.call_id ? x.duration : null,
          reason: x.failure_reason,
        })),
        total: calls.total,
      },
    });
  });

  // the dialling rules (calling window, time zone, attempts, retry delay) of a batch that has not ended
  r.patch('/:id', async (c) => {
    const body = await jsonBody(c, UpdateBatchBodySchema);
    const row = await load(c.get('auth').companyId, c.req.param('id'));
    if (!(await updateBatchRules(db, row.company_id, row.id, rulesOf(body), deps.clock.now())))
      throw notEditable(await load(row.company_id, row.id));
    return ok(c, { batch: toBatch(await load(row.company_id, row.id)) });
  });

  /** A download link (valid a few minutes) for the recipients with their outcome, signed for this batch. */
  r.post('/:id/recipients/export', async (c) => {
    const { companyId } = c.get('auth');
    const row = await load(companyId, c.req.param('id'));
    const token = exportToken(deps.secrets.jwtKey, recipientsExportPurpose(row.id), companyId, deps.clock.now().getTime());
    return ok(c, { data: { url: `/api/v1${BATCH_PATHS.recipientsCsv(row.id)}?token=${encodeURIComponent(token)}` } }, 201);
  });

  // the same CSV for API callers with their bearer token
  r.get('/:id/recipients.csv', (c) => recipientsCsv(c.get('auth').companyId, c.req.param('id')));

  r.get('/:id/recipients', async (c) => {
    const { page, limit } = query(c, RecipientsQuerySchema);
    const row = await load(c.get('auth').companyId, c.req.param('id'));
    const recipients = await listRecipients(db, row, limit, (page - 1) * limit);
    return ok(c, { data: { recipients, total: Number(row.recipients_count) } });
  });

  r.post('/:id/recipients', async (c) => {
    const { companyId } = c.get('auth');
    const row = await load(companyId, c.req.param('id'));
    if (!uploadable(row)) throw new HttpError(409, BATCH_MESSAGES.notEditable(BATCH_STATUS_LABELS[row.status as BatchStatus]));
    const type = (c.req.header('Content-Type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (!CSV_TYPES.includes(type)) throw new HttpError(415, BATCH_MESSAGES.notCsv);
    const declared = Number(c.req.header('Content-Length') ?? Number.NaN);
    if (declared > BATCH_CSV_MAX_BYTES) throw new HttpError(413, BATCH_MESSAGES.tooLarge);
    const body = c.req.raw.body;
    if (!body) throw new HttpError(400, BATCH_MESSAGES.emptyFile);

    // marked before the first row is written: if this process dies mid-way, the sweep removes the rows
    const uploadId = newId(deps.clock.now());
    const pending = await beginUpload(deps, 'recipients', uploadId, companyId);
    const discard = async () => {
      await deleteUploadRecipients(db, uploadId);
      await pending.end();
    };
    const target = { batchId: row.id, companyId, uploadId };
    let result: Awaited<ReturnType<typeof ingestRecipients>>;
    try {
      result = await ingestRecipients(deps, body, target);
    } catch (e) {
      await discard();
      if (e instanceof TooLargeError) throw new HttpError(413, BATCH_MESSAGES.tooLarge);
      throw e;
    }

    // One step per company: a batch already on its way (scheduled or sending) must stay within the spend
    // limit with its new list; then the batch swaps to this upload (compare-and-set on the previous one),
    // which ends this upload's lease and marks the previous list for removal in the same commit.
    const previous = row.upload_id;
    let swapped: { remove(): Promise<void> } | null;
    try {
      swapped = await withCompanyLock(db, companyId, async (trx) => {
        const current = await load(companyId, row.id, trx);
        if (current.status !== 'draft' && UPLOADABLE.includes(current.status as BatchStatus))
          await ensureWithinSpend(trx, current, result.valid);
        const counts = { valid: result.valid, invalid: result.invalid, duplicates: result.duplicates };
        if (!(await swapBatchUpload(trx, { companyId, batchId: row.id, previous, uploadId, counts, now: deps.clock.now() })))
          return null;
        await pending.settle(trx);
        return previous ? retireUpload(deps, trx, 'recipients', previous, companyId) : { remove: async () => {} };
      });
    } catch (e) {
      await discard();
      throw e;
    }
    if (!swapped) {
      await discard();
      throw new HttpError(409, 'The batch call changed while the file was uploading. Please try again.');
    }
    await swapped.remove();

    const batch = toBatch(await load(companyId, row.id));
    return ok(c, { msg: BATCH_MESSAGES.uploaded(result.valid), ...result, batch });
  });

  r.post('/:id/send', async (c) => {
    const { companyId } = c.get('auth');
    const row = await load(companyId, c.req.param('id'));
    if (!SENDABLE.includes(row.status as BatchStatus)) throw notEditable(row);
    await requireConnectedCarrier(deps, companyId, row.from_number, 'fromNumber');
    const next = await commit(companyId, row.id, {
      status: 'sending',
      send_mode: 'now',
      scheduled_at: null,
    });
    deps.logger.info('batch call sending', {
      companyId: next.company_id,
      batchId: next.id,
      recipients: Number(next.recipients_count),
    });
    return ok(c, { msg: BATCH_MESSAGES.sent, batch: toBatch(next) });
  });

  r.post('/:id/schedule', async (c) => {
    const { scheduledAt } = await jsonBody(c, ScheduleBatchBodySchema);
    const { companyId } = c.get('auth');
    const row = await load(companyId, c.req.param('id'));
    if (!SENDABLE.includes(row.status as BatchStatus)) throw notEditable(row);
    future(scheduledAt);
    await requireConnectedCarrier(deps, companyId, row.from_number, 'fromNumber');
    const next = await commit(companyId, row.id, { status: 'scheduled', send_mode: 'scheduled', scheduled_at: scheduledAt });
    return ok(c, { msg: BATCH_MESSAGES.scheduled, batch: toBatch(next) });
  });

  r.post('/:id/cancel', async (c) => {
    const row = await load(c.get('auth').companyId, c.req.param('id'));
    const next = await transition(db, row, ['draft', 'scheduled', 'sending', 'paused'], { status: 'canceled' });
    return ok(c, { msg: BATCH_MESSAGES.canceled, batch: toBatch(next) });
  });

  // the dispatcher (server/modules/batches/dispatcher.ts) dials only batches that are sending
  r.post('/:id/pause', async (c) => {
    const row = await load(c.get('auth').companyId, c.req.param('id'));
    // paused by hand: no reason (the dispatcher's self-pause says why)
    const next = await transition(db, row, ['sending'], { status: 'paused', paused_reason: null });
    return ok(c, { msg: BATCH_MESSAGES.paused, batch: toBatch(next) });
  });

  r.post('/:id/resume', async (c) => {
    const row = await load(c.get('auth').companyId, c.req.param('id'));
    // failures before the resume no longer count towards the self-pause
    const next = await transition(db, row, ['paused'], {
      status: 'sending',
      paused_reason: null,
      resumed_at: deps.clock.now().toISOString(),
    });
    return ok(c, { msg: BATCH_MESSAGES.resumed, batch: toBatch(next) });
  });

  return r;
}

/** The statuses a batch can be sent or scheduled from. */
const SENDABLE: BatchStatus[] = ['draft', 'scheduled'];

/** Recipients may be (re)uploaded until dialling starts or the batch ends. */
const uploadable = (row: Row) => UPLOADABLE.includes(row.status as BatchStatus) && Number(row.sent_count) === 0;
