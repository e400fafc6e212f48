/**
 * The values of a call's type and status (what real voice platforms report) and the fields the call list
 * sorts by. A module of its own, free of valibot and of the rest of the call contract: the Call History
 * route's `validateSearch` (which stays in the entry chunk) uses them.
 */
/** Phone calls are inbound or outbound; the agent editor's test calls are `web` (the browser's microphone) and `chat` (Test LLM). */
export const CALL_TYPES = ['inbound', 'outbound', 'web', 'chat'] as const;
export type CallType = (typeof CALL_TYPES)[number];

export const CALL_STATUSES = [
  'registered',
  'ongoing',
  'ended',
  'completed',
  'failed',
  'busy',
  'no-answer',
  'canceled',
  'error',
] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

/** Sortable columns (each served by an index). Type, Disconnection Reason and Successful are not sortable. */
export const CALL_SORT_FIELDS = ['time', 'duration', 'cost', 'status', 'from'] as const;
export type CallSortField = (typeof CALL_SORT_FIELDS)[number];
