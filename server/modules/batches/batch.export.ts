/**
 * 'Export recipients' of a batch call: every recipient of the batch's list with its outcome, in
 * row order, as CSV: Row, Phone Number, the upload's own columns (its dynamic variables), State, Attempts,
 * Call ID, Call Status, Duration, Disconnection Reason, Failure Reason (why a dial was refused). Streamed through the server's one CSV download
 * (server/platform/http/csv-export.ts: formula-safe cells), read by keyset on the row number EXPORT_BATCH at a time.
 */

import { RECIPIENT_STATE_LABELS, RECIPIENTS_EXPORT_COLUMNS, type RecipientState } from '@contract/batch.js';
import type { CsvValue } from '@contract/csv.js';
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { csvStream } from '../../platform/http/csv-export.js';
import { type BatchRow, type RecipientOutcomeRow, recipientOutcomesAfter } from './batch-call.repo.js';

export const RECIPIENTS_EXPORT_BATCH = 1000;

/** The purpose of a signed link to one batch's recipients (a link made for one batch opens no other). */
export const recipientsExportPurpose = (batchId: string) => `batch-recipients.${batchId}`;

const variablesOf = (r: RecipientOutcomeRow): Record<string, string> => {
  try {
    return JSON.parse(r.variables) as Record<string, string>;
  } catch {
    return {};
  }
};

/** The CSV of the batch's recipients with their outcomes (the batch row is the caller's, company-checked). */
export async function exportRecipients(db: Kysely<DB>, batch: BatchRow): Promise<ReadableStream<Uint8Array>> {
  // every recipient of one upload has the same columns: the first one names them
  const [first] = await recipientOutcomesAfter(db, batch, 0, 1);
  const columns = first ? Object.keys(variablesOf(first)) : [];
  let after = 0;
  return csvStream([...RECIPIENTS_EXPORT_COLUMNS.before, ...columns, ...RECIPIENTS_EXPORT_COLUMNS.after], async () => {
    const rows = await recipientOutcomesAfter(db, batch, after, RECIPIENTS_EXPORT_BATCH);
    const last = rows[rows.length - 1];
    if (last) after = last.row_number;
    const records = rows.map((r): CsvValue[] => {
      const vars = variablesOf(r);
      return [
        r.row_number,
        r.phone_number,
        ...columns.map((name) => vars[name] ?? ''),
        RECIPIENT_STATE_LABELS[r.state as RecipientState] ?? r.state,
        r.attempts,
        r.call_id ?? '',
        r.call_status ?? '',
        r.duration ?? '',
        r.disconnection_reason ?? '',
        r.failure_reason ?? '',
      ];
    });
    return { records, done: rows.length < RECIPIENTS_EXPORT_BATCH };
  });
}
