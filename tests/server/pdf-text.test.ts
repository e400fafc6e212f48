import fs from 'node:fs';
import { createRequire } from 'node:module';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { hookDecodeStreams, pdfText } from '../../server/platform/workers/pdf-text.js';
import { flateBombPdf } from '../fixtures/hostile.js';
import { makePdf } from '../fixtures/pdf.js';

const MiB = 1024 * 1024;
const roomy = { maxDecodedBytes: 64 * MiB, maxTextChars: 10 * MiB };

/** A one-page PDF whose content stream (FlateDecode) shows `lines`, each its own text operator. */
function compressedPdf(lines: number): Buffer {
  const content = Array.from({ length: lines }, (_, i) => `BT /F1 12 Tf 72 720 Td (line ${i}) Tj ET`).join('\n');
  const data = zlib.deflateSync(content);
  const base = makePdf([['placeholder']]).toString('latin1');
  // swap the plain content stream of makePdf for the compressed one (pdf.js rebuilds the xref)
  const swapped = base.replace(
    /<< \/Length \d+ >>\nstream\n[\s\S]*?\nendstream/,
    () => `<< /Length ${data.length} /Filter /FlateDecode >>\nstream\n${data.toString('latin1')}\nendstream`,
  );
  return Buffer.from(swapped, 'latin1');
}

describe('PDF text with a decode budget', () => {
  it('reads the text layer of each page', async () => {
    const read = await pdfText(new Uint8Array(makePdf([['Hello', 'world'], ['Page two']])), roomy);
    expect(read).toEqual({ ok: true, pages: ['Hello\nworld', 'Page two'] });
    expect(await pdfText(new Uint8Array(Buffer.from('%PDF-1.7 nothing')), roomy)).toEqual({ ok: false, reason: 'unreadable' });
  });

  it('stops a stream that decodes past the budget: a 170 MB Flate bomb, and one under two Flate layers', async () => {
    const limits = { maxDecodedBytes: 2 * MiB, maxTextChars: 10 * MiB };
    const bomb = flateBombPdf();
    expect(bomb.length).toBeLessThan(600 * 1024);
    expect(await pdfText(new Uint8Array(bomb), limits)).toEqual({ ok: false, reason: 'too-complex' });
    const layered = flateBombPdf(170 * MiB, 2);
    expect(layered.length).toBeLessThan(4 * 1024);
    expect(await pdfText(new Uint8Array(layered), limits)).toEqual({ ok: false, reason: 'too-complex' });
  });

  it('counts the bytes decoded, whatever the file size: the same document passes a larger budget', async () => {
    // about 1.6 MB of content in a file of about 100 KB (pdf.js takes the bytes it is given: one copy each)
    const pdf = () => new Uint8Array(compressedPdf(40_000));
    expect(await pdfText(pdf(), { maxDecodedBytes: MiB, maxTextChars: 10 * MiB })).toEqual({ ok: false, reason: 'too-complex' });
    const read = await pdfText(pdf(), { maxDecodedBytes: 8 * MiB, maxTextChars: 10 * MiB });
    expect(read.ok && read.pages[0]?.split('line').length).toBe(40_001);
  });

  it('fails a document whose text passes the character limit', async () => {
    const lines = Array.from({ length: 10 }, () => 'x'.repeat(30));
    expect(await pdfText(new Uint8Array(makePdf([lines])), { maxDecodedBytes: MiB, maxTextChars: 400 })).toEqual({
      ok: true,
      pages: [lines.join('\n')],
    });
    expect(await pdfText(new Uint8Array(makePdf([lines])), { maxDecodedBytes: MiB, maxTextChars: 200 })).toEqual({
      ok: false,
      reason: 'too-complex',
    });
  });

  it("installs its hook in pdf.js's DecodeStream exactly once, and refuses a pdf.js without the expected code", () => {
    const file = createRequire(import.meta.url).resolve('pdfjs-dist/legacy/build/pdf.worker.mjs');
    const source = fs.readFileSync(file, 'utf8');
    const hooked = hookDecodeStreams(source);
    expect(hooked.split('globalThis.__parleyPdfDecode(this, requested)').length).toBe(2);
    expect(() =>
      hookDecodeStreams(source.replace('ensureBuffer(requested) {\n    const buffer', 'ensureBuffer(n) {\n    const buffer')),
    ).toThrow('pdf.js changed');
  });
});
