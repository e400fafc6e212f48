import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BATCH_TEMPLATE_CSV } from '../../../src/api/contract/batch.js';
import { csvCell, FORMULA_START, toCsv, unescapeCsvCell } from '../../../src/api/contract/csv.js';
import { buildTestApp, DB_KINDS } from '../helpers.js';
import { call } from '../seed.js';
import { ROUTES, splitRoute } from './matrix.js';
import { buildTenant, ownUrl, providerHttp } from './world.js';

/**
 * Exports: every CSV the product writes escapes cells that a spreadsheet would run as a formula
 * (`=`, `+`, `-`, `@`, tab, carriage return). The CSV answers are found by asking every GET route of the
 * app (signed in, with the caller's own ids) and keeping those answering text/csv, so a new export is
 * checked without editing this file.
 */

const cells = (csv: string) => (parse(csv, { relax_column_count: true }) as string[][]).flat();

describe('security: CSV escaping (src/api/contract/csv.ts)', () => {
  it('neutralises every formula start and reads back the original value', () => {
    const risky = fc.tuple(fc.constantFrom('=', '+', '-', '@', '\t', '\r'), fc.string()).map(([a, b]) => a + b);
    const value = fc.oneof(
      fc.string(),
      risky,
      fc.constantFrom('=HYPERLINK("http://evil","x")', '@SUM(1+1)*cmd|/C calc!A0', '"quoted", and, commas\n'),
    );
    fc.assert(
      fc.property(fc.array(fc.array(value, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 5 }), (rows) => {
        const parsed = parse(toCsv(rows), { relax_column_count: true }) as string[][];
        expect(parsed).toHaveLength(rows.length);
        parsed.forEach((row, i) => {
          row.forEach((cell, j) => {
            expect(cell).not.toMatch(FORMULA_START);
            expect(unescapeCsvCell(cell)).toBe(rows[i]?.[j]);
          });
        });
      }),
      { numRuns: 300, seed: 3 },
    );
    expect(csvCell('=1+1')).toBe("'=1+1");
    expect(csvCell('-5')).toBe("'-5");
    expect(csvCell('\tx')).toBe("'\tx");
    expect(csvCell('\rx')).toBe('"\'\rx"');
    expect(csvCell('plain')).toBe('plain');
  });
});

for (const kind of DB_KINDS) {
  describe(`security: CSV exports [${kind}]`, () => {
    it('every CSV answer of the app has no cell a spreadsheet would run, and the template still reads back', async () => {
      const t = await buildTestApp(kind, { http: providerHttp() });
      try {
        const a = await buildTenant(t, 'CSV');
        const csvs: string[] = [];
        for (const key of Object.keys(ROUTES)) {
          const { method, path } = splitRoute(key);
          if (method !== 'GET' || path.endsWith('/logout')) continue;
          const url = ownUrl(a, path);
          const res = await t.req('GET', url, { token: a.token });
          if ((res.headers.get('content-type') ?? '').startsWith('text/csv')) {
            csvs.push(url);
            for (const cell of cells(await res.text())) expect(cell, `${url}: ${cell}`).not.toMatch(FORMULA_START);
          }
        }
        expect(csvs).toEqual(['/api/v1/batch-call/template.csv', `/api/v1/batch-call/${a.batchId}/recipients.csv`]);
        expect(BATCH_TEMPLATE_CSV).toContain("'+14155550123");

        // the template, uploaded as it is, gives its one recipient
        const upload = await call(t, 'POST', `/batch-call/${a.batchId}/recipients`, {
          token: a.token,
          body: BATCH_TEMPLATE_CSV,
          headers: { 'Content-Type': 'text/csv' },
        });
        expect(upload.status).toBe(200);
        expect(upload.body).toMatchObject({ valid: 1, invalid: 0 });
        const rows = await call(t, 'GET', `/batch-call/${a.batchId}/recipients`, { token: a.token });
        expect(rows.body.data.recipients).toEqual([{ row: 2, phone: '+14155550123', variables: { first_name: 'Ada' } }]);
      } finally {
        await t.close();
      }
    }, 60_000);
  });
}
