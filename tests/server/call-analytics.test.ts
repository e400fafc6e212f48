import { expect, it } from 'vitest';
import { type CallRow, insertCalls, recountCalls } from '../../server/modules/calls/call.repo.js';
import { setCallSuccessful } from '../../server/modules/calls/call-analytics.repo.js';
import { newId } from '../../server/platform/crypto/ids.js';
import type { CallAnalytics } from '../../src/api/contract/call-analytics.js';
import { type SignedUp, signUp } from './auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from './helpers.js';

const STATUSES = ['ended', 'completed', 'failed', 'no-answer'] as const;
const LINES = ['+14155550100', '+14155550101'];
const CALLERS = ['+12125550111', '+13105550122', '+14155550133'];

/** Call `i` of `user`: spread over 5 days of November 2026, two lines, two agents, four statuses. */
function call(user: SignedUp, i: number, over: Partial<CallRow> = {}): CallRow {
  const time = new Date(Date.UTC(2026, 10, 1 + (i % 5), (i * 7) % 24, i % 60)).toISOString();
  const status = STATUSES[i % 4]!;
  const connected = status === 'ended' || status === 'completed';
  const type = i % 3 === 0 ? 'outbound' : 'inbound';
  const line = LINES[i % 2]!;
  const other = CALLERS[i % 3]!;
  return {
    id: newId(new Date(time)),
    company_id: user.companyId,
    agent_id: i % 7 === 0 ? null : `agent-${i % 2}`,
    time,
    from_number: type === 'inbound' ? other : line,
    to_number: type === 'inbound' ? line : other,
    phone_number: line,
    duration: connected ? 30 + ((i * 37) % 400) : 0,
    type,
    cost: connected ? Math.round((0.02 + ((i * 13) % 50) / 1000) * 10_000) / 10_000 : 0,
    disconnection_reason: connected ? 'user_hangup' : 'dial_failed',
    status,
    call_successful: status === 'completed' ? 1 : 0,
    latency_ms: connected ? 300 + ((i * 53) % 900) : null,
    ...over,
  };
}

async function analytics(t: TestApp, user: SignedUp, query = ''): Promise<CallAnalytics> {
  const res = await t.req('GET', `/api/v1/call/analytics${query}`, { token: user.token });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: CallAnalytics }).data;
}

/** The exact percentile (nearest rank) of values, to compare with the histogram's interpolation. */
const exact = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil(p * values.length) - 1)]!;

/** What the overview should say of `rows` (computed here from the rows themselves). */
function expected(rows: CallRow[]) {
  const calls = rows.length;
  const successful = rows.filter((r) => r.call_successful === 1).length;
  const duration = rows.reduce((s, r) => s + r.duration, 0);
  const cost = rows.reduce((s, r) => s + r.cost, 0);
  return {
    calls,
    successful,
    successRate: calls ? successful / calls : null,
    avgDuration: calls ? duration / calls : null,
    cost,
  };
}

function expectFigures(got: CallAnalytics['totals'], rows: CallRow[]) {
  const want = expected(rows);
  expect(got.calls).toBe(want.calls);
  expect(got.successful).toBe(want.successful);
  if (want.successRate === null) expect(got.successRate).toBeNull();
  else expect(got.successRate).toBeCloseTo(want.successRate, 10);
  if (want.avgDuration === null) expect(got.avgDuration).toBeNull();
  else expect(got.avgDuration).toBeCloseTo(want.avgDuration, 8);
  expect(got.cost).toBeCloseTo(want.cost, 4);
}

describeEachDb('Call analytics', (kind) => {
  const t = useTestApp(kind);

  it('adds up calls, success, duration, cost and statuses per day and in total, for each filter, the company only', async () => {
    const user = await signUp(t());
    const other = await signUp(t());
    const rows = Array.from({ length: 120 }, (_, i) => call(user, i));
    await insertCalls(t().deps.db.db, rows);
    await insertCalls(t().deps.db.db, [call(other, 1), call(other, 2)]);

    const all = await analytics(t(), user);
    expect(all.days.map((d) => d.day)).toEqual(['2026-11-01', '2026-11-02', '2026-11-03', '2026-11-04', '2026-11-05']);
    expectFigures(all.totals, rows);
    for (const day of all.days) {
      const ofDay = rows.filter((r) => r.time.startsWith(day.day));
      expectFigures(day, ofDay);
      for (const status of STATUSES) expect(day.statuses[status] ?? 0).toBe(ofDay.filter((r) => r.status === status).length);
    }

    const cases: [string, (r: CallRow) => boolean][] = [
      ['?status=completed', (r) => r.status === 'completed'],
      ['?type=outbound', (r) => r.type === 'outbound'],
      ['?phoneNumber=%2B1%20415%20555%200101', (r) => r.phone_number === '+14155550101'],
      ['?agentId=agent-1', (r) => r.agent_id === 'agent-1'],
      ['?dateFrom=2026-11-02&dateTo=2026-11-03', (r) => r.time >= '2026-11-02' && r.time < '2026-11-04'],
      [
        '?status=ended&type=inbound&phoneNumber=%2B14155550100',
        (r) => r.status === 'ended' && r.type === 'inbound' && r.phone_number === '+14155550100',
      ],
      // the search narrows the table only: the overview keeps the filters and dates (bounded work, see the contract)
      ['?search=212', () => true],
      ['?search=0133&status=ended', (r) => r.status === 'ended'],
      ['?search=415&agentId=agent-0', (r) => r.agent_id === 'agent-0'],
    ];
    for (const [query, keep] of cases) {
      const got = await analytics(t(), user, query);
      expectFigures(got.totals, rows.filter(keep));
      expect(
        got.days.reduce((s, d) => s + d.calls, 0),
        query,
      ).toBe(rows.filter(keep).length);
    }

    // the date range lists every day of the range, with zeros for days without calls
    const range = await analytics(t(), user, '?dateFrom=2026-10-30&dateTo=2026-11-02');
    expect(range.days.map((d) => [d.day, d.calls])).toEqual([
      ['2026-10-30', 0],
      ['2026-10-31', 0],
      ['2026-11-01', rows.filter((r) => r.time.startsWith('2026-11-01')).length],
      ['2026-11-02', rows.filter((r) => r.time.startsWith('2026-11-02')).length],
    ]);
    expect(range.days[0]).toMatchObject({ successRate: null, avgDuration: null, latencyP50: null, statuses: {} });

    // the other company sees its own two calls only
    expect((await analytics(t(), other)).totals.calls).toBe(2);

    // the admin recount (admin recount-calls) rebuilds the rollups from the calls: the same overview
    const db = t().deps.db.db;
    await db.deleteFrom('call_days').where('company_id', '=', user.companyId).execute();
    await db.deleteFrom('call_latency_days').where('company_id', '=', user.companyId).execute();
    expect((await analytics(t(), user)).totals.calls).toBe(0);
    await recountCalls(db, user.companyId);
    expect(await analytics(t(), user)).toEqual(all);
    expect((await analytics(t(), other)).totals.calls).toBe(2);
  });

  it('reads latency p50 and p95 from the histogram, within a bucket of the exact value; a search leaves the overview as it is', async () => {
    const user = await signUp(t());
    const rows = Array.from({ length: 200 }, (_, i) => call(user, i));
    await insertCalls(t().deps.db.db, rows);
    const measured = (keep: (r: CallRow) => boolean) =>
      rows.filter((r) => keep(r) && r.latency_ms != null).map((r) => r.latency_ms as number);

    const all = await analytics(t(), user);
    // 300..1199 ms: buckets of 50 ms below 1 s, 100 ms above
    const width = (ms: number) => (ms < 1000 ? 50 : 100);
    const p50 = exact(
      measured(() => true),
      0.5,
    );
    const p95 = exact(
      measured(() => true),
      0.95,
    );
    expect(Math.abs((all.totals.latencyP50 as number) - p50)).toBeLessThanOrEqual(width(p50));
    expect(Math.abs((all.totals.latencyP95 as number) - p95)).toBeLessThanOrEqual(width(p95));
    for (const day of all.days) {
      const values = measured((r) => r.time.startsWith(day.day));
      expect(Math.abs((day.latencyP50 as number) - exact(values, 0.5))).toBeLessThanOrEqual(width(exact(values, 0.5)));
      expect(Math.abs((day.latencyP95 as number) - exact(values, 0.95))).toBeLessThanOrEqual(width(exact(values, 0.95)));
    }
    // unconnected calls have no latency
    expect((await analytics(t(), user, '?status=failed')).totals.latencyP50).toBeNull();
    // a search does not change the overview (it narrows the table only)
    expect(await analytics(t(), user, '?search=212')).toEqual(all);
    // per agent: no latency (it is kept per line)
    expect((await analytics(t(), user, '?agentId=agent-0')).totals.latencyP95).toBeNull();
  });

  it('p50 and p95 of a small day fall in the buckets of the exact values', async () => {
    const user = await signUp(t());
    const latencies = [100, 105, 110, 900, 2500];
    await insertCalls(
      t().deps.db.db,
      latencies.map((ms, i) => call(user, i * 5, { status: 'ended', latency_ms: ms })),
    );
    const { totals } = await analytics(t(), user);
    expect(totals.latencyP50).toBeGreaterThanOrEqual(100);
    expect(totals.latencyP50).toBeLessThan(150);
    expect(totals.latencyP95).toBeGreaterThanOrEqual(2500);
    expect(totals.latencyP95).toBeLessThan(2750);
  });

  it("the post-call analysis's verdict moves a call between successful and not", async () => {
    const user = await signUp(t());
    const row = call(user, 1, { status: 'ended', call_successful: 0, agent_id: 'agent-9' });
    await insertCalls(t().deps.db.db, [row]);
    expect((await analytics(t(), user)).totals.successful).toBe(0);
    await t()
      .deps.db.db.transaction()
      .execute((trx) => setCallSuccessful(trx, user.companyId, row.id, true));
    expect((await analytics(t(), user)).totals.successRate).toBe(1);
    expect((await analytics(t(), user, '?agentId=agent-9&status=ended')).totals.successful).toBe(1);
    // the same verdict twice counts once
    await t()
      .deps.db.db.transaction()
      .execute((trx) => setCallSuccessful(trx, user.companyId, row.id, true));
    expect((await analytics(t(), user)).totals.successful).toBe(1);
    await t()
      .deps.db.db.transaction()
      .execute((trx) => setCallSuccessful(trx, user.companyId, row.id, false));
    expect((await analytics(t(), user)).totals.successful).toBe(0);
  });

  it('validates the query with the list contract and needs a session', async () => {
    const user = await signUp(t());
    const bad = await t().req('GET', '/api/v1/call/analytics?status=lost', { token: user.token });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { msg: string }).msg).toContain("'status'");
    const order = await t().req('GET', '/api/v1/call/analytics?dateFrom=2026-11-05&dateTo=2026-11-01', { token: user.token });
    expect(order.status).toBe(400);
    expect((await t().req('GET', '/api/v1/call/analytics')).status).toBe(401);
    const empty = await analytics(t(), user);
    expect(empty).toEqual({
      days: [],
      totals: { calls: 0, successful: 0, successRate: null, avgDuration: null, cost: 0, latencyP50: null, latencyP95: null },
    });
  });
});
