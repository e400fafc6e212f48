/**
 * Call analytics benchmark: 1,000,000 calls of one company over 365 days (seeded like `npm run
 * seed`, timed), then GET /call/analytics through app.request (routing, auth, validation, the rollup
 * queries, the latency percentiles in SQL, JSON). Each measure: 20 warm-up requests, then median and p95 over
 * 200 requests; the 90-day window slides back a day per request (over a week) so the answers differ. Budget
 * (the issue): the overview of 90 days answers in p95 <= 50 ms. Every answer's calls are checked against
 * the list's total for the same filters.
 *
 *   npx tsx bench/call-analytics.ts                  SQLite; writes the `callAnalytics` section of bench/results.json
 *   BENCH_DATABASE_URL=postgres://... npx tsx bench/call-analytics.ts    PostgreSQL (a fresh schema); writes `callAnalyticsPg`
 *   CALLS=100000 npx tsx bench/call-analytics.ts     a smaller run (not written)
 */
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { seededRng } from '../server/modules/company/call-generator.js';
import { addPoolNumbers } from '../server/modules/company/workspace.js';
import { callListParams } from '../src/api/contract/call.js';
import { type CallAnalytics, type CallAnalyticsParams, callAnalyticsParams } from '../src/api/contract/call-analytics.js';
import { benchApp, type Measure, QUICK, seedCallsTimed, timeRequests } from './lib.js';

export const CALLS = Number(process.env.CALLS ?? (QUICK ? 100_000 : 1_000_000));
export const REQUESTS = 200;
export const BUDGET_P95_MS = 50;
const DAYS = 365;
const WINDOW = 90;

export interface CallAnalyticsBench {
  calls: number;
  database: 'sqlite' | 'postgres';
  seed_ms: number;
  seed_calls_per_s: number;
  budget_p95_ms: number;
  within_budget: boolean;
  measures: Measure[];
  /** reported, not held to the budget */
  unbudgeted: Measure[];
  load_average: number[];
}

const dayOf = (t: number) => new Date(t).toISOString().slice(0, 10);

export async function run(postgresUrl = process.env.BENCH_DATABASE_URL): Promise<CallAnalyticsBench> {
  const { app, database, headers, accountId, companyId, close } = await benchApp('analytics', { postgresUrl });
  try {
    const now = new Date();
    const rng = seededRng(20_261_125);
    const lines = await addPoolNumbers(database.db, { count: 5, now, rng, owner: { companyId, accountId } });
    const seedMs = await seedCallsTimed(database.db, { companyId, count: CALLS, days: DAYS, now, rng });
    const agent = await database.db
      .selectFrom('agents')
      .select('id')
      .where('company_id', '=', companyId)
      .executeTakeFirstOrThrow();

    /** the days of request i: `days` days ending i % 7 days before today (or all days) */
    const range = (i: number, days: number | null) => {
      if (days === null) return {};
      const end = now.getTime() - (i % 7) * 86_400_000;
      return { dateFrom: dayOf(end - (days - 1) * 86_400_000), dateTo: dayOf(end) };
    };
    const measure = async (label: string, base: CallAnalyticsParams, days: number | null): Promise<Measure> => {
      const get = async (i: number) => {
        const params: CallAnalyticsParams = { ...base, ...range(i, days) };
        const qs = new URLSearchParams(callAnalyticsParams(params));
        const res = await app.request(`/api/v1/call/analytics?${qs}`, { headers });
        const body = (await res.json()) as { data: CallAnalytics };
        if (res.status !== 200) throw new Error(`${label}: ${res.status} ${JSON.stringify(body)}`);
        return body.data;
      };
      const first = await get(0);
      if (!base.agentId) {
        // the overview counts what the list counts
        const qs = new URLSearchParams(callListParams({ ...base, ...range(0, days), limit: 1 }));
        const list = (await (await app.request(`/api/v1/call/?${qs}`, { headers })).json()) as {
          data: { pagination: { totalCalls: number } };
        };
        if (list.data.pagination.totalCalls !== first.totals.calls)
          throw new Error(`${label}: ${first.totals.calls} calls, the list says ${list.data.pagination.totalCalls}`);
      }
      return { label, requests: REQUESTS, ...(await timeRequests(get, REQUESTS)), total: first.totals.calls };
    };

    const line = lines[1]?.phone ?? '';
    const measures = [
      await measure(`overview, last ${WINDOW} days`, {}, WINDOW),
      await measure(`overview, last ${WINDOW} days, status=completed`, { status: 'completed' }, WINDOW),
      await measure(
        `overview, last ${WINDOW} days, line ${line} + type=outbound`,
        { phoneNumber: line, type: 'outbound' },
        WINDOW,
      ),
      await measure(`one agent (the Agents page's Analytics), last ${WINDOW} days`, { agentId: agent.id }, WINDOW),
    ];
    const unbudgeted = [await measure(`overview, all ${DAYS} days`, {}, null)];
    return {
      calls: CALLS,
      database: postgresUrl ? 'postgres' : 'sqlite',
      seed_ms: Math.round(seedMs),
      seed_calls_per_s: Math.round(CALLS / (seedMs / 1000)),
      budget_p95_ms: BUDGET_P95_MS,
      within_budget: measures.every((m) => m.p95_ms <= BUDGET_P95_MS),
      measures,
      unbudgeted,
      load_average: os.loadavg().map((l) => Math.round(l * 100) / 100),
    };
  } finally {
    await close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await run();
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(
    `Call analytics: ${result.calls.toLocaleString('en-US')} calls of one company (${result.database}), seeded in ${(result.seed_ms / 1000).toFixed(1)} s`,
  );
  for (const m of [...result.measures, ...result.unbudgeted])
    out(`  ${m.label.padEnd(80)} median ${m.median_ms.toFixed(2)} ms  p95 ${m.p95_ms.toFixed(2)} ms  (calls ${m.total})`);
  out(`  budget p95 <= ${result.budget_p95_ms} ms: ${result.within_budget ? 'met' : 'MISSED'}`);
  if (result.calls === 1_000_000) {
    const { writeSection } = await import('./results.mjs');
    writeSection(result.database === 'postgres' ? 'callAnalyticsPg' : 'callAnalytics', result);
  }
}
