/**
 * The server's CSV downloads (Call History's Export, a batch's recipients): streamed a batch of rows at a
 * time, each batch read when the client has taken the previous one (the stream's pull), the event loop
 * turning between batches, so a million rows never sit in memory. Every cell goes through the one CSV
 * writer (src/api/contract/csv.ts: formula-safe, RFC 4180 quoting). The browser downloads through a plain
 * link signed for the company and one purpose, valid EXPORT_LINK_TTL_S.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { type CsvValue, csvCell } from '@contract/csv.js';
import { yieldToLoop } from '../jobs/cooperative.js';

export const EXPORT_LINK_TTL_S = 300;
export const EXPORT_LINK_EXPIRED = 'This export link has expired. Export again.';

/** One CSV record, CRLF-terminated (RFC 4180). */
export const csvLine = (cells: readonly CsvValue[]) => `${cells.map(csvCell).join(',')}\r\n`;

/**
 * The header, then the records `next` answers batch by batch until it answers null (or an empty batch
 * with `done`); each call of `next` comes after the previous batch was taken.
 */
export function csvStream(
  header: readonly CsvValue[],
  next: () => Promise<{ records: readonly (readonly CsvValue[])[]; done: boolean }>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let started = false;
  let done = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          if (!started) {
            started = true;
            controller.enqueue(encoder.encode(csvLine(header)));
            return;
          }
          if (done) {
            controller.close();
            return;
          }
          await yieldToLoop();
          const batch = await next();
          done = batch.done;
          const text = batch.records.map(csvLine).join('');
          if (text) controller.enqueue(encoder.encode(text));
          else if (done) controller.close();
        } catch (e) {
          controller.error(e);
        }
      },
    },
    { highWaterMark: 1 },
  );
}

/** The headers of a CSV download named `filename`. */
export const csvHeaders = (filename: string) => ({
  'Content-Type': 'text/csv; charset=utf-8',
  'Content-Disposition': `attachment; filename="${filename}"`,
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
});

const sign = (key: Uint8Array, purpose: string, companyId: string, exp: number) =>
  createHmac('sha256', key).update(`${purpose}.${companyId}.${exp}`).digest('base64url');

/** A download token for the company and one purpose (e.g. 'call-export'), valid EXPORT_LINK_TTL_S. */
export function exportToken(key: Uint8Array, purpose: string, companyId: string, nowMs: number): string {
  const exp = Math.floor(nowMs / 1000) + EXPORT_LINK_TTL_S;
  return `${companyId}.${exp}.${sign(key, purpose, companyId, exp)}`;
}

/** The company a valid, unexpired token of this purpose was made for, or null. */
export function checkExportToken(key: Uint8Array, purpose: string, token: string, nowMs: number): string | null {
  const [companyId, expText, sig] = token.split('.');
  const exp = Number(expText);
  if (!companyId || !sig || !Number.isInteger(exp) || exp * 1000 < nowMs) return null;
  const want = Buffer.from(sign(key, purpose, companyId, exp));
  const got = Buffer.from(sig);
  return want.length === got.length && timingSafeEqual(want, got) ? companyId : null;
}
