import {
  type CallAnalytics,
  type CallAnalyticsDay,
  type CallAnalyticsQuery,
  callFigures,
  LATENCY_BUCKETS,
  latencyBucket,
} from '@contract/call-analytics.js';
import { CALL_STATUSES, type CallStatus } from '@contract/call-values.js';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { CallDaysTable, CallLatencyDaysTable, DB } from '../../platform/db/schema.js';
import { ANY, type CallRow } from './call-row.js';

/**
 * The call analytics, computed in the database from the daily rollups of migration 016, which
 * insertCalls keeps with the calls (writeCallDays, in the same transaction):
 * - `call_days`: calls, successful calls, duration and cost per day for every combination of status, type,
 *   phone_number and agent_id (each a value or '*'), so any filter of the list is one row per day;
 * - `call_latency_days`: a latency histogram per day for every combination of status, type and phone_number.
 * A search (the start or end of the caller's number) cannot be rolled up, and aggregating every call it
 * matches would be unbounded work on the request's thread (SQLite runs on the event loop): the overview
 * takes the list's filters and dates, not its search (src/api/contract/call-analytics.ts).
 */

const dayOf = (iso: string) => iso.slice(0, 10);
const NO_AGENT = '';

/** 16 rows per call in call_days, 8 per call with a latency in call_latency_days (a value or ANY each). */
export function rollupsOf(rows: readonly CallRow[]): { days: CallDaysTable[]; latency: CallLatencyDaysTable[] } {
  const days = new Map<string, CallDaysTable>();
  const latency = new Map<string, CallLatencyDaysTable>();
  for (const r of rows) {
    const day = dayOf(r.time);
    const bucket = r.latency_ms == null ? null : latencyBucket(r.latency_ms);
    for (const status of [r.status, ANY])
      for (const type of [r.type, ANY])
        for (const phone_number of [r.phone_number, ANY]) {
          for (const agent_id of [r.agent_id ?? NO_AGENT, ANY]) {
            const key = `${r.company_id}|${day}|${status}|${type}|${phone_number}|${agent_id}`;
            let hit = days.get(key);
            if (!hit) {
              hit = {
                company_id: r.company_id,
                day,
                status,
                type,
                phone_number,
                agent_id,
                calls: 0,
                successful: 0,
                duration: 0,
                cost: 0,
              };
              days.set(key, hit);
            }
            hit.calls += 1;
            hit.successful += Number(r.call_successful) === 1 ? 1 : 0;
            hit.duration += Number(r.duration);
            hit.cost += Number(r.cost);
          }
          if (bucket === null) continue;
          const key = `${r.company_id}|${day}|${status}|${type}|${phone_number}|${bucket}`;
          const hit = latency.get(key);
          if (hit) hit.calls += 1;
          else latency.set(key, { company_id: r.company_id, day, status, type, phone_number, bucket, calls: 1 });
        }
  }
  return { days: [...days.values()], latency: [...latency.values()] };
}

/** Adds calls to the rollups (called by insertCalls in its transaction). */
export async function writeCallDays(db: Kysely<DB>, rows: readonly CallRow[]): Promise<void> {
  const { days, latency } = rollupsOf(rows);
  for (let i = 0; i < days.length; i += 1000)
    await db
      .insertInto('call_days')
      .values(days.slice(i, i + 1000))
      .onConflict((oc) =>
        oc.columns(['company_id', 'type', 'phone_number', 'agent_id', 'status', 'day']).doUpdateSet({
          calls: sql<number>`call_days.calls + excluded.calls`,
          successful: sql<number>`call_days.successful + excluded.successful`,
          duration: sql<number>`call_days.duration + excluded.duration`,
          cost: sql<number>`call_days.cost + excluded.cost`,
        }),
      )
      .execute();
  for (let i = 0; i < latency.length; i += 2000)
    await db
      .insertInto('call_latency_days')
      .values(latency.slice(i, i + 2000))
      .onConflict((oc) =>
        oc
          .columns(['company_id', 'status', 'type', 'phone_number', 'day', 'bucket'])
          .doUpdateSet({ calls: sql<number>`call_latency_days.calls + excluded.calls` }),
      )
      .execute();
}

/**
 * Marks a call (not) successful (the post-call analysis decides) and moves it between the successful and
 * the other calls of its day in `call_days`. Run it in a transaction.
 */
export async function setCallSuccessful(db: Kysely<DB>, companyId: string, callId: string, successful: boolean): Promise<void> {
  const call = await db
    .selectFrom('calls')
    .select(['time', 'status', 'type', 'phone_number', 'agent_id', 'call_successful'])
    .where('company_id', '=', companyId)
    .where('id', '=', callId)
    .executeTakeFirst();
  if (!call || (Number(call.call_successful) === 1) === successful) return;
  await db
    .updateTable('calls')
    .set({ call_successful: successful ? 1 : 0 })
    .where('company_id', '=', companyId)
    .where('id', '=', callId)
    .execute();
  await db
    .updateTable('call_days')
    .set({ successful: sql<number>`successful + ${successful ? 1 : -1}` })
    .where('company_id', '=', companyId)
    .where('day', '=', dayOf(call.time))
    .where('status', 'in', [call.status, ANY])
    .where('type', 'in', [call.type, ANY])
    .where('phone_number', 'in', [call.phone_number, ANY])
    .where('agent_id', 'in', [call.agent_id ?? NO_AGENT, ANY])
    .execute();
}

// ---------------------------------------------------------------------------------------------
// Reading

/** The width of the bucket starting at `bucket`, in SQL. */
function widthSql(bucket: RawBuilder<unknown>): RawBuilder<number> {
  let expr = sql<number>`${sql.lit(LATENCY_BUCKETS[0]![1])}`;
  for (const [from, width] of LATENCY_BUCKETS.slice(1))
    expr = sql<number>`case when ${bucket} >= ${sql.lit(from)} then ${sql.lit(width)} else ${expr} end`;
  return expr;
}

/** The part of the percentiles over the whole range (a day is yyyy-MM-dd). */
const ALL_DAYS = 'all';

/**
 * The p50 and p95 of each day of a histogram `(day, bucket, n)`, and of all its days (part ALL_DAYS): the
 * bucket holding the rank p x total, interpolated linearly within it. One query: the histogram is read once.
 */
async function percentiles(db: Kysely<DB>, histogram: RawBuilder<unknown>) {
  // the bucket holding rank p x total: the rows before it hold less, with it at least that many
  const holds = (p: number) => sql`(cum - n < ${sql.lit(p)} * total and cum >= ${sql.lit(p)} * total)`;
  const at = (p: number) =>
    sql<
      number | null
    >`max(case when ${holds(p)} then bucket + ${widthSql(sql.ref('bucket'))} * (${sql.lit(p)} * total - (cum - n)) / n end)`;
  // (filtering the two buckets of each part before grouping keeps SQLite's work to one pass of the windows)
  const { rows } = await sql<{ part: string; p50: number | string | null; p95: number | string | null }>`
    with h as (${histogram}),
    p as (
      select day as part, bucket, n from h
      union all
      select ${ALL_DAYS} as part, bucket, sum(n) as n from h group by bucket
    ),
    c as (
      select part, bucket, cast(n as double precision) as n,
        cast(sum(n) over (partition by part order by bucket rows between unbounded preceding and current row) as double precision) as cum,
        cast(sum(n) over (partition by part) as double precision) as total
      from p
    )
    select part, ${at(0.5)} as p50, ${at(0.95)} as p95 from c where ${holds(0.5)} or ${holds(0.95)} group by part`.execute(db);
  const round = (x: number | string | null) => (x === null ? null : Math.round(Number(x)));
  return new Map(rows.map((r) => [String(r.part), { p50: round(r.p50), p95: round(r.p95) }]));
}

interface Sums {
  calls: number;
  successful: number;
  duration: number;
  cost: number;
}
const sums = (r: { calls: unknown; successful: unknown; duration: unknown; cost: unknown }): Sums => ({
  calls: Number(r.calls),
  successful: Number(r.successful),
  duration: Number(r.duration),
  cost: Number(r.cost),
});

/** Per day: the sums, the calls by status, and the latency histogram (part = day), from the rollups. */
async function fromRollups(db: Kysely<DB>, companyId: string, q: CallAnalyticsQuery) {
  const days = (status: 'filter' | 'each') => {
    let qb = db
      .selectFrom('call_days')
      .where('company_id', '=', companyId)
      .where('type', '=', q.type || ANY)
      .where('phone_number', '=', q.phoneNumber || ANY)
      .where('agent_id', '=', q.agentId || ANY);
    // each status by name: one range of the key per status
    qb = status === 'filter' || q.status ? qb.where('status', '=', q.status || ANY) : qb.where('status', 'in', CALL_STATUSES);
    if (q.dateFrom) qb = qb.where('day', '>=', q.dateFrom);
    if (q.dateTo) qb = qb.where('day', '<=', q.dateTo);
    return qb;
  };
  const totals = await days('filter').select(['day', 'calls', 'successful', 'duration', 'cost']).orderBy('day').execute();
  const statuses = await days('each').select(['day', 'status', 'calls']).execute();
  let histogram: RawBuilder<unknown> | null = null;
  if (!q.agentId) {
    let h = db
      .selectFrom('call_latency_days')
      .select(['day', 'bucket', 'calls'])
      .where('company_id', '=', companyId)
      .where('status', '=', q.status || ANY)
      .where('type', '=', q.type || ANY)
      .where('phone_number', '=', q.phoneNumber || ANY);
    if (q.dateFrom) h = h.where('day', '>=', q.dateFrom);
    if (q.dateTo) h = h.where('day', '<=', q.dateTo);
    histogram = sql`select day, bucket, calls as n from (${h}) as d`;
  }
  return { totals, statuses, histogram };
}

/** Days listed without their own span: beyond this, only the days from the first to the last call. */
const MAX_FILLED_DAYS = 731;

function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`), end = Date.parse(`${to}T00:00:00Z`); t <= end; t += 86_400_000)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/** The overview of the company's calls matching the query: per day and over the whole range. */
export async function callAnalytics(db: Kysely<DB>, companyId: string, q: CallAnalyticsQuery): Promise<CallAnalytics> {
  const { totals, statuses, histogram } = await fromRollups(db, companyId, q);
  const byDay = new Map(totals.map((r) => [String(r.day), sums(r)]));
  const perDay = histogram ? await percentiles(db, histogram) : new Map<string, { p50: number | null; p95: number | null }>();
  const overall = perDay.get(ALL_DAYS);

  const seen = [...byDay.keys()];
  let first = q.dateFrom || seen[0];
  let last = q.dateTo || seen[seen.length - 1];
  let listed: string[] = [];
  if (first && last) {
    if ((Date.parse(last) - Date.parse(first)) / 86_400_000 >= MAX_FILLED_DAYS) {
      first = seen[0] ?? first;
      last = seen[seen.length - 1] ?? first;
    }
    listed = (Date.parse(last) - Date.parse(first)) / 86_400_000 >= MAX_FILLED_DAYS ? seen : daysBetween(first, last);
  }
  const statusesByDay = new Map<string, Partial<Record<CallStatus, number>>>();
  for (const r of statuses) {
    const day = String(r.day);
    const counts = statusesByDay.get(day) ?? {};
    counts[r.status as CallStatus] = Number(r.calls);
    statusesByDay.set(day, counts);
  }
  const zero: Sums = { calls: 0, successful: 0, duration: 0, cost: 0 };
  const all = { ...zero };
  const days: CallAnalyticsDay[] = listed.map((day) => {
    const s = byDay.get(day) ?? zero;
    all.calls += s.calls;
    all.successful += s.successful;
    all.duration += s.duration;
    all.cost += s.cost;
    return { day, ...callFigures(s, perDay.get(day)), statuses: statusesByDay.get(day) ?? {} };
  });
  return { days, totals: callFigures(all, overall) };
}
