/**
 * The Call History URL (spec sections 2 and 3): the table's state plus the call filters, so a filtered
 * view can be bookmarked, shared and reloaded:
 *
 *   /dashboard/call-history?dateFrom=2026-11-01&dateTo=2026-11-30&status=failed&phoneNumber=%2B14155550100
 *     &type=inbound&search=415&sort=duration:desc&page=2&size=20
 *
 * Every value falls back on its own (a hand-edited `?status=done&dateFrom=2026-13-01` shows the list
 * without those filters) and a reversed date range is put the right way round. The value lists are
 * spelled out here, checked against the contract's types both ways: `validateSearch` stays in the entry
 * chunk, and importing the contract module would carry all of it there.
 */
import * as v from 'valibot';
import type { CallSortField, CallStatus, CallType } from '../../../../api/contract/call';
import { isCalendarDay } from '../../../../api/contract/day';
import { TABLE_QUERY_DEFAULTS, type TableQuery, tableSearchSchema } from '../../../../ui/data-table/table-query';
import { optionalParam } from '../../../-lib/search';

export const CALL_SORT_FIELDS = ['time', 'duration', 'cost', 'status', 'from'] as const satisfies readonly CallSortField[];
const CALL_TYPE_VALUES = ['inbound', 'outbound'] as const satisfies readonly CallType[];
const CALL_STATUS_VALUES = [
  'registered',
  'ongoing',
  'ended',
  'completed',
  'failed',
  'busy',
  'no-answer',
  'canceled',
  'error',
] as const satisfies readonly CallStatus[];
const _everySortField: Exclude<CallSortField, (typeof CALL_SORT_FIELDS)[number]> extends never ? true : never = true;
const _everyType: Exclude<CallType, (typeof CALL_TYPE_VALUES)[number]> extends never ? true : never = true;
const _everyStatus: Exclude<CallStatus, (typeof CALL_STATUS_VALUES)[number]> extends never ? true : never = true;

/** yyyy-MM-dd of a real calendar day. */
const day = v.pipe(v.string(), v.check(isCalendarDay));
/** The router reads `?phoneNumber=4155550100` as a number: take both spellings. */
const phoneText = v.pipe(
  v.union([v.string(), v.number()]),
  v.transform((x) => String(x).trim()),
  v.regex(/^\+?[\d\s().-]{7,24}$/),
);

export interface CallHistorySearch extends TableQuery {
  dateFrom?: string | undefined;
  dateTo?: string | undefined;
  phoneNumber?: string | undefined;
  type?: CallType | undefined;
  status?: CallStatus | undefined;
}

const table = tableSearchSchema({ sortFields: CALL_SORT_FIELDS });

/** The route's `validateSearch`. */
export const callHistorySearchSchema = v.pipe(
  v.object({
    ...table.entries,
    dateFrom: optionalParam(day),
    dateTo: optionalParam(day),
    phoneNumber: optionalParam(phoneText),
    type: optionalParam(v.picklist(CALL_TYPE_VALUES)),
    status: optionalParam(v.picklist(CALL_STATUS_VALUES)),
  }),
  v.transform((q): CallHistorySearch => {
    if (q.dateFrom && q.dateTo && q.dateFrom > q.dateTo) return { ...q, dateFrom: q.dateTo, dateTo: q.dateFrom };
    return q;
  }),
);

export const CALL_HISTORY_SEARCH_DEFAULTS = TABLE_QUERY_DEFAULTS;
