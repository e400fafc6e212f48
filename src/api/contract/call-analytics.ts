/**
 * Contract of the call analytics: the overview above the Call History table and the per-agent
 * figures of the Agents page. Imported by the client AND the server.
 *
 * GET /call/analytics answers `{ success: true, data: CallAnalytics }` for the calls matching the list's
 * filters and date range (CALL_FILTER_PARAMS but the search: dateFrom, dateTo, phoneNumber, type, status;
 * search, page, limit and sort are ignored) and `agentId` (one agent's calls). The search is left out on
 * purpose: the overview is read from daily rollups (bounded work at any size), and a search by phone digits
 * would have to aggregate every matching call on the request's thread. Days are UTC, from dateFrom (or the first
 * day with a call) to dateTo (or the last), every day listed, with zeros when it had no call.
 *
 * - success rate: successful calls / calls (null without calls)
 * - average duration: seconds per call (null without calls)
 * - latency: the p50 and p95 over the calls of the day of each call's typical response latency (the median
 *   of its agent turns, end of the caller's speech -> the agent's first audio), read from a histogram
 *   (LATENCY_BUCKETS: 50 ms wide under 1 s, 100 ms under 2 s, then 250 ms, 1 s and 5 s: within about 5%), interpolated within the bucket;
 *   null for a day without a measured call, and always null with `agentId` (latency is per line, not per agent).
 */
import * as v from 'valibot';
import { CALL_FILTER_PARAMS, type CallFilters, callQuerySchema } from './call';
import { CALL_STATUSES, type CallStatus } from './call-values';
import { queryParams } from './list';

export const CALL_ANALYTICS_PATH = '/call/analytics';

/** Latency histogram: from each bound on, buckets of this width (ms). */
export const LATENCY_BUCKETS: readonly (readonly [from: number, width: number])[] = [
  [0, 50],
  [1000, 100],
  [2000, 250],
  [5000, 1000],
  [10_000, 5000],
];

/** The lower bound (ms) of the latency bucket holding `ms`. */
export function latencyBucket(ms: number): number {
  let bucket = 0;
  for (const [from, width] of LATENCY_BUCKETS) if (ms >= from) bucket = from + Math.floor((ms - from) / width) * width;
  return bucket;
}

/** The list's filters without the search (see the header). */
const { search: _search, ...ANALYTICS_FILTER_PARAMS } = CALL_FILTER_PARAMS;

export const CallAnalyticsQuerySchema = callQuerySchema({
  ...ANALYTICS_FILTER_PARAMS,
  agentId: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(100, 'expected an agent id')), ''),
});
export type CallAnalyticsQuery = v.InferOutput<typeof CallAnalyticsQuerySchema>;

/** The Call History filters and one agent (the client's side of the query; no search, see the header). */
export interface CallAnalyticsParams extends CallFilters {
  agentId?: string;
}

/** The query string of GET /call/analytics (empty values left out). */
export const callAnalyticsParams = (q: CallAnalyticsParams): Record<string, string> =>
  queryParams({
    dateFrom: q.dateFrom,
    dateTo: q.dateTo,
    phoneNumber: q.phoneNumber,
    type: q.type,
    status: q.status,
    agentId: q.agentId,
  });

const nullableNumber = v.nullable(v.number());

const FiguresEntries = {
  calls: v.number(),
  successful: v.number(),
  /** successful / calls, 0..1 */
  successRate: nullableNumber,
  /** seconds */
  avgDuration: nullableNumber,
  /** USD */
  cost: v.number(),
  /** ms */
  latencyP50: nullableNumber,
  latencyP95: nullableNumber,
};

export const CallAnalyticsDaySchema = v.object({
  /** yyyy-MM-dd (UTC) */
  day: v.string(),
  ...FiguresEntries,
  /** calls of the day by status (statuses without calls left out) */
  statuses: v.record(v.picklist(CALL_STATUSES), v.number()),
});
export type CallAnalyticsDay = v.InferOutput<typeof CallAnalyticsDaySchema>;

export const CallAnalyticsSchema = v.object({
  days: v.array(CallAnalyticsDaySchema),
  totals: v.object(FiguresEntries),
});
export type CallAnalytics = v.InferOutput<typeof CallAnalyticsSchema>;
export type CallFigures = CallAnalytics['totals'];

export const CallAnalyticsResponseSchema = v.object({ success: v.literal(true), data: CallAnalyticsSchema });

/** Figures of calls, successful calls, summed duration and cost (rates null without calls). */
export function callFigures(
  f: { calls: number; successful: number; duration: number; cost: number },
  latency: { p50: number | null; p95: number | null } = { p50: null, p95: null },
): CallFigures {
  return {
    calls: f.calls,
    successful: f.successful,
    successRate: f.calls ? f.successful / f.calls : null,
    avgDuration: f.calls ? f.duration / f.calls : null,
    cost: Math.round(f.cost * 10_000) / 10_000,
    latencyP50: latency.p50,
    latencyP95: latency.p95,
  };
}

export type CallStatusCounts = Partial<Record<CallStatus, number>>;
