/**
 * CSV the product writes (today: the recipients template; any future export goes through here too).
 * Spreadsheets run a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return as a formula
 * (CSV injection), so such a cell gets a leading apostrophe, the escape spreadsheets themselves use;
 * readers of our own files (the recipients CSV rules) take it off again. Cells with a comma, a quote or a
 * line break are quoted (RFC 4180).
 */

export type CsvValue = string | number | boolean | null | undefined;

/** A cell a spreadsheet would read as a formula. */
export const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell, neutralised and quoted as needed. */
export function csvCell(value: CsvValue): string {
  let s = value === null || value === undefined ? '' : String(value);
  if (FORMULA_START.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** Rows of cells as CSV text, one `\n`-terminated line per row. */
export function toCsv(rows: readonly (readonly CsvValue[])[]): string {
  return rows.map((row) => `${row.map(csvCell).join(',')}\n`).join('');
}

/** A cell as it was before csvCell neutralised it (the apostrophe before a formula character removed). */
export function unescapeCsvCell(cell: string): string {
  return cell.startsWith("'") && FORMULA_START.test(cell.slice(1)) ? cell.slice(1) : cell;
}
