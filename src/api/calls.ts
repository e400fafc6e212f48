/**
 * Typed call of the call history.
 * Cached by its parameters (the previous page stays visible while the next loads; every load still
 * asks the server). Calls are read-only through the API, so nothing here invalidates them but
 * `invalidate()`.
 *
 *   const { data } = await calls.list({ page: 0, limit: 10, status: 'completed', dateFrom: '2026-11-01', dateTo: '2026-11-30' });
 *   data.calls; data.pagination.totalCalls;
 */

import { type QueryCache, queryCache } from './cache';
import { type ApiClient, api } from './client';
import {
  CALL_PATHS,
  CallExportResponseSchema,
  type CallListParams,
  CallListResponseSchema,
  callListParams,
} from './contract/call';
import {
  CALL_ANALYTICS_PATH,
  type CallAnalyticsParams,
  CallAnalyticsResponseSchema,
  callAnalyticsParams,
} from './contract/call-analytics';
import { CREATE_PHONE_CALL_PATH, type CreatePhoneCallInput, CreatePhoneCallResponseSchema } from './contract/telephony';

export type { CallListParams };

export interface CallsCallOptions {
  /** show the automatic 'Error' toast for a server msg (default true) */
  notify?: boolean;
  signal?: AbortSignal;
}

/** Cache key prefix of the call history. */
export const CALL_CACHE_PREFIX = 'call';
export const callListKey = (q: CallListParams) => `${CALL_CACHE_PREFIX}s?${new URLSearchParams(callListParams(q)).toString()}`;

/** Cache key of an analytics answer (under the call prefix: invalidated with the list). */
export const callAnalyticsKey = (q: CallAnalyticsParams) =>
  `${CALL_CACHE_PREFIX}-analytics?${new URLSearchParams(callAnalyticsParams(q)).toString()}`;

export function callsApi(client: ApiClient, cache: QueryCache) {
  return {
    /** GET /call/analytics: per day and in total, for the list's filters (and one agent) */
    analytics: (q: CallAnalyticsParams = {}, options?: CallsCallOptions) =>
      cache.load(callAnalyticsKey(q), () =>
        client.get(CALL_ANALYTICS_PATH, CallAnalyticsResponseSchema, { query: callAnalyticsParams(q), ...options }),
      ),
    /** GET /call/ (page ZERO-based; filters, search and sort as in the contract) */
    list: (q: CallListParams = {}, options?: CallsCallOptions) =>
      cache.load(callListKey(q), () =>
        client.get(CALL_PATHS.list, CallListResponseSchema, { query: callListParams(q), ...options }),
      ),
    /** POST /call/create: a phone call from one of the company's numbers with an agent */
    create: (body: CreatePhoneCallInput, options?: CallsCallOptions) =>
      client.post(CREATE_PHONE_CALL_PATH, CreatePhoneCallResponseSchema, body, options),
    /** POST /call/export with the list's filters (not its page): a signed link that downloads the CSV */
    exportLink: (q: CallListParams = {}, options?: CallsCallOptions) => {
      const { page: _page, limit: _limit, ...filters } = callListParams(q);
      return client.post(CALL_PATHS.export, CallExportResponseSchema, undefined, { query: filters, ...options });
    },
    /** Drops the cached pages (e.g. a Retry after an error, or a refresh button). */
    invalidate: () => cache.invalidate(CALL_CACHE_PREFIX),
  };
}

export type CallsApi = ReturnType<typeof callsApi>;

export const calls = callsApi(api, queryCache);
