import { expect, it } from 'vitest';
import { BATCH_CSV_MAX_BYTES, BATCH_MESSAGES, BATCH_TEMPLATE_CSV } from '../../src/api/contract/batch.js';
import { IDEMPOTENCY_MESSAGES } from '../../src/api/contract/idempotency.js';
import { TELEPHONY_MESSAGES } from '../../src/api/contract/telephony.js';
import { RECIPIENTS_CSV, RECIPIENTS_EXPECTED } from '../fixtures/recipients.js';
import { type SignedUp, signUp } from './auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from './helpers.js';
import { type Body, call, connectTwilio, insertNumber } from './seed.js';

/**
 * Batch calls: idempotent create, streamed recipients upload with the shared CSV rules and the
 * 50 MB limit, send / schedule / cancel with the spend limit, and tenant isolation on every route.
 * The test clock reads 2026-11-22T10:00Z.
 */

const FROM = '+14155550101';
const FUTURE = '2026-12-01T09:00:00+01:00';
const PAST = '2026-11-22T09:59:00Z';
let keys = 0;
const newKey = () => `test-key-${++keys}-${Date.now()}`;

const draft = (over: Record<string, unknown> = {}) => ({
  name: 'November reminders',
  fromNumber: FROM,
  sendMode: 'now',
  ...over,
});

async function company(t: TestApp, phone = FROM): Promise<SignedUp> {
  const user = await signUp(t);
  await insertNumber(t, user.companyId, phone);
  await connectTwilio(t, user.token);
  return user;
}

function create(t: TestApp, token: string, body: unknown, key: string | null = newKey()) {
  return call(t, 'POST', '/batch-call', { token, body, headers: key === null ? {} : { 'Idempotency-Key': key } });
}

async function created(t: TestApp, token: string, body: unknown = draft()) {
  const res = await create(t, token, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.batch as Body;
}

function upload(t: TestApp, token: string, id: string, csv: string, type = 'text/csv') {
  return call(t, 'POST', `/batch-call/${id}/recipients`, { token, body: csv, headers: { 'Content-Type': type } });
}

const phones = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => `+1415${String(2000000 + from + i).padStart(7, '0')}`).map((p) =>
    p.replace('+14152', '+14155'),
  );

/** A batch of `n` valid recipients. */
async function withRecipients(t: TestApp, token: string, n: number, body: unknown = draft()) {
  const batch = await created(t, token, body);
  const res = await upload(t, token, batch._id, ['phone_number', ...phones(n)].join('\n'));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.valid).toBe(n);
  return res.body.batch as Body;
}

/** A pull-based body of `total` bytes (header + blank lines) that counts what the server pulled. */
function countingBody(total: number) {
  const head = new TextEncoder().encode('phone_number\n');
  const chunk = new Uint8Array(64 * 1024).fill(10);
  const state = { produced: 0 };
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(ctrl) {
        if (state.produced >= total) return ctrl.close();
        const part = state.produced === 0 ? head : chunk.subarray(0, Math.min(chunk.length, total - state.produced));
        state.produced += part.byteLength;
        ctrl.enqueue(part);
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, state };
}

async function rawUpload(
  t: TestApp,
  token: string,
  id: string,
  body: ReadableStream<Uint8Array>,
  headers: Record<string, string>,
) {
  const req = new Request(`http://parley.test/api/v1/batch-call/${id}/recipients`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/csv', ...headers },
    body,
    duplex: 'half',
  } as RequestInit);
  const res = await t.app.request(req, undefined, { incoming: { socket: { remoteAddress: '127.0.0.1' } } });
  return { status: res.status, body: (await res.json()) as Body };
}

describeEachDb('batch calls', (kind) => {
  const t = useTestApp(kind);

  it('creates a draft from one of the company’s numbers, normalising it', async () => {
    const a = await company(t());
    const res = await create(t(), a.token, draft({ name: '  Flu shots  ', fromNumber: '(415) 555-0101' }));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      success: true,
      msg: BATCH_MESSAGES.created,
      batch: {
        _id: expect.stringMatching(/^[0-9a-f]{24}$/),
        name: 'Flu shots',
        status: 'draft',
        fromNumber: FROM,
        sendMode: 'now',
        scheduledAt: null,
        recipients: 0,
        invalid: 0,
        duplicates: 0,
        sent: 0,
        createdAt: '2026-11-22T10:00:00.000Z',
        updatedAt: '2026-11-22T10:00:00.000Z',
        callingWindow: null,
        timeZone: 'UTC',
        maxAttempts: 2,
        retryDelaySeconds: 120,
        pausedReason: null,
        allFailed: false,
      },
    });
    expect(res.headers.get('Idempotent-Replayed')).toBeNull();
  });

  it('validates the create body and the Idempotency-Key header', async () => {
    const a = await company(t());
    const b = await company(t(), '+14155550202');
    await insertNumber(t(), null, '+14155550303');
    const refused: [unknown, number, string][] = [
      [{ fromNumber: FROM, sendMode: 'now' }, 400, BATCH_MESSAGES.nameRequired],
      [draft({ name: '   ' }), 400, BATCH_MESSAGES.nameRequired],
      [draft({ name: 'x'.repeat(101) }), 400, BATCH_MESSAGES.nameTooLong],
      [draft({ fromNumber: undefined }), 400, BATCH_MESSAGES.fromRequired],
      [draft({ fromNumber: '+14155550202' }), 400, BATCH_MESSAGES.fromNotOwned],
      [draft({ fromNumber: '+14155550303' }), 400, BATCH_MESSAGES.fromNotOwned],
      [draft({ sendMode: 'later' }), 400, BATCH_MESSAGES.sendMode],
      [draft({ status: 'completed' }), 400, BATCH_MESSAGES.status],
      [draft({ status: 'scheduled', sendMode: 'scheduled' }), 400, BATCH_MESSAGES.scheduledAtRequired],
      [draft({ status: 'scheduled', sendMode: 'now', scheduledAt: FUTURE }), 400, BATCH_MESSAGES.scheduledNeedsMode],
      [draft({ status: 'scheduled', sendMode: 'scheduled', scheduledAt: PAST }), 400, BATCH_MESSAGES.scheduledAtPast],
      [draft({ sendMode: 'scheduled', scheduledAt: 'tomorrow' }), 400, BATCH_MESSAGES.scheduledAtInvalid],
    ];
    for (const [body, status, msg] of refused) {
      const res = await create(t(), a.token, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.success).toBe(false);
      expect(res.body.msg).toContain(msg);
    }
    expect((await create(t(), a.token, draft(), null)).body).toEqual({
      success: false,
      msg: IDEMPOTENCY_MESSAGES.required,
    });
    for (const key of ['', 'k'.repeat(256), 'with space', 'clé']) {
      const res = await create(t(), a.token, draft(), key);
      expect(res.status, key).toBe(400);
    }
    // nothing was created by any refused request
    expect((await call(t(), 'GET', '/batch-call', { token: a.token })).body.data.total).toBe(0);
    // B may use its own number
    expect((await create(t(), b.token, draft({ fromNumber: '+14155550202' }))).status).toBe(201);
  });

  it('the same Idempotency-Key sent 10 times at once creates one batch and answers the same each time', async () => {
    const a = await company(t());
    const key = newKey();
    const answers = await Promise.all(Array.from({ length: 10 }, () => create(t(), a.token, draft(), key)));
    expect(answers.map((r) => r.status)).toEqual(Array(10).fill(201));
    for (const r of answers) expect(r.body).toEqual(answers[0]?.body);
    expect(answers.filter((r) => r.headers.get('Idempotent-Replayed') === 'true')).toHaveLength(9);
    const rows = await t().deps.db.db.selectFrom('batch_calls').select('id').where('company_id', '=', a.companyId).execute();
    expect(rows).toEqual([{ id: answers[0]?.body.batch._id }]);

    // a later repeat answers the first answer again, whatever happened to the batch since
    await upload(t(), a.token, rows[0]!.id, 'phone_number\n+14155550111\n');
    const later = await create(t(), a.token, draft(), key);
    expect(later.status).toBe(201);
    expect(later.body).toEqual(answers[0]?.body);

    // the same key with another body: 422, nothing created
    const other = await create(t(), a.token, draft({ name: 'Something else' }), key);
    expect(other.status).toBe(422);
    expect(other.body).toEqual({ success: false, msg: IDEMPOTENCY_MESSAGES.reused });
    expect((await call(t(), 'GET', '/batch-call', { token: a.token })).body.data.total).toBe(1);

    // once the middleware has forgotten the key (a day later), the batch still holds it: no second batch
    await t().deps.db.db.deleteFrom('idempotency_keys').execute();
    const forgotten = await create(t(), a.token, draft(), key);
    expect(forgotten.status).toBe(422);
    expect(forgotten.body).toEqual({ success: false, msg: IDEMPOTENCY_MESSAGES.reused });
    expect((await call(t(), 'GET', '/batch-call', { token: a.token })).body.data.total).toBe(1);

    // keys are per company: B's request with A's key is B's own first request
    const b = await company(t(), '+14155550202');
    const theirs = await create(t(), b.token, draft({ fromNumber: '+14155550202' }), key);
    expect(theirs.status).toBe(201);
    expect(theirs.body.batch._id).not.toBe(rows[0]!.id);
  });

  it('reads a recipients CSV with the shared rules: E.164, blanks, duplicates, reasons, variables', async () => {
    const a = await company(t());
    // the list has a London number: this company calls the UK as well as the US of its own number
    const limits = { concurrencyLimit: 10, monthlySpendLimit: 500, allowedCountries: ['US', 'GB'] };
    expect((await call(t(), 'PUT', '/billing/limits', { token: a.token, body: limits })).status).toBe(200);
    const batch = await created(t(), a.token);
    const res = await upload(t(), a.token, batch._id, RECIPIENTS_CSV);
    expect(res.status).toBe(200);
    const { columns: _columns, recipients, ...counts } = RECIPIENTS_EXPECTED;
    expect(res.body).toMatchObject({ success: true, msg: BATCH_MESSAGES.uploaded(4), ...counts });
    expect(res.body.batch).toMatchObject({ recipients: 4, invalid: 2, duplicates: 1 });

    const stored = await call(t(), 'GET', `/batch-call/${batch._id}/recipients`, { token: a.token });
    expect(stored.body.data).toEqual({ recipients, total: 4 });
    const page2 = await call(t(), 'GET', `/batch-call/${batch._id}/recipients?page=2&limit=3`, { token: a.token });
    expect(page2.body.data.recipients).toEqual(recipients.slice(3));

    const detail = await call(t(), 'GET', `/batch-call/${batch._id}`, { token: a.token });
    expect(detail.body).toMatchObject({ batch: { recipients: 4 }, recipients, estimatedCost: 0.02, concurrencyLimit: 10 });

    // a new upload replaces the list
    const again = await upload(t(), a.token, batch._id, 'phone_number\n+442079460958\n');
    expect(again.body).toMatchObject({ total: 1, valid: 1, invalid: 0, duplicates: 0, errors: [] });
    const replaced = await call(t(), 'GET', `/batch-call/${batch._id}/recipients`, { token: a.token });
    expect(replaced.body.data).toEqual({ recipients: [{ row: 2, phone: '+442079460958', variables: {} }], total: 1 });
    const left = await t()
      .deps.db.db.selectFrom('batch_recipients')
      .select('row_number')
      .where('batch_id', '=', batch._id)
      .execute();
    expect(left).toHaveLength(1);
  });

  it('flags duplicates across insert chunks and caps the error list', async () => {
    const a = await company(t());
    const batch = await created(t(), a.token);
    const list = phones(1200);
    const rows = [...list, list[0], list[1199], ...Array.from({ length: 150 }, () => 'nope')];
    const res = await upload(t(), a.token, batch._id, ['phone_number', ...rows].join('\n'));
    expect(res.body).toMatchObject({ total: 1352, valid: 1200, invalid: 150, duplicates: 2 });
    expect(res.body.errors).toHaveLength(100);
    expect(res.body.errors.slice(0, 3)).toEqual([
      { row: 1202, reason: BATCH_MESSAGES.duplicatePhone },
      { row: 1203, reason: BATCH_MESSAGES.duplicatePhone },
      { row: 1204, reason: BATCH_MESSAGES.invalidPhone },
    ]);
  });

  it('refuses unreadable recipients files with a clear message and keeps the previous list', async () => {
    const a = await company(t());
    const batch = await created(t(), a.token);
    await upload(t(), a.token, batch._id, 'phone_number\n+14155550111\n');
    const refused: [string, string, number, string][] = [
      ['name,phone\nAda,+14155550111\n', 'text/csv', 400, BATCH_MESSAGES.missingPhoneColumn],
      ['phone_number,a,a\n+14155550111,1,2\n', 'text/csv', 400, BATCH_MESSAGES.duplicateColumn('a')],
      ['', 'text/csv', 400, BATCH_MESSAGES.emptyFile],
      ['\n \n,,\n', 'text/csv', 400, BATCH_MESSAGES.emptyFile],
      ['phone_number\n"+14155550112\n', 'text/csv', 400, BATCH_MESSAGES.unreadable(2)],
      ['phone_number\n+14155550112\n', 'application/json', 415, BATCH_MESSAGES.notCsv],
      [`phone_number\n${'9'.repeat(70_000)}\n`, 'text/csv', 400, BATCH_MESSAGES.unreadable(2)],
    ];
    for (const [csv, type, status, msg] of refused) {
      const res = await upload(t(), a.token, batch._id, csv, type);
      expect(res.status, csv.slice(0, 40)).toBe(status);
      expect(res.body).toEqual({ success: false, msg });
    }
    const kept = await call(t(), 'GET', `/batch-call/${batch._id}/recipients`, { token: a.token });
    expect(kept.body.data.recipients.map((r: { phone: string }) => r.phone)).toEqual(['+14155550111']);
    const rows = await t()
      .deps.db.db.selectFrom('batch_recipients')
      .select('row_number')
      .where('batch_id', '=', batch._id)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('answers 413 to 50 MB + 1 byte without reading the body when its length is declared', async () => {
    const a = await company(t());
    const batch = await created(t(), a.token);
    const { stream, state } = countingBody(BATCH_CSV_MAX_BYTES + 1);
    const res = await rawUpload(t(), a.token, batch._id, stream, { 'Content-Length': String(BATCH_CSV_MAX_BYTES + 1) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ success: false, msg: BATCH_MESSAGES.tooLarge });
    // refused before the body was read
    expect(state.produced).toBe(0);
    // a declared length of exactly 50 MB is let through to the streamed count
    const fits = countingBody(1024);
    const ok = await rawUpload(t(), a.token, batch._id, fits.stream, { 'Content-Length': String(BATCH_CSV_MAX_BYTES) });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ total: 0, valid: 0 });
  });

  it('answers 413 to a streamed body that crosses 50 MB, stopping right there and storing nothing', async () => {
    const a = await company(t());
    const batch = await created(t(), a.token);
    await upload(t(), a.token, batch._id, 'phone_number\n+14155550111\n');
    const total = BATCH_CSV_MAX_BYTES + 8 * 1024 * 1024;
    const { stream, state } = countingBody(total);
    const res = await rawUpload(t(), a.token, batch._id, stream, {});
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ success: false, msg: BATCH_MESSAGES.tooLarge });
    // it stopped pulling soon after the limit, far before the end of the body
    expect(state.produced).toBeGreaterThan(BATCH_CSV_MAX_BYTES);
    expect(state.produced).toBeLessThan(BATCH_CSV_MAX_BYTES + 2 * 1024 * 1024);
    const rows = await t()
      .deps.db.db.selectFrom('batch_recipients')
      .select('phone_number')
      .where('batch_id', '=', batch._id)
      .execute();
    expect(rows).toEqual([{ phone_number: '+14155550111' }]);
  }, 90_000);

  it('moves a batch through send, schedule (future only), reschedule and cancel', async () => {
    const a = await company(t());
    const empty = await created(t(), a.token);
    for (const [action, body] of [
      ['send', undefined],
      ['schedule', { scheduledAt: FUTURE }],
    ] as const) {
      const res = await call(t(), 'POST', `/batch-call/${empty._id}/${action}`, { token: a.token, body });
      expect(res.status, action).toBe(422);
      expect(res.body).toEqual({ success: false, msg: BATCH_MESSAGES.noRecipients });
    }

    const batch = await withRecipients(t(), a.token, 3);
    const path = (action: string) => `/batch-call/${batch._id}/${action}`;
    for (const [body, msg] of [
      [{ scheduledAt: PAST }, BATCH_MESSAGES.scheduledAtPast],
      [{ scheduledAt: '2026-11-22T10:00:00Z' }, BATCH_MESSAGES.scheduledAtPast],
      [{ scheduledAt: 'next week' }, BATCH_MESSAGES.scheduledAtInvalid],
      [{}, BATCH_MESSAGES.scheduledAtRequired],
    ] as const) {
      const res = await call(t(), 'POST', path('schedule'), { token: a.token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.msg).toContain(msg);
    }
    const scheduled = await call(t(), 'POST', path('schedule'), { token: a.token, body: { scheduledAt: FUTURE } });
    expect(scheduled.status).toBe(200);
    expect(scheduled.body).toMatchObject({
      msg: BATCH_MESSAGES.scheduled,
      batch: { status: 'scheduled', sendMode: 'scheduled', scheduledAt: '2026-12-01T08:00:00.000Z' },
    });
    const moved = await call(t(), 'POST', path('schedule'), { token: a.token, body: { scheduledAt: '2026-12-24T18:30:00Z' } });
    expect(moved.body.batch).toMatchObject({ status: 'scheduled', scheduledAt: '2026-12-24T18:30:00.000Z' });

    const sent = await call(t(), 'POST', path('send'), { token: a.token });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({
      msg: BATCH_MESSAGES.sent,
      batch: { status: 'sending', sendMode: 'now', scheduledAt: null },
    });
    const late = await call(t(), 'POST', path('schedule'), { token: a.token, body: { scheduledAt: FUTURE } });
    expect(late.status).toBe(409);
    expect(late.body.msg).toBe(BATCH_MESSAGES.notEditable('Sending'));

    const canceled = await call(t(), 'POST', path('cancel'), { token: a.token });
    expect(canceled.body).toMatchObject({ msg: BATCH_MESSAGES.canceled, batch: { status: 'canceled' } });
    for (const [action, body] of [
      ['cancel', undefined],
      ['send', undefined],
      ['schedule', { scheduledAt: FUTURE }],
    ] as const) {
      const res = await call(t(), 'POST', path(action), { token: a.token, body });
      expect(res.status, action).toBe(409);
      expect(res.body).toEqual({ success: false, msg: BATCH_MESSAGES.notEditable('Canceled') });
    }
    expect((await upload(t(), a.token, batch._id, 'phone_number\n+14155550111\n')).status).toBe(409);
    // the stored recipients stay with the canceled batch
    expect((await call(t(), 'GET', `/batch-call/${batch._id}`, { token: a.token })).body.batch.recipients).toBe(3);

    // a draft can be canceled too; a scheduled batch created at once accepts its recipients
    expect((await call(t(), 'POST', `/batch-call/${empty._id}/cancel`, { token: a.token })).body.batch.status).toBe('canceled');
    const direct = await created(
      t(),
      a.token,
      draft({ name: 'Direct', status: 'scheduled', sendMode: 'scheduled', scheduledAt: FUTURE }),
    );
    expect(direct).toMatchObject({ status: 'scheduled', scheduledAt: '2026-12-01T08:00:00.000Z' });
    expect((await upload(t(), a.token, direct._id, 'phone_number\n+14155550111\n')).body.batch.recipients).toBe(1);
  });

  it('refuses to send or schedule from a number whose carrier is not connected, naming it and the Providers page', async () => {
    const a = await signUp(t());
    await insertNumber(t(), a.companyId, FROM);
    const msg = TELEPHONY_MESSAGES.notConnected('Twilio');
    expect(msg).toContain('Providers page');
    const refused = {
      success: false,
      msg,
      errors: { fromNumber: msg },
      problem: { provider: 'twilio', message: msg, link: '/dashboard/providers' },
    };
    // a draft may wait for the carrier; sending or scheduling it may not
    const batch = await withRecipients(t(), a.token, 2);
    for (const [action, body] of [
      ['send', undefined],
      ['schedule', { scheduledAt: FUTURE }],
    ] as const) {
      const res = await call(t(), 'POST', `/batch-call/${batch._id}/${action}`, { token: a.token, body });
      expect(res.status, action).toBe(400);
      expect(res.body, action).toEqual(refused);
    }
    for (const over of [{ status: 'sending' }, { status: 'scheduled', sendMode: 'scheduled', scheduledAt: FUTURE }]) {
      const res = await create(t(), a.token, draft(over));
      expect(res.status, JSON.stringify(over)).toBe(400);
      expect(res.body).toEqual(refused);
    }
    // nothing was sent: the one batch is still a draft, no other was created
    const list = await call(t(), 'GET', '/batch-call', { token: a.token });
    expect(list.body.data.batches.map((b: Body) => b.status)).toEqual(['draft']);

    // connected, the same batch goes
    await connectTwilio(t(), a.token);
    expect((await call(t(), 'POST', `/batch-call/${batch._id}/send`, { token: a.token })).status).toBe(200);
  });

  it('keeps sends and schedules within the monthly spend limit, counting batches already committed', async () => {
    const a = await company(t());
    await call(t(), 'PUT', '/billing/limits', { token: a.token, body: { concurrencyLimit: 5, monthlySpendLimit: 0.03 } });
    const first = await withRecipients(t(), a.token, 4);
    const second = await withRecipients(t(), a.token, 4, draft({ name: 'Second' }));
    expect((await call(t(), 'POST', `/batch-call/${first._id}/send`, { token: a.token })).status).toBe(200);
    // 4 dials committed ($0.02) + 4 more ($0.02) > $0.03
    for (const [action, body] of [
      ['send', undefined],
      ['schedule', { scheduledAt: FUTURE }],
    ] as const) {
      const res = await call(t(), 'POST', `/batch-call/${second._id}/${action}`, { token: a.token, body });
      expect(res.status, action).toBe(422);
      expect(res.body).toEqual({ success: false, msg: BATCH_MESSAGES.overSpendLimit });
    }
    expect((await call(t(), 'GET', `/batch-call/${second._id}`, { token: a.token })).body.batch.status).toBe('draft');
    // a bigger list for a batch on its way is refused too, and the old list stays
    const bigger = await upload(t(), a.token, first._id, ['phone_number', ...phones(7, 100)].join('\n'));
    expect(bigger.status).toBe(422);
    expect((await call(t(), 'GET', `/batch-call/${first._id}`, { token: a.token })).body.batch.recipients).toBe(4);
    // canceling the first frees the budget
    await call(t(), 'POST', `/batch-call/${first._id}/cancel`, { token: a.token });
    expect((await call(t(), 'POST', `/batch-call/${second._id}/send`, { token: a.token })).status).toBe(200);
  });

  it('lists the company’s batches newest first, with paging and a status filter', async () => {
    const a = await company(t());
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await created(t(), a.token, draft({ name: `Batch ${i}` })))._id);
      t().clock.advance(60_000);
    }
    await call(t(), 'POST', `/batch-call/${ids[1]}/cancel`, { token: a.token });
    const all = await call(t(), 'GET', '/batch-call', { token: a.token });
    expect(all.body.data.total).toBe(3);
    expect(all.body.data.batches.map((b: { name: string }) => b.name)).toEqual(['Batch 2', 'Batch 1', 'Batch 0']);
    const page = await call(t(), 'GET', '/batch-call?page=2&limit=2', { token: a.token });
    expect(page.body.data).toMatchObject({ total: 3, batches: [{ name: 'Batch 0' }] });
    const canceled = await call(t(), 'GET', '/batch-call?status=canceled', { token: a.token });
    expect(canceled.body.data).toMatchObject({ total: 1, batches: [{ _id: ids[1], status: 'canceled' }] });
    for (const bad of ['page=0', 'limit=101', 'status=done', 'page=x']) {
      expect((await call(t(), 'GET', `/batch-call?${bad}`, { token: a.token })).status, bad).toBe(400);
    }
  });

  it('isolates companies on every route: another company’s batch answers 404 like a missing one', async () => {
    const a = await company(t());
    const b = await company(t(), '+14155550202');
    const mine = await withRecipients(t(), a.token, 2);
    const missing = '0123456789abcdef01234567';
    const attempts: [string, string, unknown?, string?][] = [
      ['GET', ''],
      ['GET', '/recipients'],
      ['POST', '/recipients', 'phone_number\n+14155550999\n', 'text/csv'],
      ['POST', '/send'],
      ['POST', '/schedule', { scheduledAt: FUTURE }],
      ['POST', '/cancel'],
    ];
    for (const [method, suffix, body, type] of attempts) {
      const headers: Record<string, string> = type ? { 'Content-Type': type } : {};
      const init = { token: b.token, body, headers };
      const theirs = await call(t(), method, `/batch-call/${mine._id}${suffix}`, init);
      const none = await call(t(), method, `/batch-call/${missing}${suffix}`, init);
      expect(theirs.status, `${method} ${suffix}`).toBe(404);
      expect(theirs.body).toEqual({ success: false, msg: BATCH_MESSAGES.notFound });
      expect(none.body).toEqual(theirs.body);
    }
    expect((await call(t(), 'GET', '/batch-call', { token: b.token })).body.data).toEqual({ batches: [], total: 0 });
    // A's batch is untouched
    const still = await call(t(), 'GET', `/batch-call/${mine._id}`, { token: a.token });
    expect(still.body.batch).toMatchObject({ status: 'draft', recipients: 2 });
    expect(still.body.recipients.map((r: { phone: string }) => r.phone)).not.toContain('+14155550999');
  });

  it('refuses every batch route without a session; the template is public', async () => {
    const id = '0123456789abcdef01234567';
    const routes: [string, string][] = [
      ['GET', '/batch-call'],
      ['POST', '/batch-call'],
      ['GET', `/batch-call/${id}`],
      ['GET', `/batch-call/${id}/recipients`],
      ['POST', `/batch-call/${id}/recipients`],
      ['POST', `/batch-call/${id}/send`],
      ['POST', `/batch-call/${id}/schedule`],
      ['POST', `/batch-call/${id}/cancel`],
    ];
    for (const [method, url] of routes) expect((await call(t(), method, url)).status, `${method} ${url}`).toBe(401);
    const res = await t().req('GET', '/api/v1/batch-call/template.csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toContain('text/csv');
    expect(res.headers.get('Content-Disposition')).toContain('batch-call-template.csv');
    expect(await res.text()).toBe(BATCH_TEMPLATE_CSV);
  });
});
