import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { CsvError, parse } from 'csv-parse';
import {
  BATCH_CSV_MAX_BYTES,
  BATCH_ERRORS_MAX,
  BATCH_MESSAGES,
  checkRecipientPhone,
  PHONE_COLUMN,
} from '../../../src/api/contract/batch.js';
import type { AppDeps } from '../../lib/deps.js';
import { HttpError } from '../../lib/http.js';

/** Rows per INSERT: 6 parameters each, far below SQLite's and PostgreSQL's parameter limits. */
const CHUNK = 500;
/** One CSV record may not exceed this (a single row of a phone list is tiny). */
const MAX_RECORD_BYTES = 64 * 1024;

export class TooLargeError extends Error {}

export interface IngestResult {
  total: number;
  valid: number;
  invalid: number;
  duplicates: number;
  errors: { row: number; reason: string }[];
}

interface Pending {
  row: number;
  phone: string;
  variables: string;
}

/** Keeps the BATCH_ERRORS_MAX errors with the smallest rows, in row order, in bounded memory. */
class ErrorList {
  private items: { row: number; reason: string }[] = [];
  add(row: number, reason: string) {
    this.items.push({ row, reason });
    if (this.items.length > BATCH_ERRORS_MAX * 2) this.trim();
  }
  private trim() {
    this.items.sort((a, b) => a.row - b.row);
    this.items.length = Math.min(this.items.length, BATCH_ERRORS_MAX);
  }
  list() {
    this.trim();
    return this.items;
  }
}

/** Counts bytes as they stream past and fails as soon as the limit is crossed (nothing is buffered). */
export function byteLimit(max: number) {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.byteLength;
      if (seen > max) done(new TooLargeError());
      else done(null, chunk);
    },
  });
}

/**
 * Streams a recipients CSV into batch_recipients under `uploadId`: the header must name a phone_number
 * column, the other columns become the row's variables; each phone is normalised to E.164; duplicates
 * are detected by the unique index (upload_id, phone_number), so memory stays flat however many rows
 * arrive. `row` in errors is the line of the file where the record ends (the header is line 1).
 * Throws TooLargeError past BATCH_CSV_MAX_BYTES and HttpError(400) for an unreadable file; the caller
 * removes the rows already written under `uploadId` when it throws.
 */
export async function ingestRecipients(
  deps: AppDeps,
  body: ReadableStream<Uint8Array>,
  target: { batchId: string; companyId: string; uploadId: string },
): Promise<IngestResult> {
  const db = deps.db.db;
  const result = { total: 0, valid: 0, invalid: 0, duplicates: 0 };
  const errors = new ErrorList();
  let columns: string[] | undefined;
  let phoneIndex = -1;
  let pending: Pending[] = [];
  let pendingPhones = new Set<string>();
  let lastLine = 1;

  const flush = async () => {
    if (pending.length === 0) return;
    const chunk = pending;
    pending = [];
    pendingPhones = new Set();
    const inserted = await db
      .insertInto('batch_recipients')
      .values(
        chunk.map((p) => ({
          batch_id: target.batchId,
          company_id: target.companyId,
          upload_id: target.uploadId,
          row_number: p.row,
          phone_number: p.phone,
          variables: p.variables,
        })),
      )
      .onConflict((oc) => oc.columns(['upload_id', 'phone_number']).doNothing())
      .returning('row_number')
      .execute();
    const stored = new Set(inserted.map((r) => r.row_number));
    result.valid += stored.size;
    for (const p of chunk) {
      if (stored.has(p.row)) continue;
      result.duplicates++;
      errors.add(p.row, BATCH_MESSAGES.duplicatePhone);
    }
  };

  const header = (record: string[]) => {
    const names = record.map((c) => c.trim());
    const seen = new Set<string>();
    for (const n of names) {
      if (n === '') continue;
      if (seen.has(n)) throw new HttpError(400, BATCH_MESSAGES.duplicateColumn(n.slice(0, 64)));
      seen.add(n);
    }
    phoneIndex = names.findIndex((n) => n.toLowerCase() === PHONE_COLUMN);
    if (phoneIndex < 0) throw new HttpError(400, BATCH_MESSAGES.missingPhoneColumn);
    columns = names;
  };

  const row = (record: string[], line: number) => {
    result.total++;
    const check = checkRecipientPhone(record[phoneIndex]);
    if ('reason' in check) {
      result.invalid++;
      errors.add(line, check.reason);
      return;
    }
    // a duplicate inside the current chunk is caught here; across chunks, by the unique index
    if (pendingPhones.has(check.phone)) {
      result.duplicates++;
      errors.add(line, BATCH_MESSAGES.duplicatePhone);
      return;
    }
    const variables = Object.fromEntries(
      (columns ?? []).flatMap((name, i) => (i === phoneIndex || name === '' ? [] : [[name, (record[i] ?? '').trim()]])),
    );
    pending.push({ row: line, phone: check.phone, variables: JSON.stringify(variables) });
    pendingPhones.add(check.phone);
  };

  const parser = parse({
    bom: true,
    skip_empty_lines: true,
    skip_records_with_empty_values: true,
    relax_column_count: true,
    max_record_size: MAX_RECORD_BYTES,
    info: true,
  });

  try {
    await pipeline(
      Readable.fromWeb(body as WebReadableStream<Uint8Array>),
      byteLimit(BATCH_CSV_MAX_BYTES),
      parser,
      async (source: AsyncIterable<{ record: string[]; info: { lines: number } }>) => {
        for await (const { record, info } of source) {
          lastLine = info.lines;
          if (!columns) header(record);
          else {
            row(record, info.lines);
            if (pending.length >= CHUNK) await flush();
          }
        }
        await flush();
      },
    );
  } catch (e) {
    if (e instanceof TooLargeError || e instanceof HttpError) throw e;
    if (e instanceof CsvError) {
      const line = typeof (e as { lines?: unknown }).lines === 'number' ? (e as unknown as { lines: number }).lines : lastLine;
      throw new HttpError(400, BATCH_MESSAGES.unreadable(line));
    }
    throw e;
  }
  if (!columns) throw new HttpError(400, BATCH_MESSAGES.emptyFile);
  return { ...result, errors: errors.list() };
}
