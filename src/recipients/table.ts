import { FIELD_SEPARATOR, type RecipientsChunk, ROW_REASONS, type RowStatus } from './parser';

export interface RecipientRow {
  /** spreadsheet row (the header is row 1) */
  row: number;
  /** the normalised phone of a valid row, else what the file holds */
  phone: string;
  /** every cell in header order */
  cells: string[];
  /** why the row will not be called; null for a valid row */
  reason: string | null;
}

/**
 * The rows of a parsed recipients file, kept as the worker sent them (compact chunks), read by index.
 * A lookup is a binary search over the chunks, so a virtualised list can show any of a million rows.
 */
export class RecipientsTable {
  private chunks: RecipientsChunk[] = [];
  private starts: number[] = [];
  private rows = 0;

  constructor(
    readonly columns: string[],
    readonly phoneIndex: number,
  ) {}

  add(chunk: RecipientsChunk): void {
    this.chunks.push(chunk);
    this.starts.push(chunk.first);
    this.rows = chunk.first + chunk.count;
  }

  get size(): number {
    return this.rows;
  }

  /** Indexes of the rows that will not be called (invalid or duplicate), in order. */
  problems(): Uint32Array {
    let n = 0;
    for (const c of this.chunks) for (let i = 0; i < c.count; i++) if (c.status[i] !== 0) n++;
    const out = new Uint32Array(n);
    let k = 0;
    for (const c of this.chunks) for (let i = 0; i < c.count; i++) if (c.status[i] !== 0) out[k++] = c.first + i;
    return out;
  }

  at(index: number): RecipientRow | undefined {
    if (index < 0 || index >= this.rows) return undefined;
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] ?? 0) <= index) lo = mid;
      else hi = mid - 1;
    }
    const chunk = this.chunks[lo];
    if (!chunk) return undefined;
    const i = index - chunk.first;
    const [phone = '', ...raw] = chunk.text.slice(chunk.offsets[i], chunk.offsets[i + 1]).split(FIELD_SEPARATOR);
    const cells = raw.map((c) => c.trim());
    return {
      row: index + 2,
      phone: phone || (cells[this.phoneIndex] ?? ''),
      cells,
      reason: ROW_REASONS[chunk.status[i] as RowStatus],
    };
  }
}
