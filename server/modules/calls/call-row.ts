import type { Selectable } from 'kysely';
import type { CallsTable } from '../../platform/db/schema.js';

/** A call as it is written and read (without `from_digits_rev`, which insertCalls derives from `from_number`). */
export type CallRow = Omit<Selectable<CallsTable>, 'from_digits_rev' | 'latency_ms' | 'content_deleted_at'> & {
  /** the median latency of the call's agent turns (ms); absent or null without one */
  latency_ms?: number | null | undefined;
  /** when its content was deleted; absent or null: not deleted */
  content_deleted_at?: string | null | undefined;
};

/** Counts rows' dimensions (call_counts, call_days): a value or ANY. */
export const ANY = '*';
