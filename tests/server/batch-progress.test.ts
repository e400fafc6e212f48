import { parse } from 'csv-parse/sync';
import { expect, it } from 'vitest';
import { insertCalls } from '../../server/modules/calls/call.repo.js';
import { EXPORT_LINK_TTL_S } from '../../server/platform/http/csv-export.js';
import { RECIPIENTS_EXPORT_COLUMNS } from '../../src/api/contract/batch.js';
import { type SignedUp, signUp } from './auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from './helpers.js';
import { type Body, call, connectTwilio, insertNumber } from './seed.js';

/**
 * A batch's live progress: counts per state, the dialled recipients as rows with their call,
 * and 'Export recipients' (every recipient with its outcome, CSV, formula-safe, company-scoped).
 */

const FROM = '+14155550101';
let keys = 0;

const fromOf = new Map<string, string>();
async function company(t: TestApp, from = FROM): Promise<SignedUp> {
  const user = await signUp(t);
  await insertNumber(t, user.companyId, from);
  await connectTwilio(t, user.token);
  fromOf.set(user.companyId, from);
  return user;
}

/** A sending batch of `rows` (phone, first_name, note), its recipients moved to `states` in row order. */
async function batchIn(t: TestApp, user: SignedUp, rows: [string, string, string][], states: string[]) {
  const res = await call(t, 'POST', '/batch-call', {
    token: user.token,
    body: { name: 'Progress', fromNumber: fromOf.get(user.companyId), sendMode: 'now', status: 'sending' },
    headers: { 'Idempotency-Key': `progress-${++keys}-${Date.now()}` },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const id = (res.body.batch as Body)._id as string;
  const csv = ['phone_number,first_name,note', ...rows.map((r) => r.map((c) => `"${c.replaceAll('"', '""')}"`).join(','))].join(
    '\n',
  );
  const up = await call(t, 'POST', `/batch-call/${id}/recipients`, {
    token: user.token,
    body: csv,
    headers: { 'Content-Type': 'text/csv' },
  });
  expect(up.status, JSON.stringify(up.body)).toBe(200);
  const db = t.deps.db.db;
  const stored = await db
    .selectFrom('batch_recipients')
    .select(['upload_id', 'row_number'])
    .where('batch_id', '=', id)
    .orderBy('row_number')
    .execute();
  const callIds: (string | null)[] = [];
  for (const [i, r] of stored.entries()) {
    const state = states[i] ?? 'queued';
    const callId = state === 'queued' ? null : `call_${id}_${i}`;
    callIds.push(callId);
    await db
      .updateTable('batch_recipients')
      .set({ state, attempts: state === 'queued' ? 0 : state === 'busy' ? 2 : 1, call_id: callId })
      .where('upload_id', '=', r.upload_id)
      .where('row_number', '=', r.row_number)
      .execute();
  }
  // the dispatcher counts each recipient's first claim
  const dialled = stored.filter((_, i) => (states[i] ?? 'queued') !== 'queued').length;
  await db.updateTable('batch_calls').set({ sent_count: dialled }).where('id', '=', id).execute();
  // the finished calls have their Call History row
  const ended = callIds.flatMap((callId, i) =>
    callId && states[i] !== 'calling'
      ? [
          {
            id: callId,
            company_id: user.companyId,
            agent_id: null,
            time: '2026-11-22T09:00:00.000Z',
            from_number: FROM,
            to_number: rows[i]?.[0] ?? '',
            phone_number: FROM,
            duration: 30 + i,
            type: 'outbound',
            cost: 0.01,
            disconnection_reason: states[i] === 'busy' ? 'dial_busy' : 'user_hangup',
            status: states[i] === 'failed' ? 'error' : 'ended',
            call_successful: states[i] === 'completed' ? 1 : 0,
          },
        ]
      : [],
  );
  await insertCalls(db, ended);
  return { id, callIds };
}

const ROWS: [string, string, string][] = [
  ['+14155550201', 'Ada', 'first'],
  ['+14155550202', 'Grace', '=HYPERLINK("http://evil")'],
  ['+14155550203', 'Alan', '@SUM(A1)'],
  ['+14155550204', 'Edsger', 'said "hi", then left'],
  ['+14155550205', 'Barbara', 'x'],
  ['+14155550206', 'Donald', 'y'],
  ['+14155550207', 'Ken', 'z'],
  ['+14155550208', 'Dennis', 'w'],
];
const STATES = ['completed', 'busy', 'no_answer', 'failed', 'voicemail', 'calling', 'queued', 'completed'];

async function download(t: TestApp, user: SignedUp, id: string) {
  const link = await call(t, 'POST', `/batch-call/${id}/recipients/export`, { token: user.token });
  expect(link.status, JSON.stringify(link.body)).toBe(201);
  const url = (link.body.data as { url: string }).url;
  return { url, res: await t.req('GET', url) };
}

describeEachDb('batch call progress and recipients export', (kind) => {
  const t = useTestApp(kind);

  it('answers counts per state, the finished share and the dialled recipients with their calls', async () => {
    const user = await company(t());
    const { id, callIds } = await batchIn(t(), user, ROWS, STATES);
    const res = await call(t(), 'GET', `/batch-call/${id}`, { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body.progress).toEqual({
      counts: { queued: 1, calling: 1, completed: 2, busy: 1, no_answer: 1, failed: 1, voicemail: 1 },
      total: 8,
      finished: 6,
    });
    const calls = res.body.calls as { rows: Body[]; total: number };
    // the queued recipient has not been dialled: not a call
    expect(calls.total).toBe(7);
    expect(calls.rows.map((r) => r.row)).toEqual([2, 3, 4, 5, 6, 7, 9]);
    expect(calls.rows[0]).toEqual({
      row: 2,
      phone: '+14155550201',
      state: 'completed',
      attempts: 1,
      callId: callIds[0],
      callStatus: 'ended',
      duration: 30,
      reason: null,
    });
    expect(calls.rows[1]).toMatchObject({ state: 'busy', attempts: 2, callStatus: 'ended', duration: 31 });
    expect(calls.rows[3]).toMatchObject({ state: 'failed', callStatus: 'error' });
    // a call still in progress has no Call History row yet: its id, no status or duration
    expect(calls.rows[5]).toEqual({
      row: 7,
      phone: '+14155550206',
      state: 'calling',
      attempts: 1,
      callId: callIds[5],
      callStatus: null,
      duration: null,
      reason: null,
    });
  });

  it('caps the rows at the first 100 dialled recipients and says how many there are', async () => {
    const user = await company(t());
    const rows = Array.from({ length: 130 }, (_, i): [string, string, string] => [
      `+1415555${String(1000 + i).padStart(4, '0')}`,
      `n${i}`,
      '',
    ]);
    const { id } = await batchIn(t(), user, rows, Array(120).fill('completed'));
    const res = await call(t(), 'GET', `/batch-call/${id}`, { token: user.token });
    const calls = res.body.calls as { rows: Body[]; total: number };
    expect(calls.total).toBe(120);
    expect(calls.rows).toHaveLength(100);
    expect(res.body.progress).toMatchObject({ total: 130, finished: 120 });
    expect((res.body.progress as { counts: Body }).counts).toMatchObject({ completed: 120, queued: 10 });
  });

  it('a draft with no list has zero counts and no calls', async () => {
    const user = await company(t());
    const res = await call(t(), 'POST', '/batch-call', {
      token: user.token,
      body: { name: 'Empty', fromNumber: FROM, sendMode: 'now' },
      headers: { 'Idempotency-Key': `empty-${Date.now()}` },
    });
    const id = (res.body.batch as Body)._id as string;
    const detail = await call(t(), 'GET', `/batch-call/${id}`, { token: user.token });
    expect(detail.body.progress).toEqual({
      counts: { queued: 0, calling: 0, completed: 0, busy: 0, no_answer: 0, failed: 0, voicemail: 0 },
      total: 0,
      finished: 0,
    });
    expect(detail.body.calls).toEqual({ rows: [], total: 0 });
    const csv = await t().req('GET', `/api/v1/batch-call/${id}/recipients.csv`, { token: user.token });
    expect(csv.status).toBe(200);
    expect(await csv.text()).toBe(`${[...RECIPIENTS_EXPORT_COLUMNS.before, ...RECIPIENTS_EXPORT_COLUMNS.after].join(',')}\r\n`);
  });

  it('exports every recipient with its outcome and variables, formula-safe, through a signed link', async () => {
    const user = await company(t());
    const { id, callIds } = await batchIn(t(), user, ROWS, STATES);
    const { res } = await download(t(), user, id);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="batch-call-${id}-recipients.csv"`);
    const text = await res.text();
    const rows = parse(text) as string[][];
    expect(rows[0]).toEqual([
      'Row',
      'Phone Number',
      'first_name',
      'note',
      'State',
      'Attempts',
      'Call ID',
      'Call Status',
      'Duration',
      'Disconnection Reason',
      'Failure Reason',
    ]);
    expect(rows).toHaveLength(1 + ROWS.length);
    // a '+' phone and formula cells start with an apostrophe; quotes and commas are quoted
    expect(rows[1]).toEqual([
      '2',
      "'+14155550201",
      'Ada',
      'first',
      'Completed',
      '1',
      callIds[0],
      'ended',
      '30',
      'user_hangup',
      '',
    ]);
    expect(rows[2]?.slice(3, 5)).toEqual([`'=HYPERLINK("http://evil")`, 'Busy']);
    expect(rows[2]?.[9]).toBe('dial_busy');
    expect(rows[3]?.slice(3, 5)).toEqual(["'@SUM(A1)", 'No answer']);
    expect(rows[4]?.[3]).toBe('said "hi", then left');
    expect(text).toContain('"said ""hi"", then left"');
    expect(rows[6]?.slice(4, 9)).toEqual(['Calling', '1', callIds[5], '', '']);
    expect(rows[7]?.slice(4, 9)).toEqual(['Queued', '0', '', '', '']);
    for (const row of rows.slice(1)) for (const cell of row) expect(cell).not.toMatch(/^[=+\-@]/);

    // the same CSV with the bearer token
    const bearer = await t().req('GET', `/api/v1/batch-call/${id}/recipients.csv`, { token: user.token });
    expect(await bearer.text()).toBe(text);
  });

  it('streams a long list in batches, in row order', async () => {
    const user = await company(t());
    const n = 2345;
    const rows = Array.from({ length: n }, (_, i): [string, string, string] => [
      `+1415${String(5000000 + i).padStart(7, '0')}`,
      `n${i}`,
      '',
    ]);
    const { id } = await batchIn(t(), user, rows, []);
    const { res } = await download(t(), user, id);
    const out = parse(await res.text()) as string[][];
    expect(out).toHaveLength(n + 1);
    expect(out.slice(1).map((r) => Number(r[0]))).toEqual(Array.from({ length: n }, (_, i) => i + 2));
  });

  it('scopes progress and export to the company; a link opens one batch, for a while, and nothing without a session', async () => {
    const user = await company(t());
    const other = await company(t(), '+14155550102');
    const { id } = await batchIn(t(), user, ROWS.slice(0, 2), ['completed']);
    const { id: otherId } = await batchIn(t(), other, ROWS.slice(0, 2), ['completed']);

    expect((await call(t(), 'GET', `/batch-call/${id}`, { token: other.token })).status).toBe(404);
    expect((await call(t(), 'POST', `/batch-call/${id}/recipients/export`, { token: other.token })).status).toBe(404);
    const foreign = await t().req('GET', `/api/v1/batch-call/${id}/recipients.csv`, { token: other.token });
    expect(foreign.status).toBe(404);
    expect(await foreign.text()).not.toContain('+14155550201');
    expect((await t().req('GET', `/api/v1/batch-call/${id}/recipients.csv`)).status).toBe(401);

    // a link signed for one batch opens neither another batch nor another company's
    const { url } = await download(t(), user, id);
    const token = new URL(url, 'http://x').searchParams.get('token') ?? '';
    const swapped = await t().req('GET', `/api/v1/batch-call/${otherId}/recipients.csv?token=${encodeURIComponent(token)}`);
    expect(swapped.status).toBe(404);
    expect((await t().req('GET', `/api/v1/batch-call/${id}/recipients.csv?token=${token}x`)).status).toBe(404);

    t().clock.advance((EXPORT_LINK_TTL_S + 1) * 1000);
    const expired = await t().req('GET', url);
    expect(expired.status).toBe(404);
  });
});
