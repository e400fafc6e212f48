import { expect, it } from 'vitest';
import { EXPORT_BATCH, EXPORT_COLUMNS, EXPORT_LINK_TTL_S } from '../../server/modules/calls/call.export.js';
import { type CallRow, insertCalls } from '../../server/modules/calls/call.repo.js';
import { newId } from '../../server/platform/crypto/ids.js';
import { type SignedUp, signUp } from './auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from './helpers.js';

/** RFC 4180 rows of a CSV text (quoted cells with commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += ch;
  }
  return rows;
}

function call(user: SignedUp, i: number, over: Partial<CallRow> = {}): CallRow {
  const time = new Date(Date.UTC(2026, 10, 1) + Math.floor(i / 3) * 60_000).toISOString();
  return {
    id: newId(new Date(time)),
    company_id: user.companyId,
    agent_id: null,
    time,
    from_number: '+14155550100',
    to_number: '+14155550199',
    phone_number: '+14155550100',
    duration: i % 300,
    type: i % 2 ? 'inbound' : 'outbound',
    cost: 0.01,
    disconnection_reason: 'user_hangup',
    status: i % 5 === 0 ? 'error' : 'ended',
    call_successful: i % 2,
    ...over,
  };
}

async function download(t: TestApp, user: SignedUp, query: string) {
  const link = await t.req('POST', `/api/v1/call/export${query}`, { token: user.token });
  expect(link.status).toBe(201);
  const { url } = ((await link.json()) as { data: { url: string } }).data;
  const res = await t.req('GET', url);
  return { res, url, rows: res.status === 200 ? parseCsv(await res.text()) : [] };
}

describeEachDb('Call History export', (kind) => {
  const t = useTestApp(kind);

  it('streams every matching call across batches, newest first, with the columns, the filters and no other company', async () => {
    const user = await signUp(t());
    const other = await signUp(t());
    const n = EXPORT_BATCH * 2 + 37;
    const rows = Array.from({ length: n }, (_, i) => call(user, i));
    await insertCalls(t().deps.db.db, rows);
    await insertCalls(t().deps.db.db, [call(other, 1)]);

    const all = await download(t(), user, '');
    expect(all.res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(all.res.headers.get('content-disposition')).toMatch(/^attachment; filename="calls-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(all.rows[0]).toEqual([...EXPORT_COLUMNS]);
    const ids = all.rows.slice(1).map((r) => r[0]);
    const expected = [...rows].sort((a, b) => (a.time === b.time ? (a.id < b.id ? 1 : -1) : a.time < b.time ? 1 : -1));
    expect(ids).toEqual(expected.map((r) => r.id));

    const errors = await download(t(), user, '?status=error&type=outbound');
    const want = rows.filter((r) => r.status === 'error' && r.type === 'outbound');
    expect(errors.rows.length - 1).toBe(want.length);
    expect(errors.rows.slice(1).every((r) => r[14] === 'error' && r[7] === 'outbound')).toBe(true);
  });

  it('writes the cost breakdown, the agent and the summary, formula-safe', async () => {
    const user = await signUp(t());
    const db = t().deps.db.db;
    const row = call(user, 0, { from_number: '=1+1', call_successful: 1 });
    await insertCalls(db, [row]);
    const now = t().clock.now().toISOString();
    await db
      .insertInto('call_sessions')
      .values({
        id: row.id,
        company_id: user.companyId,
        account_id: null,
        agent_id: null,
        agent_name: '@Ava, front desk',
        agent: '{}',
        type: 'web',
        from_number: '',
        to_number: '',
        phone_number: '',
        status: 'ended',
        dynamic_variables: '{}',
        started_at: now,
        ended_at: now,
        disconnection_reason: 'user_hangup',
        error_message: null,
        transcript: '[]',
        latency: '[]',
        usage: JSON.stringify({
          stt_seconds: 60,
          llm_input_tokens: 1000,
          llm_output_tokens: 200,
          tts_characters: 900,
          telephony_minutes: 0,
          llm_model: 'gpt-4o',
        }),
        cost: 0.05,
        recording: null,
        token_hash: null,
        token_expires_at: null,
        server_id: null,
        heartbeat_at: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await db
      .insertInto('call_analyses')
      .values({
        call_id: row.id,
        company_id: user.companyId,
        status: 'done',
        attempts: 1,
        next_attempt_at: now,
        lease_until: null,
        worker: null,
        result: JSON.stringify({ summary: '=HYPERLINK("http://evil.example","click")', sentiment: 'neutral' }),
        error: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const { rows } = await download(t(), user, '');
    const cells = Object.fromEntries(EXPORT_COLUMNS.map((c, i) => [c, rows[1]?.[i]]));
    expect(cells).toMatchObject({
      'Call ID': row.id,
      Agent: "'@Ava, front desk",
      From: "'=1+1",
      Successful: 'Yes',
      Summary: `'=HYPERLINK("http://evil.example","click")`,
    });
    expect(Number(cells['STT Cost'])).toBeGreaterThan(0);
    expect(Number(cells['LLM Cost'])).toBeGreaterThan(0);
    expect(Number(cells['TTS Cost'])).toBeGreaterThan(0);
    expect(cells['Telephony Cost']).toBe('0');
  });

  it('the link works for its company only until it expires, and a forged one is refused', async () => {
    const user = await signUp(t());
    await insertCalls(t().deps.db.db, [call(user, 1)]);
    const { url } = await download(t(), user, '');
    const forged = url.replace(/token=[^&]+/, (m) => `${m.slice(0, -2)}xx`);
    expect((await t().req('GET', forged)).status).toBe(404);
    expect((await t().req('GET', '/api/v1/call/export/download')).status).toBe(404);
    expect((await t().req('POST', '/api/v1/call/export')).status).toBe(401);
    t().clock.advance((EXPORT_LINK_TTL_S + 1) * 1000);
    const expired = await t().req('GET', url);
    expect(expired.status).toBe(404);
    expect(((await expired.json()) as { msg: string }).msg).toBe('This export link has expired. Export again.');
  });
});
