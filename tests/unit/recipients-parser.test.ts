import { describe, expect, it } from 'vitest';
import {
  BATCH_CSV_MAX_BYTES,
  BATCH_MESSAGES,
  batchEstimate,
  checkRecipientsFile,
  normalizePhone,
  recipientVariables,
} from '../../src/api/contract/batch.js';
import { CHUNK_ROWS, RecipientsFileError, readRecipientsText } from '../../src/recipients/parser.js';
import { RecipientsTable } from '../../src/recipients/table.js';
import { RECIPIENTS_CSV, RECIPIENTS_EXPECTED } from '../fixtures/recipients.js';

/** Everything the browser makes of a CSV text: the summary and every row through the table. */
function read(text: string, pieceSize?: number) {
  const { summary, chunks } = readRecipientsText(text, pieceSize);
  const table = new RecipientsTable(summary.columns, summary.phoneIndex);
  for (const c of chunks) table.add(c);
  const rows = Array.from({ length: table.size }, (_, i) => table.at(i)!);
  return { summary, chunks, table, rows };
}

/** The rows the server stores: valid ones with their variables. */
function stored(r: ReturnType<typeof read>) {
  const header = { columns: r.summary.columns, phoneIndex: r.summary.phoneIndex };
  return r.rows
    .filter((row) => row.reason === null)
    .map((row) => ({ row: row.row, phone: row.phone, variables: recipientVariables(header, row.cells) }));
}

describe('recipients parser (browser worker)', () => {
  it('applies the same rules as the server to the shared fixture', () => {
    const r = read(RECIPIENTS_CSV);
    const { recipients, columns, ...counts } = RECIPIENTS_EXPECTED;
    expect(r.summary).toMatchObject({ columns, ...counts });
    expect(r.summary.reasons).toEqual([
      { reason: BATCH_MESSAGES.invalidPhone, count: 1 },
      { reason: BATCH_MESSAGES.missingPhone, count: 1 },
      { reason: BATCH_MESSAGES.duplicatePhone, count: 1 },
    ]);
    expect(stored(r)).toEqual(recipients);
    // invalid rows keep what the file holds, with their reason
    expect(r.rows.map((row) => [row.row, row.phone, row.reason])).toEqual([
      [2, '+14155550111', null],
      [3, '+14155550112', null],
      [4, '4155550111', BATCH_MESSAGES.duplicatePhone],
      [5, '', BATCH_MESSAGES.missingPhone],
      [6, '12345', BATCH_MESSAGES.invalidPhone],
      [7, '+442079460958', null],
      [8, '+14155550113', null],
    ]);
  });

  it('gives the same answer however the text is cut into pieces', () => {
    const whole = read(RECIPIENTS_CSV);
    for (const size of [1, 2, 3, 7, 13, 64]) {
      const cut = read(RECIPIENTS_CSV, size);
      expect(cut.summary, `pieces of ${size}`).toEqual(whole.summary);
      expect(cut.rows, `pieces of ${size}`).toEqual(whole.rows);
    }
  });

  it('reads \\n, \\r\\n and \\r line ends, quoted newlines and ragged rows', () => {
    for (const nl of ['\n', '\r\n', '\r']) {
      const r = read(['phone_number,note', '+14155550111,"two', 'lines"', '+14155550112', '+14155550113,a,extra'].join(nl));
      expect(r.summary).toMatchObject({ total: 3, valid: 3 });
      expect(r.rows.map((row) => row.cells)).toEqual([
        ['+14155550111', `two${nl}lines`],
        ['+14155550112', ''],
        ['+14155550113', 'a'],
      ]);
    }
  });

  it('keeps a cell that holds the internal field separator apart from its neighbours', () => {
    const r = read('phone_number,note\n+14155550111,a\u001fb\n');
    expect(r.rows[0]?.cells).toEqual(['+14155550111', 'a b']);
  });

  it('refuses a file the server would refuse, with the same message', () => {
    const refused: [string, string][] = [
      ['name,phone\nAda,+14155550111\n', BATCH_MESSAGES.missingPhoneColumn],
      ['phone_number,a,a\n+14155550111,1,2\n', BATCH_MESSAGES.duplicateColumn('a')],
      ['', BATCH_MESSAGES.emptyFile],
      ['\n \n,,\n', BATCH_MESSAGES.emptyFile],
      ['phone_number\n"+14155550112\n', BATCH_MESSAGES.unreadable(2)],
      [`phone_number\n${'9'.repeat(70_000)}\n`, BATCH_MESSAGES.unreadable(2)],
    ];
    for (const [text, msg] of refused) {
      for (const size of [1 << 20, 5]) {
        expect(() => read(text, size), `${text.slice(0, 30)} / ${size}`).toThrow(new RecipientsFileError(msg));
      }
    }
  });

  it('keeps large files in compact chunks, flags duplicates across them and caps the error list', () => {
    const n = CHUNK_ROWS * 2 + 500;
    const lines = ['phone_number,name'];
    for (let i = 0; i < n; i++) lines.push(`+1415${String(5000000 + i)},Name ${i}`);
    lines.push('+14155000000,again', 'nope,bad');
    for (let i = 0; i < 150; i++) lines.push(',missing');
    const r = read(lines.join('\n'), 4096);
    expect(r.chunks.map((c) => c.count)).toEqual([CHUNK_ROWS, CHUNK_ROWS, 652]);
    expect(r.summary).toMatchObject({ total: n + 152, valid: n, invalid: 151, duplicates: 1 });
    expect(r.summary.errors).toHaveLength(100);
    expect(r.summary.errors[0]).toEqual({ row: n + 2, reason: BATCH_MESSAGES.duplicatePhone });
    expect(r.table.at(CHUNK_ROWS + 7)).toEqual({
      row: CHUNK_ROWS + 9,
      phone: `+1415${5000000 + CHUNK_ROWS + 7}`,
      cells: [`+1415${5000000 + CHUNK_ROWS + 7}`, `Name ${CHUNK_ROWS + 7}`],
      reason: null,
    });
    expect([...r.table.problems()]).toEqual([n, n + 1, ...Array.from({ length: 150 }, (_, i) => n + 2 + i)]);
    expect(r.table.at(-1)).toBeUndefined();
    expect(r.table.at(r.table.size)).toBeUndefined();
  });
});

describe('shared recipients rules', () => {
  it('normalises phones to E.164', () => {
    expect(normalizePhone('(415) 555-0111')).toBe('+14155550111');
    expect(normalizePhone('1-415-555-0111')).toBe('+14155550111');
    expect(normalizePhone('0044 20 7946 0958')).toBe('+442079460958');
    expect(normalizePhone('+44 (0)20 7946 0958')).toBe('+442079460958');
    expect(normalizePhone('+1 015 555 0111')).toBeNull();
    expect(normalizePhone('12345')).toBeNull();
    expect(normalizePhone('+1234567890123456')).toBeNull();
  });

  it('checks a file before reading it: CSV only, at most 50 MB', () => {
    const csv = { name: 'list.csv', size: 100, type: 'text/csv' };
    expect(checkRecipientsFile(csv)).toBeNull();
    expect(checkRecipientsFile({ ...csv, type: '' })).toBeNull();
    expect(checkRecipientsFile({ ...csv, name: 'list', type: 'text/csv' })).toBeNull();
    expect(checkRecipientsFile({ ...csv, size: BATCH_CSV_MAX_BYTES })).toBeNull();
    expect(checkRecipientsFile({ ...csv, size: BATCH_CSV_MAX_BYTES + 1 })).toBe(BATCH_MESSAGES.tooLarge);
    expect(checkRecipientsFile({ name: 'list.xlsx', size: 100, type: 'application/vnd.ms-excel' })).toBe(BATCH_MESSAGES.notCsv);
    expect(checkRecipientsFile({ name: 'notes.txt', size: 100, type: 'text/plain' })).toBe(BATCH_MESSAGES.notCsv);
    expect(checkRecipientsFile({ ...csv, size: 0 })).toBe(BATCH_MESSAGES.emptyFile);
  });

  it('estimates time from the concurrency limit and cost at $0.005 per dial', () => {
    expect(batchEstimate(1000, 10)).toEqual({ seconds: 100 * 120, cost: 5 });
    expect(batchEstimate(997, 10)).toEqual({ seconds: 100 * 120, cost: 4.99 });
    expect(batchEstimate(1, 50)).toEqual({ seconds: 120, cost: 0.01 });
    expect(batchEstimate(0, 10)).toEqual({ seconds: 0, cost: 0 });
  });
});
