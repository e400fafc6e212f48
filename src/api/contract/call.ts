/**
 * Contract of the call history. Imported by the client (typed
 * call, the Call History URL and filter dialog, the table's formats) AND the server (validation).
 *
 * GET /call/ answers `{ success: true, data: { calls: Call[], pagination: { totalCalls, page, limit } } }`.
 * Query parameters (all optional, all validated; a bad value answers 400 with msg naming it):
 *
 * | param       | meaning                                                                                       |
 * |-------------|-----------------------------------------------------------------------------------------------|
 * | page        | ZERO-based page index, as the data table keeps it in the URL (default 0)                     |
 * | limit       | rows per page, 1..100 (default 10)                                                            |
 * | search      | the START or the END of the caller's (from) number, formatting ignored (see callSearchMatch): '415 555', '1 415 555', '+1 (415) 555' and '0123' all find +14155550123; text starting with '+' matches the start only. Text without a digit matches nothing. A prefix or a suffix, not any substring, so two indexes answer it on a million calls |
 * | sort        | JSON object of field to 1 / -1 over CALL_SORT_FIELDS, keys in priority order (default `{"time":-1}`, newest first). Ties break by time in the direction opposite to the last key, then id, so -1 is the exact reverse of 1 |
 * | dateFrom    | yyyy-MM-dd: calls on or after the start of that day                                          |
 * | dateTo      | yyyy-MM-dd: calls up to the end of that day (inclusive). Days are UTC until companies have a time zone. dateFrom after dateTo answers 400 |
 * | phoneNumber | one of the company's numbers (any formatting): calls on that line, i.e. inbound calls TO it and outbound calls FROM it |
 * | type        | inbound or outbound                                                                           |
 * | status      | one of CALL_STATUSES                                                                          |
 */
import * as v from 'valibot';
import { FLOW_ID_PATTERN } from './agent/flow';
import { CALL_SORT_FIELDS, CALL_STATUSES, CALL_TYPES, type CallSortField, type CallStatus, type CallType } from './call-values';
import { isCalendarDay } from './day';
import { intParam, PAGE_MAX, queryParams, type SortPairs, searchParam, sortParam, sortToParam } from './list';
import { normalizePhoneNumber, searchDigits } from './phone';

// ---------------------------------------------------------------------------------------------
// Values real voice platforms report

export const CALL_TYPE_LABELS: Record<CallType, string> = {
  inbound: 'Inbound',
  outbound: 'Outbound',
  web: 'Web call',
  chat: 'Chat',
};

export const CALL_STATUS_LABELS: Record<CallStatus, string> = {
  registered: 'Registered',
  ongoing: 'Ongoing',
  ended: 'Ended',
  completed: 'Completed',
  failed: 'Failed',
  busy: 'Busy',
  'no-answer': 'No answer',
  canceled: 'Canceled',
  error: 'Error',
};

/** Spec 4 'Call status colours': ended/completed green, failed/busy/no-answer red, canceled yellow, else grey. */
export type CallStatusTone = 'green' | 'red' | 'yellow' | 'grey';
export function callStatusTone(status: string): CallStatusTone {
  if (status === 'ended' || status === 'completed') return 'green';
  if (status === 'failed' || status === 'busy' || status === 'no-answer') return 'red';
  if (status === 'canceled') return 'yellow';
  return 'grey';
}

export const DISCONNECTION_REASONS = [
  'user_hangup',
  'agent_hangup',
  'call_transfer',
  'voicemail_reached',
  'inactivity',
  'max_duration_reached',
  'dial_busy',
  'dial_failed',
  'dial_no_answer',
  'invalid_destination',
  'dial_canceled',
  'no_inbound_agent',
  'concurrency_limit_reached',
  'spend_limit_reached',
  'error_stt_provider',
  'error_llm_provider',
  'error_tts_provider',
  'error_transport',
  'error_audio_flood',
  'error_unknown',
] as const;
export type DisconnectionReason = (typeof DISCONNECTION_REASONS)[number];
/** The table's 'Disconnection Reason' in words. */
export const DISCONNECTION_REASON_LABELS: Record<DisconnectionReason, string> = {
  user_hangup: 'User hung up',
  agent_hangup: 'Agent hung up',
  call_transfer: 'Call transferred',
  voicemail_reached: 'Voicemail reached',
  inactivity: 'Inactivity',
  max_duration_reached: 'Max duration reached',
  dial_busy: 'Line busy',
  dial_failed: 'Dial failed',
  dial_no_answer: 'No answer',
  invalid_destination: 'Invalid destination',
  dial_canceled: 'Call canceled',
  no_inbound_agent: 'No inbound agent',
  concurrency_limit_reached: 'Concurrency limit reached',
  spend_limit_reached: 'Spend limit reached',
  error_stt_provider: 'Speech recognition failed',
  error_llm_provider: 'LLM provider failed',
  error_tts_provider: 'Voice provider failed',
  error_transport: 'Connection failed',
  error_audio_flood: 'Audio sent too fast',
  error_unknown: 'Unknown error',
};
/** Words for a reason ('' for a call still going on; an unknown code is shown as sent). */
export const disconnectionReasonLabel = (reason: string) =>
  (DISCONNECTION_REASON_LABELS as Record<string, string>)[reason] ?? reason;

// ---------------------------------------------------------------------------------------------
// Answer

/** A call record. */
export const CallSchema = v.object({
  _id: v.string(),
  /** ISO-8601 UTC start time (shown as yyyy-MM-dd HH:mm) */
  time: v.string(),
  /** E.164 caller */
  from: v.string(),
  /** E.164 callee */
  to: v.string(),
  /** the company's line the call used (to of inbound, from of outbound calls) */
  phoneNumber: v.string(),
  /** seconds (shown as minutes and seconds) */
  duration: v.number(),
  type: v.picklist(CALL_TYPES),
  /** USD (shown with 2 decimals) */
  cost: v.number(),
  /** one of DISCONNECTION_REASONS, '' while the call is ongoing */
  disconnectionReason: v.string(),
  status: v.picklist(CALL_STATUSES),
  callSuccessful: v.boolean(),
  agentId: v.nullable(v.string()),
});
export type Call = v.InferOutput<typeof CallSchema>;

/** GET /call/ */
export const CallListResponseSchema = v.object({
  success: v.literal(true),
  data: v.object({
    calls: v.array(CallSchema),
    pagination: v.object({
      /** calls matching the filters (all pages) */
      totalCalls: v.number(),
      /** the page answered (ZERO-based) and its size */
      page: v.number(),
      limit: v.number(),
    }),
  }),
});
export type CallListResponse = v.InferOutput<typeof CallListResponseSchema>;

// ---------------------------------------------------------------------------------------------
// Query

export const CALL_LIST_LIMIT_DEFAULT = 10;
export const CALL_LIST_LIMIT_MAX = 100;
export const CALL_SEARCH_MAX = 50;
export type CallSort = SortPairs<CallSortField>;

export const CALL_MESSAGES = {
  invalidDate: 'expected a date as yyyy-MM-dd',
  dateOrder: 'dateFrom must not be after dateTo',
  invalidType: `expected one of ${CALL_TYPES.join(', ')}`,
  invalidStatus: `expected one of ${CALL_STATUSES.join(', ')}`,
  invalidPhoneNumber: 'expected a phone number',
  invalidNode: 'expected a node id (letters, digits, _ and -)',
} as const;

export { isCalendarDay };

const dayParam = v.optional(
  v.pipe(
    v.string(),
    v.trim(),
    v.check((s) => s === '' || isCalendarDay(s), CALL_MESSAGES.invalidDate),
  ),
  '',
);
const enumParam = <T extends string>(values: readonly T[], msg: string) =>
  v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.check((s) => s === '' || (values as readonly string[]).includes(s), msg),
      v.transform((s) => s as T | ''),
    ),
    '',
  );

/** The filters of the call history as query parameters (the list's, the export's and the analytics'). */
export const CALL_FILTER_PARAMS = {
  search: searchParam(CALL_SEARCH_MAX),
  dateFrom: dayParam,
  dateTo: dayParam,
  phoneNumber: v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.maxLength(32, CALL_MESSAGES.invalidPhoneNumber),
      v.check((s) => s === '' || normalizePhoneNumber(s) !== null, CALL_MESSAGES.invalidPhoneNumber),
      v.transform((s) => (s === '' ? '' : (normalizePhoneNumber(s) as string))),
    ),
    '',
  ),
  type: enumParam(CALL_TYPES, CALL_MESSAGES.invalidType),
  status: enumParam(CALL_STATUSES, CALL_MESSAGES.invalidStatus),
};

/**
 * A query schema of the call history: `entries` (CALL_FILTER_PARAMS and the request's own) with the check
 * that dateFrom is not after dateTo (answered as dateFrom's error).
 */
export function callQuerySchema<E extends Omit<typeof CALL_FILTER_PARAMS, 'search'> & v.ObjectEntries>(entries: E) {
  const dates = (q: unknown) => q as { dateFrom: string; dateTo: string };
  return v.pipe(
    v.object(entries),
    v.forward(
      v.partialCheck(
        [['dateFrom'], ['dateTo']] as never,
        (q) => !dates(q).dateFrom || !dates(q).dateTo || dates(q).dateFrom <= dates(q).dateTo,
        CALL_MESSAGES.dateOrder,
      ),
      ['dateFrom'] as never,
    ),
  );
}

export const CallListQuerySchema = callQuerySchema({
  /** ZERO-based */
  page: intParam(0, 0, PAGE_MAX),
  limit: intParam(CALL_LIST_LIMIT_DEFAULT, 1, CALL_LIST_LIMIT_MAX),
  sort: sortParam(CALL_SORT_FIELDS),
  ...CALL_FILTER_PARAMS,
  /** a conversation-flow node's id: only the calls that reached it */
  node: v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.check((s) => s === '' || FLOW_ID_PATTERN.test(s), CALL_MESSAGES.invalidNode),
    ),
    '',
  ),
});
export type CallListQuery = v.InferOutput<typeof CallListQuerySchema>;

/**
 * The E.164 prefix a call search asks for: the search box matches the START of the caller's number (an
 * index range, fast at any size). Formatting is ignored. Text starting with '+', or digits starting with
 * 1, carry their country code; other digits are a North American number without its +1 ('415 555' ->
 * '+1415555'; North American area codes never start with 0 or 1). null when the text has no digit.
 */
export function callSearchPrefix(search: string): string | null {
  const digits = searchDigits(search);
  if (!digits) return null;
  return search.trim().startsWith('+') || digits.startsWith('1') ? `+${digits}` : `+1${digits}`;
}

/** The digits of a phone number, last first (a call's `from_digits_rev`: its number read from the end). */
export const reversedDigits = (text: string): string => [...searchDigits(text)].reverse().join('');

/**
 * What a call search matches: a caller number that starts with `prefix` (callSearchPrefix), or one whose
 * digits end with the typed digits, i.e. whose reversed digits start with `reversed` ('0123' finds
 * +14155550123). Text starting with '+' is the start of a number: `reversed` is null. null when the text
 * has no digit (nothing matches).
 */
export function callSearchMatch(search: string): { prefix: string; reversed: string | null } | null {
  const prefix = callSearchPrefix(search);
  if (!prefix) return null;
  return { prefix, reversed: search.trim().startsWith('+') ? null : reversedDigits(search) };
}

/** The filters of the Filter Call History dialog and the date-range picker (the specification's 'Call filters'). */
export interface CallFilters {
  /** yyyy-MM-dd */
  dateFrom?: string;
  /** yyyy-MM-dd, inclusive */
  dateTo?: string;
  phoneNumber?: string;
  type?: CallType | '';
  status?: CallStatus | '';
}

export interface CallListParams extends CallFilters {
  /** ZERO-based */
  page?: number;
  limit?: number;
  search?: string;
  sort?: CallSort;
  /** only the calls that reached this conversation-flow node */
  node?: string | undefined;
}

/** The query-string values of GET /call/ (empty filters left out, sort as the JSON object). */
export const callListParams = (q: CallListParams): Record<string, string> =>
  queryParams({
    page: q.page,
    limit: q.limit,
    search: q.search,
    sort: sortToParam(q.sort),
    dateFrom: q.dateFrom,
    dateTo: q.dateTo,
    phoneNumber: q.phoneNumber,
    type: q.type,
    status: q.status,
    node: q.node,
  });

/** True when any filter of the dialog or the date range is set (the button reads 'Filters Applied'). */
export const hasCallFilters = (f: CallFilters) => Boolean(f.dateFrom || f.dateTo || f.phoneNumber || f.type || f.status);

export const CALL_PATHS = { list: '/call/', export: '/call/export' } as const;

/** `POST /call/export?<filters>`: a link (valid 5 minutes) downloading the matching calls as CSV. */
export const CallExportResponseSchema = v.object({ success: v.literal(true), data: v.object({ url: v.string() }) });

// ---------------------------------------------------------------------------------------------
// Display formats

/**
 * 'yyyy-MM-dd HH:mm' of a call's time, in UTC: the same days the date filter uses (companies have no time
 * zone yet), so a call shown on a day is found by filtering that day.
 */
export const formatCallTime = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;

/** '4m 05s' style: minutes and seconds ('0m 00s' for 0). */
export function formatCallDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}

/** '$0.34': dollars with 2 decimals. */
export const formatCallCost = (usd: number) => `$${usd.toFixed(2)}`;
