import { Transform } from 'node:stream';

/** A streamed upload passed its size limit. */
export class TooLargeError extends Error {}

/** Counts bytes as they stream past and fails as soon as the limit is crossed (nothing is buffered). */
export function byteLimit(max: number, onError?: (e: Error) => void) {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.byteLength;
      if (seen <= max) return done(null, chunk);
      const e = new TooLargeError();
      onError?.(e);
      done(e);
    },
  });
}
