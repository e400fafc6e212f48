/**
 * Call history API benchmark: 1,000,000 calls of one company on SQLite, seeded by the same
 * code as `npm run seed` (timed), then GET /call/ through app.request (routing, auth, validation,
 * queries, count, JSON). Each measure: 20 warm-up requests, then median and p95 over 200 requests,
 * every answer carrying its total (`pagination.totalCalls`). Budget: p95 under 20 ms for the first
 * page, deep pages, status + date range, sorted by duration and the caller-number search (the start of
 * the number: one caller, and an area code + exchange; its end: the last four digits). Further figures are
 * reported outside the budget.
 *
 *   npx tsx bench/calls-api.ts                 prints the table and writes the `callsApi` section of bench/results.json
 *   CALLS=100000 npx tsx bench/calls-api.ts    a smaller run (not written)
 *   npx tsx bench/calls-api.ts --quick         100,000 calls, written to bench/results.quick.json
 */
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { AREA_CODES, fictionalNumber, seededRng } from '../server/modules/company/call-generator.js';
import { addPoolNumbers } from '../server/modules/company/workspace.js';
import { type CallListParams, callListParams } from '../src/api/contract/call.js';
import { benchApp, type Measure, QUICK, seedCallsTimed, timeRequests } from './lib.js';

export const CALLS = Number(process.env.CALLS ?? (QUICK ? 100_000 : 1_000_000));
export const REQUESTS = 200;
export const BUDGET_P95_MS = 20;
const LIMIT = 10;
const DAYS = 365;

export type { Measure };
export interface CallsApiBench {
  calls: number;
  database: 'sqlite';
  seed_ms: number;
  seed_calls_per_s: number;
  budget_p95_ms: number;
  within_budget: boolean;
  measures: Measure[];
  /** reported, not held to the budget */
  unbudgeted: Measure[];
  load_average: number[];
}

const day = (d: Date) => d.toISOString().slice(0, 10);

export async function run(): Promise<CallsApiBench> {
  const { app, database, headers, accountId, companyId, close } = await benchApp('calls');
  try {
    // seed exactly as `npm run seed -- --calls 1000000 --numbers 5` does
    const now = new Date();
    const rng = seededRng(20_261_122);
    const lines = await addPoolNumbers(database.db, { count: 5, now, rng, owner: { companyId, accountId } });
    const seedMs = await seedCallsTimed(database.db, {
      companyId,
      count: CALLS,
      days: DAYS,
      now,
      rng,
    });

    /** `pages(i, last)`: the page of request i, given the last page of the list */
    const measure = async (label: string, base: CallListParams, pages: (i: number, last: number) => number): Promise<Measure> => {
      const get = async (page: number) => {
        const qs = new URLSearchParams(callListParams({ ...base, page, limit: LIMIT }));
        const res = await app.request(`/api/v1/call/?${qs}`, { headers });
        const body = (await res.json()) as { data: { calls: unknown[]; pagination: { totalCalls: number } } };
        if (res.status !== 200) throw new Error(`${label}: ${res.status} ${JSON.stringify(body)}`);
        if (body.data.calls.length === 0 && page * LIMIT < body.data.pagination.totalCalls)
          throw new Error(`${label}: empty page ${page}`);
        return body.data.pagination.totalCalls;
      };
      const total = await get(0);
      const last = Math.max(0, Math.ceil(total / LIMIT) - 1);
      return { label, requests: REQUESTS, ...(await timeRequests((i) => get(pages(i, last)), REQUESTS)), total };
    };

    /** pages 1..last, spread (a deep page every time but rarely) */
    const deep = (i: number, last: number) => 1 + ((i * 7919) % Math.max(1, last));
    // a 30-day window in the middle of the year
    const windowEnd = new Date(now.getTime() - 150 * 86_400_000);
    const range = { dateFrom: day(new Date(windowEnd.getTime() - 29 * 86_400_000)), dateTo: day(windowEnd) };
    const completedInRange = { status: 'completed' as const, ...range };

    // a frequent caller (the generator skews callers, so the first of the pool calls most)
    const caller = fictionalNumber(AREA_CODES[0]!, 0);
    const measures = [
      await measure('first page (newest first)', {}, () => 0),
      await measure('deep pages (spread over all pages)', {}, deep),
      await measure(`status=completed + ${range.dateFrom}..${range.dateTo}, all its pages`, completedInRange, deep),
      await measure('sorted by duration (longest first), pages 0..9', { sort: [['duration', -1]] }, (i) => i % 10),
      await measure(`search "${caller}" (one caller), all its pages`, { search: caller }, (i, last) => i % (last + 1)),
      await measure('search "415 555" (area code + exchange), pages 0..9', { search: '415 555' }, (i) => i % 10),
      await measure(
        `search "${caller.slice(-4)}" (the last four digits of a number), pages 0..9`,
        { search: caller.slice(-4) },
        (i) => i % 10,
      ),
    ];
    const unbudgeted = [
      await measure('sorted by duration, deep pages (OFFSET walk)', { sort: [['duration', -1]] }, deep),
      await measure('status=failed sorted by duration, first page', { status: 'failed', sort: [['duration', -1]] }, () => 0),
      await measure(
        'status=completed sorted by cost ascending, pages 0..9',
        { status: 'completed', sort: [['cost', 1]] },
        (i) => i % 10,
      ),
      await measure(
        `phone number ${lines[1]?.phone} + type=outbound, pages 0..9`,
        { phoneNumber: lines[1]?.phone ?? '', type: 'outbound' },
        (i) => i % 10,
      ),
      await measure(
        `search "${lines[0]?.phone}" (a company line: every outbound call of it), pages 0..9`,
        { search: lines[0]?.phone ?? '' },
        (i) => i % 10,
      ),
      await measure(
        'search "415 555" sorted by duration, pages 0..9',
        { search: '415 555', sort: [['duration', -1]] },
        (i) => i % 10,
      ),
      await measure(
        `search "${caller.slice(-7, -4)}-${caller.slice(-4)}" (the local number) sorted by caller number, pages 0..9`,
        { search: `${caller.slice(-7, -4)}-${caller.slice(-4)}`, sort: [['from', 1]] },
        (i) => i % 10,
      ),
    ];
    return {
      calls: CALLS,
      database: 'sqlite',
      seed_ms: Math.round(seedMs),
      seed_calls_per_s: Math.round(CALLS / (seedMs / 1000)),
      budget_p95_ms: BUDGET_P95_MS,
      within_budget: measures.every((m) => m.p95_ms < BUDGET_P95_MS),
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
    `Call history API: ${result.calls.toLocaleString('en-US')} calls of one company (SQLite), seeded in ${(result.seed_ms / 1000).toFixed(1)} s (${result.seed_calls_per_s.toLocaleString('en-US')} calls/s)`,
  );
  for (const m of [...result.measures, ...result.unbudgeted]) {
    out(`  ${m.label.padEnd(72)} median ${m.median_ms.toFixed(2)} ms  p95 ${m.p95_ms.toFixed(2)} ms  (total ${m.total})`);
  }
  out(
    `  budget p95 < ${result.budget_p95_ms} ms (first ${result.measures.length}): ${result.within_budget ? 'met' : 'EXCEEDED'}; load average ${result.load_average.join(' ')}`,
  );
  if (result.calls === 1_000_000 || QUICK) {
    const { writeSection } = await import('./results.mjs');
    writeSection('callsApi', result);
  }
  out(JSON.stringify(result));
}
