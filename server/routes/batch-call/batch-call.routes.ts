import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import {
  BATCH_CSV_MAX_BYTES,
  BATCH_DIAL_COST,
  BATCH_MESSAGES,
  BATCH_STATUS_LABELS,
  BATCH_TEMPLATE_CSV,
  BATCH_TEMPLATE_FILENAME,
  type Batch,
  BatchListQuerySchema,
  type BatchStatus,
  CreateBatchBodySchema,
  normalizePhone,
  RECIPIENTS_PREVIEW,
  RecipientsQuerySchema,
  ScheduleBatchBodySchema,
  type SendMode,
} from '../../../src/api/contract/batch.js';
import { IDEMPOTENCY_HEADER, IDEMPOTENCY_MESSAGES } from '../../../src/api/contract/idempotency.js';
import type { BatchCallsTable } from '../../db/schema.js';
import { requireAuth } from '../../lib/auth.js';
import { JSON_BODY_MAX, limitBody } from '../../lib/body-limit.js';
import { isUniqueViolation } from '../../lib/db-errors.js';
import type { AppDeps } from '../../lib/deps.js';
import { HttpError, jsonBody, notFound, ok, query } from '../../lib/http.js';
import { idempotent } from '../../lib/idempotency.js';
import { newId } from '../../lib/ids.js';
import type { AppEnv } from '../../types.js';
import { billingLimits, committedSpend } from '../billing/billing.service.js';
import { isAssignedNumber } from './assigned-number.js';
import { ingestRecipients, TooLargeError } from './batch.ingest.js';

type Row = BatchCallsTable;

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
  };
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

  r.use('*', requireAuth(deps));
  // JSON bodies are small; the recipients upload has its own streamed 50 MB limit
  r.use('*', async (c, next) => {
    if (c.req.method === 'POST' && c.req.path.endsWith('/recipients')) return next();
    return limitBody(JSON_BODY_MAX)(c, next);
  });

  const load = async (companyId: string, id: string) => {
    const row = await db
      .selectFrom('batch_calls')
      .selectAll()
      .where('id', '=', id)
      .where('company_id', '=', companyId)
      .executeTakeFirst();
    if (!row) throw notFound(BATCH_MESSAGES.notFound);
    return row;
  };

  /** Moves a batch only from the given statuses; a concurrent change loses cleanly with 409. */
  const transition = async (row: Row, from: BatchStatus[], set: Partial<Row>) => {
    const res = await db
      .updateTable('batch_calls')
      .set({ ...set, updated_at: deps.clock.now().toISOString() })
      .where('id', '=', row.id)
      .where('company_id', '=', row.company_id)
      .where('status', 'in', from)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) {
      const current = await load(row.company_id, row.id);
      throw new HttpError(409, BATCH_MESSAGES.notEditable(BATCH_STATUS_LABELS[current.status as BatchStatus] ?? current.status));
    }
    return load(row.company_id, row.id);
  };

  /** The monthly spend limit must cover what is committed (other batches, calls so far) plus these dials. */
  const ensureWithinSpend = async (row: Row, recipients: number) => {
    const limits = await billingLimits(deps, row.company_id);
    const committed = await committedSpend(deps, row.company_id, row.id);
    if (committed + recipients * BATCH_DIAL_COST > limits.monthlySpendLimit + 1e-9)
      throw new HttpError(422, BATCH_MESSAGES.overSpendLimit);
  };

  const ensureSendable = async (row: Row) => {
    if (Number(row.recipients_count) === 0) throw new HttpError(422, BATCH_MESSAGES.noRecipients);
    await ensureWithinSpend(row, Number(row.recipients_count));
  };

  const future = (iso: string, field = 'scheduledAt') => {
    if (Date.parse(iso) <= deps.clock.now().getTime()) throw fieldError(field, BATCH_MESSAGES.scheduledAtPast);
  };

  const recipientsOf = async (row: Row, limit: number, offset: number) => {
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
  };

  r.get('/', async (c) => {
    const { page, limit, status } = query(c, BatchListQuerySchema);
    const { companyId } = c.get('auth');
    let base = db.selectFrom('batch_calls').where('company_id', '=', companyId);
    if (status) base = base.where('status', '=', status);
    const [rows, count] = await Promise.all([
      base
        .selectAll()
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .offset((page - 1) * limit)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return ok(c, { data: { batches: rows.map(toBatch), total: Number(count.n) } });
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
    if (!(await isAssignedNumber(deps, companyId, input.fromNumber))) throw fieldError('fromNumber', BATCH_MESSAGES.fromNotOwned);
    if (input.status === 'scheduled' && input.scheduledAt) future(input.scheduledAt);

    const now = deps.clock.now().toISOString();
    const row: Row = {
      id: newId(deps.clock.now()),
      company_id: companyId,
      name: input.name,
      from_number: input.fromNumber,
      send_mode: input.sendMode,
      scheduled_at: input.sendMode === 'scheduled' ? input.scheduledAt : null,
      status: input.status,
      // the batch keeps its key for good (the middleware forgets keys after a day)
      idempotency_key: key,
      request_hash: createHash('sha256').update(JSON.stringify(input)).digest('hex'),
      upload_id: null,
      recipients_count: 0,
      invalid_count: 0,
      duplicate_count: 0,
      sent_count: 0,
      created_at: now,
      updated_at: now,
    };
    try {
      await db.insertInto('batch_calls').values(row).execute();
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
    const recipients = await recipientsOf(row, RECIPIENTS_PREVIEW, 0);
    const limits = await billingLimits(deps, companyId);
    return ok(c, {
      batch: toBatch(row),
      recipients,
      estimatedCost: Math.round(Number(row.recipients_count) * BATCH_DIAL_COST * 100) / 100,
      concurrencyLimit: limits.concurrencyLimit,
    });
  });

  r.get('/:id/recipients', async (c) => {
    const { page, limit } = query(c, RecipientsQuerySchema);
    const row = await load(c.get('auth').companyId, c.req.param('id'));
    const recipients = await recipientsOf(row, limit, (page - 1) * limit);
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

    const uploadId = newId(deps.clock.now());
    const target = { batchId: row.id, companyId, uploadId };
    let result: Awaited<ReturnType<typeof ingestRecipients>>;
    try {
      result = await ingestRecipients(deps, body, target);
    } catch (e) {
      await db.deleteFrom('batch_recipients').where('upload_id', '=', uploadId).execute();
      if (e instanceof TooLargeError) throw new HttpError(413, BATCH_MESSAGES.tooLarge);
      throw e;
    }

    // a batch already on its way (scheduled or sending) must stay within the spend limit with its new list
    if (row.status !== 'draft') {
      try {
        await ensureWithinSpend(row, result.valid);
      } catch (e) {
        await db.deleteFrom('batch_recipients').where('upload_id', '=', uploadId).execute();
        throw e;
      }
    }

    // swap the batch to this upload (compare-and-set on the previous upload), then drop the previous rows
    const previous = row.upload_id;
    let swap = db
      .updateTable('batch_calls')
      .set({
        upload_id: uploadId,
        recipients_count: result.valid,
        invalid_count: result.invalid,
        duplicate_count: result.duplicates,
        updated_at: deps.clock.now().toISOString(),
      })
      .where('id', '=', row.id)
      .where('company_id', '=', companyId)
      .where('status', 'in', ['draft', 'scheduled', 'sending'])
      .where('sent_count', '=', 0);
    swap = previous === null ? swap.where('upload_id', 'is', null) : swap.where('upload_id', '=', previous);
    const swapped = await swap.executeTakeFirst();
    const stale = Number(swapped.numUpdatedRows) === 0 ? uploadId : previous;
    if (stale) await db.deleteFrom('batch_recipients').where('upload_id', '=', stale).execute();
    if (Number(swapped.numUpdatedRows) === 0)
      throw new HttpError(409, 'The batch call changed while the file was uploading. Please try again.');

    const batch = toBatch(await load(companyId, row.id));
    return ok(c, { msg: BATCH_MESSAGES.uploaded(result.valid), ...result, batch });
  });

  r.post('/:id/send', async (c) => {
    const row = await load(c.get('auth').companyId, c.req.param('id'));
    if (!['draft', 'scheduled'].includes(row.status))
      throw new HttpError(409, BATCH_MESSAGES.notEditable(BATCH_STATUS_LABELS[row.status as BatchStatus]));
    await ensureSendable(row);
    const next = await transition(row, ['draft', 'scheduled'], { status: 'sending', send_mode: 'now', scheduled_at: null });
    deps.logger.info('batch call sending', {
      companyId: row.company_id,
      batchId: row.id,
      recipients: Number(row.recipients_count),
    });
    return ok(c, { msg: BATCH_MESSAGES.sent, batch: toBatch(next) });
  });

  r.post('/:id/schedule', async (c) => {
    const { scheduledAt } = await jsonBody(c, ScheduleBatchBodySchema);
    const row = await load(c.get('auth').companyId, c.req.param('id'));
    if (!['draft', 'scheduled'].includes(row.status))
      throw new HttpError(409, BATCH_MESSAGES.notEditable(BATCH_STATUS_LABELS[row.status as BatchStatus]));
    future(scheduledAt);
    await ensureSendable(row);
    const next = await transition(row, ['draft', 'scheduled'], {
      status: 'scheduled',
      send_mode: 'scheduled',
      scheduled_at: scheduledAt,
    });
    return ok(c, { msg: BATCH_MESSAGES.scheduled, batch: toBatch(next) });
  });

  r.post('/:id/cancel', async (c) => {
    const row = await load(c.get('auth').companyId, c.req.param('id'));
    const next = await transition(row, ['draft', 'scheduled', 'sending'], { status: 'canceled' });
    return ok(c, { msg: BATCH_MESSAGES.canceled, batch: toBatch(next) });
  });

  return r;
}

/** Recipients may be (re)uploaded until dialling starts or the batch ends. */
const uploadable = (row: Row) => ['draft', 'scheduled', 'sending'].includes(row.status) && Number(row.sent_count) === 0;
