import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import {
  BATCH_CSV_MAX_BYTES,
  BATCH_ERRORS_MAX,
  BATCH_MESSAGES,
  checkRecipient,
  isBlankRecord,
  RECIPIENT_RECORD_MAX_CHARS,
  type RecipientsHeader,
  readRecipientsHeader,
  recipientVariables,
} from '@contract/batch.js';
import { CsvError, parse } from 'csv-parse';
import type { AppDeps } from '../../platform/deps.js';
import { HttpError } from '../../platform/http/http.js';
import { smallChunks } from '../../platform/jobs/cooperative.js';
import { byteLimit, TooLargeError } from '../../platform/uploads/byte-limit.js';
import { allowedCountries } from '../billing/index.js';
import { insertRecipients, type RecipientRow } from './batch-call.repo.js';

/** Rows per INSERT: 6 parameters each, far below SQLite's and PostgreSQL's parameter limits. */
const CHUNK = 500;
/**
 * Bytes handed to the parser at a time, with a turn of the event loop between: at most about 750 valid
 * rows (two INSERTs) or 4,096 invalid ones, whose checks run before the next piece is read.
 */
const PARSE_BYTES = 8 * 1024;

export interface IngestResult {
  total: number;
  valid: number;
  invalid: number;
  duplicates: number;
  errors: { row: number; reason: string }[];
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

/**
 * Streams a recipients CSV into batch_recipients under `uploadId`, with the rules of the contract
 * (readRecipientsHeader, isBlankRecord, checkRecipientPhone, recipientVariables) that the browser's
 * worker applies too, and the company's destination policy (checkRecipient: the rules of POST /call/create). Duplicates are detected by the unique index (upload_id, phone_number), so memory
 * stays flat however many rows arrive. Rows are numbered as records (the header is row 1).
 * Throws TooLargeError past BATCH_CSV_MAX_BYTES and HttpError(400) for an unreadable file; the caller
 * removes the rows already written under `uploadId` when it throws.
 * Bounded steps on the event loop: a record is at most RECIPIENT_RECORD_MAX_CHARS, and the parser gets
 * PARSE_BYTES at a time with a turn of the loop in between. On SQLite the rows of a piece are checked
 * and stored before the next piece is read; on PostgreSQL the parser's bounded buffer holds the reading
 * back while rows are stored.
 */
export async function ingestRecipients(
  deps: AppDeps,
  body: ReadableStream<Uint8Array>,
  target: { batchId: string; companyId: string; uploadId: string },
): Promise<IngestResult> {
  const result = { total: 0, valid: 0, invalid: 0, duplicates: 0 };
  const errors = new ErrorList();
  /** the company's destination policy: a recipient it may not call is invalid, with the call's refusal */
  const allowed = await allowedCountries(deps, target.companyId);
  let header: RecipientsHeader | undefined;
  let pending: RecipientRow[] = [];
  let pendingPhones = new Set<string>();
  /** records read so far, the header included (= the row number of the last one) */
  let rowNumber = 0;

  const flush = async () => {
    if (pending.length === 0) return;
    const chunk = pending;
    pending = [];
    pendingPhones = new Set();
    const stored = await insertRecipients(deps.db.db, target, chunk);
    result.valid += stored.size;
    for (const p of chunk) {
      if (stored.has(p.row)) continue;
      result.duplicates++;
      errors.add(p.row, BATCH_MESSAGES.duplicatePhone);
    }
  };

  const row = (h: RecipientsHeader, record: string[], line: number) => {
    result.total++;
    const check = checkRecipient(record[h.phoneIndex], allowed);
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
    pending.push({ row: line, phone: check.phone, variables: JSON.stringify(recipientVariables(h, record)) });
    pendingPhones.add(check.phone);
  };

  const parser = parse({
    bom: true,
    // empty lines are blank records: the parser drops them cheaply; whitespace-only ones are dropped below
    skip_empty_lines: true,
    relax_column_count: true,
    max_record_size: RECIPIENT_RECORD_MAX_CHARS,
  });

  // the first failure wins: tearing the web stream down makes pipeline() report an AbortError instead
  let failure: unknown;
  const fail = (e: unknown) => {
    failure ??= e;
    return e;
  };
  try {
    await pipeline(
      Readable.fromWeb(body as WebReadableStream<Uint8Array>),
      byteLimit(BATCH_CSV_MAX_BYTES, fail),
      smallChunks(PARSE_BYTES),
      parser,
      async (source: AsyncIterable<string[]>) => {
        try {
          for await (const record of source) {
            if (isBlankRecord(record)) continue;
            rowNumber++;
            if (!header) {
              const read = readRecipientsHeader(record);
              if ('reason' in read) throw new HttpError(400, read.reason);
              header = read;
            } else {
              row(header, record, rowNumber);
              if (pending.length >= CHUNK) await flush();
            }
          }
          await flush();
        } catch (e) {
          throw fail(e);
        }
      },
    );
  } catch (caught) {
    const e = failure ?? caught;
    if (e instanceof TooLargeError || e instanceof HttpError) throw e;
    if (e instanceof CsvError) {
      // the parser runs ahead of the rows consumed here: its own record count is the better position
      const parsed = typeof e.records === 'number' ? e.records : 0;
      throw new HttpError(400, BATCH_MESSAGES.unreadable(Math.max(rowNumber, parsed) + 1));
    }
    throw e;
  }
  if (!header) throw new HttpError(400, BATCH_MESSAGES.emptyFile);
  return { ...result, errors: errors.list() };
}
