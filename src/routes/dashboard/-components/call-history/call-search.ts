/**
 * The Call History URL: the table's state plus the call filters, so a filtered
 * view can be bookmarked, shared and reloaded:
 *
 *   /dashboard/call-history?dateFrom=2026-11-01&dateTo=2026-11-30&status=failed&phoneNumber=%2B14155550100
 *     &type=inbound&search=415&sort=duration:desc&page=2&size=20
 *   /dashboard/call-history?node=book        the calls that reached the flow node `book`
 *
 * Every value falls back on its own (a hand-edited `?status=done&dateFrom=2026-13-01` shows the list
 * without those filters) and a reversed date range is put the right way round. The value lists come
 * from contract/call-values.ts, a module free of the rest of the call contract: `validateSearch` stays in
 * the entry chunk.
 */
import * as v from 'valibot';
import {
  CALL_SORT_FIELDS,
  CALL_STATUSES,
  CALL_TYPES,
  type CallStatus,
  type CallType,
} from '../../../../api/contract/call-values';
import { isCalendarDay } from '../../../../api/contract/day';
import { TABLE_QUERY_DEFAULTS, type TableQuery, tableSearchSchema } from '../../../../ui/data-table/table-query';
import { optionalParam } from '../../../-lib/search';

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
  /** a conversation-flow node's id: only the calls that reached it */
  node?: string | undefined;
}

const table = tableSearchSchema({ sortFields: CALL_SORT_FIELDS });

/** The route's `validateSearch`. */
export const callHistorySearchSchema = v.pipe(
  v.object({
    ...table.entries,
    dateFrom: optionalParam(day),
    dateTo: optionalParam(day),
    phoneNumber: optionalParam(phoneText),
    type: optionalParam(v.picklist(CALL_TYPES)),
    status: optionalParam(v.picklist(CALL_STATUSES)),
    // a flow node id (the flow contract's id pattern, written here to keep that contract out of the entry chunk)
    node: optionalParam(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,64}$/))),
  }),
  v.transform((q): CallHistorySearch => {
    if (q.dateFrom && q.dateTo && q.dateFrom > q.dateTo) return { ...q, dateFrom: q.dateTo, dateTo: q.dateFrom };
    return q;
  }),
);

export const CALL_HISTORY_SEARCH_DEFAULTS = TABLE_QUERY_DEFAULTS;
