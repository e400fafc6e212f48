/**
 * The recipients CSV reader that runs in the browser's worker (./worker.ts). It is platform-neutral
 * (no DOM, no worker API) so unit tests drive it with plain strings.
 *
 * Text arrives in pieces (`push(text)`, then `end()`); papaparse's low-level Parser reads every complete
 * record and the unfinished tail waits for the next piece, the way papaparse's own streamers do. The
 * rules are the contract's (src/api/contract/batch.ts), the same the server applies on upload:
 * readRecipientsHeader, isBlankRecord, checkRecipientPhone (inlined: normalizePhone, blank = missing), and
 * duplicates of a normalised phone.
 *
 * Rows leave in compact chunks (one flat array of cells per chunk, a byte of status per row) so a
 * million rows cross to the page in small, cheap messages.
 */
import Papa from 'papaparse';
import {
  BATCH_ERRORS_MAX,
  BATCH_MESSAGES,
  isBlankRecord,
  normalizePhone,
  RECIPIENT_RECORD_MAX_CHARS,
  type RecipientsHeader,
  readRecipientsHeader,
} from '../api/contract/batch';
import { PhoneSet } from './phone-set';

/** Status of a row, one byte each. */
export const ROW_STATUS = { valid: 0, missing: 1, invalid: 2, duplicate: 3 } as const;
export type RowStatus = (typeof ROW_STATUS)[keyof typeof ROW_STATUS];

export const ROW_REASONS: Record<RowStatus, string | null> = {
  0: null,
  1: BATCH_MESSAGES.missingPhone,
  2: BATCH_MESSAGES.invalidPhone,
  3: BATCH_MESSAGES.duplicatePhone,
};

/** Separates the fields of a row inside a chunk's text (removed from the cells themselves). */
export const FIELD_SEPARATOR = '\u001f';

/**
 * Consecutive data rows. Row `i` of the chunk is data row `first + i`, spreadsheet row `first + i + 2`.
 * Its text is `text.slice(offsets[i], offsets[i + 1])`: the normalised phone ('' unless valid), then
 * every cell in header order (short rows padded with ''), joined by FIELD_SEPARATOR. One string and
 * two typed arrays per chunk: cheap to post to the page and small in memory.
 */
export interface RecipientsChunk {
  first: number;
  count: number;
  text: string;
  /** count + 1 positions in `text` */
  offsets: Uint32Array;
  status: Uint8Array;
}

export interface RecipientsSummary {
  columns: string[];
  phoneIndex: number;
  /** data rows read (blank records skipped) */
  total: number;
  valid: number;
  invalid: number;
  duplicates: number;
  /** how many rows have each reason */
  reasons: { reason: string; count: number }[];
  /** the first BATCH_ERRORS_MAX rows with a problem */
  errors: { row: number; reason: string }[];
}

export interface RecipientsSink {
  header(header: RecipientsHeader): void;
  chunk(chunk: RecipientsChunk): void;
}

export class RecipientsFileError extends Error {}

/** Rows per chunk handed to the sink. */
export const CHUNK_ROWS = 20_000;

function guessNewline(text: string): '\r\n' | '\n' | '\r' {
  const lf = text.indexOf('\n');
  if (lf > 0 && text[lf - 1] === '\r') return '\r\n';
  if (lf >= 0) return '\n';
  return text.includes('\r') ? '\r' : '\n';
}

export function createRecipientsReader(sink: RecipientsSink) {
  let parser: Papa.Parser | undefined;
  let tail = '';
  let base = 0;
  let header: RecipientsHeader | undefined;
  let width = 0;
  const seen = new PhoneSet();
  const counts = { total: 0, valid: 0, missing: 0, invalid: 0, duplicate: 0 };
  const errors: { row: number; reason: string }[] = [];
  let chunk: { first: number; count: number; parts: string[]; offsets: Uint32Array; status: Uint8Array } | undefined;
  let ended = false;
  /** whether the text being parsed holds FIELD_SEPARATOR at all (almost never): then cells are cleaned */
  let separatorInText = false;

  const flush = () => {
    if (chunk && chunk.count > 0) {
      sink.chunk({
        first: chunk.first,
        count: chunk.count,
        text: chunk.parts.join(''),
        offsets: chunk.offsets.slice(0, chunk.count + 1),
        status: chunk.status.slice(0, chunk.count),
      });
    }
    chunk = undefined;
  };

  const addRow = (h: RecipientsHeader, record: string[]) => {
    if (!chunk) {
      const offsets = new Uint32Array(CHUNK_ROWS + 1);
      chunk = { first: counts.total, count: 0, parts: [], offsets, status: new Uint8Array(CHUNK_ROWS) };
    }
    const row = counts.total + 2;
    counts.total++;
    // checkRecipientPhone's rules, without an object per row
    const raw = record[h.phoneIndex] ?? '';
    const normal = normalizePhone(raw);
    let status: RowStatus = ROW_STATUS.valid;
    let phone = '';
    if (normal === null) status = raw.trim() === '' ? ROW_STATUS.missing : ROW_STATUS.invalid;
    else if (!seen.add(normal)) status = ROW_STATUS.duplicate;
    else phone = normal;
    if (status === ROW_STATUS.valid) counts.valid++;
    else if (status === ROW_STATUS.missing) counts.missing++;
    else if (status === ROW_STATUS.invalid) counts.invalid++;
    else counts.duplicate++;
    const reason = ROW_REASONS[status];
    if (reason && errors.length < BATCH_ERRORS_MAX) errors.push({ row, reason });
    // the cells as they are (trimmed when shown); a row of another width is cut or padded to the header's
    const cells = record.length === width ? record : Array.from({ length: width }, (_, i) => record[i] ?? '');
    const text = separatorInText
      ? [phone, ...cells.map((c) => c.replaceAll(FIELD_SEPARATOR, ' '))].join(FIELD_SEPARATOR)
      : `${phone}${FIELD_SEPARATOR}${cells.join(FIELD_SEPARATOR)}`;
    chunk.parts.push(text);
    chunk.offsets[chunk.count + 1] = (chunk.offsets[chunk.count] ?? 0) + text.length;
    chunk.status[chunk.count] = status;
    chunk.count++;
    if (chunk.count === CHUNK_ROWS) flush();
  };

  const records = (rows: string[][]) => {
    for (const record of rows) {
      if (isBlankRecord(record)) continue;
      if (record.reduce((n, cell) => n + cell.length, 0) > RECIPIENT_RECORD_MAX_CHARS) {
        throw new RecipientsFileError(BATCH_MESSAGES.unreadable(counts.total + (header ? 2 : 1)));
      }
      if (!header) {
        const read = readRecipientsHeader(record);
        if ('reason' in read) throw new RecipientsFileError(read.reason);
        header = read;
        width = read.columns.length;
        sink.header(read);
      } else addRow(header, record);
    }
  };

  const parse = (last: boolean) => {
    if (!parser) {
      if (tail === '' && !last) return;
      parser = new Papa.Parser({ delimiter: ',', newline: guessNewline(tail) });
    }
    const input = tail;
    separatorInText = input.includes(FIELD_SEPARATOR);
    const result = parser.parse(input, base, !last) as {
      data: string[][];
      errors: { code: string; row: number }[];
      meta: { cursor: number };
    };
    const broken = result.errors.find((e) => e.code === 'MissingQuotes' || e.code === 'InvalidQuotes');
    if (broken) {
      // papaparse would carry on; the server refuses such a file, so the page refuses it too
      records(result.data.slice(0, broken.row));
      throw new RecipientsFileError(BATCH_MESSAGES.unreadable(counts.total + (header ? 2 : 1)));
    }
    records(result.data);
    if (!last) {
      tail = input.substring(result.meta.cursor - base);
      base = result.meta.cursor;
      if (tail.length > RECIPIENT_RECORD_MAX_CHARS) {
        throw new RecipientsFileError(BATCH_MESSAGES.unreadable(counts.total + (header ? 2 : 1)));
      }
    } else tail = '';
  };

  return {
    /** More text of the file (in order). Throws RecipientsFileError for a file that cannot be used. */
    push(text: string) {
      if (ended) throw new Error('push after end');
      tail += text;
      parse(false);
    },
    /** The end of the file: reads the last record and answers the summary. */
    end(): RecipientsSummary {
      ended = true;
      parse(true);
      flush();
      if (!header) throw new RecipientsFileError(BATCH_MESSAGES.emptyFile);
      const reasons = [
        { reason: BATCH_MESSAGES.invalidPhone, count: counts.invalid },
        { reason: BATCH_MESSAGES.missingPhone, count: counts.missing },
        { reason: BATCH_MESSAGES.duplicatePhone, count: counts.duplicate },
      ].filter((r) => r.count > 0);
      errors.sort((a, b) => a.row - b.row);
      return {
        columns: header.columns,
        phoneIndex: header.phoneIndex,
        total: counts.total,
        valid: counts.valid,
        invalid: counts.invalid + counts.missing,
        duplicates: counts.duplicate,
        reasons,
        errors,
      };
    },
  };
}

/** Reads a whole CSV text at once (tests, small files). */
export function readRecipientsText(text: string, pieceSize = 1 << 20) {
  const chunks: RecipientsChunk[] = [];
  let header: RecipientsHeader | undefined;
  const reader = createRecipientsReader({ header: (h) => (header = h), chunk: (c) => chunks.push(c) });
  for (let i = 0; i < text.length; i += pieceSize) reader.push(text.slice(i, i + pieceSize));
  const summary = reader.end();
  return { summary, chunks, header };
}
