import { describe, expect, it } from 'vitest';
import { LineSplitter, LineTooLongError } from '../../server/voice/providers/lines.js';

const MiB = 1024 * 1024;
const enc = (text: string) => new TextEncoder().encode(text);

/** `bytes` cut into pieces of `size` bytes (the last one shorter). */
function piecesOf(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
}

/** Feeds every piece; the lines in order. */
function split(splitter: LineSplitter, pieces: Uint8Array[]): string[] {
  return pieces.flatMap((p) => splitter.push(p));
}

describe('LineSplitter: a line dripped in small pieces costs its bytes, not its length times its pieces', () => {
  it('a 1 MB line fed in 512-byte pieces: each byte is looked at once', () => {
    const line = `data: ${'x'.repeat(1_000_000 - 6)}`;
    const input = enc(`${line}\n\nnext\n`);
    const splitter = new LineSplitter(MiB);
    const lines = split(splitter, piecesOf(input, 512));
    expect(lines.map((l) => l.length)).toEqual([1_000_000, 0, 4]);
    expect(lines[0]).toBe(line);
    // linear: the whole answer is looked at once (a rescan of the unfinished line per piece would be
    // ~1950 times more: 2 GB for this 1 MB)
    expect(splitter.scanned).toBeLessThanOrEqual(input.length);
    expect(splitter.scanned).toBeGreaterThanOrEqual(input.length - 1);
  });

  it('a line past the limit is refused by the piece that passes it, not at its end', () => {
    const splitter = new LineSplitter(MiB);
    const piece = enc('x'.repeat(512));
    let fed = 0;
    let error: unknown;
    // a line that would go on for 4 MB and never end
    for (let i = 0; i < (4 * MiB) / 512; i++) {
      try {
        splitter.push(piece);
        fed += 512;
      } catch (e) {
        error = e;
        fed += 512;
        break;
      }
    }
    expect(error).toBeInstanceOf(LineTooLongError);
    expect(fed).toBe(MiB + 512);
    expect(splitter.scanned).toBeLessThanOrEqual(fed);
  });

  it('a line that ends inside the chunk that carries it past the limit is refused too', () => {
    const splitter = new LineSplitter(1000);
    expect(() => splitter.push(enc(`${'y'.repeat(1001)}\n`))).toThrow(LineTooLongError);
    const exact = new LineSplitter(1000);
    expect(exact.push(enc(`${'y'.repeat(1000)}\n`))).toEqual(['y'.repeat(1000)]);
  });

  it('CR, LF and CRLF end lines, a CRLF split across two chunks is one line end', () => {
    const splitter = new LineSplitter(100);
    expect(split(splitter, [enc('a\r'), enc('\nb\rc\n'), enc('\r\nd'), enc('e\r'), enc('f\n')])).toEqual([
      'a',
      'b',
      'c',
      '',
      'de',
      'f',
    ]);
  });

  it('a character split across chunks is decoded whole; many lines in one chunk are each returned', () => {
    const splitter = new LineSplitter(100);
    const bytes = enc('héllo wörld 👋\nzwei\n\ndrei\n');
    expect(split(splitter, piecesOf(bytes, 1))).toEqual(['héllo wörld 👋', 'zwei', '', 'drei']);
    expect(splitter.scanned).toBe(bytes.length);
    const whole = new LineSplitter(100);
    expect(whole.push(enc('\n'.repeat(5000)))).toHaveLength(5000);
  });
});
