/**
 * A provider's byte stream cut into lines in linear time (the Server-Sent Events of http-stream.ts).
 *
 * Each byte is looked at once, when its chunk arrives: the scan starts where the chunk starts, never at the
 * start of the unfinished line, and that line is kept as the list of its pieces (joined once, when it ends).
 * So a line dripped in small pieces costs what its bytes cost, not its length times the number of pieces.
 * A line longer than the limit is refused as soon as its bytes pass the limit, not when it ends.
 *
 * CR, LF and CRLF end a line (the event-stream grammar's `end-of-line`,
 * https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream), a CRLF split
 * across two chunks too. UTF-8 has no CR or LF
 * byte inside a character, so each line is decoded whole (a character split across chunks stays intact).
 */

const LF = 0x0a;
const CR = 0x0d;

export class LineTooLongError extends Error {
  constructor(readonly limit: number) {
    super(`a line is longer than ${limit} bytes`);
    this.name = 'LineTooLongError';
  }
}

export class LineSplitter {
  /** bytes looked at for a line end so far (each byte received once: the work is linear) */
  scanned = 0;
  /** the pieces of the unfinished line, and their length in bytes */
  private pieces: Buffer[] = [];
  private pending = 0;
  /** the last chunk ended with CR: an LF first in the next one belongs to that line end */
  private afterCr = false;

  constructor(readonly maxLineBytes: number) {}

  /** The lines `chunk` completes, in order, without their line ends. Throws LineTooLongError. */
  push(chunk: Uint8Array): string[] {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const lines: string[] = [];
    let start = this.afterCr && bytes[0] === LF ? 1 : 0;
    if (bytes.length > 0) this.afterCr = false;
    let i = start;
    try {
      for (; i < bytes.length; i++) {
        const byte = bytes[i];
        if (byte !== LF && byte !== CR) continue;
        lines.push(this.take(bytes, start, i));
        if (byte === CR) {
          if (i + 1 === bytes.length) this.afterCr = true;
          else if (bytes[i + 1] === LF) i++;
        }
        start = i + 1;
      }
    } finally {
      this.scanned += i;
    }
    if (start < bytes.length) {
      this.pending += bytes.length - start;
      if (this.pending > this.maxLineBytes) throw new LineTooLongError(this.maxLineBytes);
      this.pieces.push(bytes.subarray(start));
    }
    return lines;
  }

  /** The unfinished line ended at bytes[end]: the whole line, decoded. */
  private take(bytes: Buffer, start: number, end: number): string {
    const length = this.pending + end - start;
    if (length > this.maxLineBytes) throw new LineTooLongError(this.maxLineBytes);
    if (this.pieces.length === 0) return bytes.toString('utf8', start, end);
    this.pieces.push(bytes.subarray(start, end));
    const line = Buffer.concat(this.pieces, length).toString('utf8');
    this.pieces = [];
    this.pending = 0;
    return line;
  }
}
