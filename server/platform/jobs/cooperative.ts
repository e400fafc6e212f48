/**
 * Long work on the event loop in bounded steps: whatever arrives in one piece (a whole in-memory request
 * body, a 64 KB socket read of tiny CSV rows) is handled a slice at a time, and the loop turns between
 * slices, so timers, other requests and live audio keep their turn.
 */
import { Transform } from 'node:stream';

/** Lets the event loop run (I/O, timers) before going on. */
export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Passes a stream's bytes on in chunks of at most `max` bytes, letting the event loop turn between them. */
export function smallChunks(max = 64 * 1024): Transform {
  return new Transform({
    async transform(chunk: Buffer, _encoding, done) {
      try {
        for (let at = 0; at < chunk.length; at += max) {
          if (at > 0) await yieldToLoop();
          this.push(chunk.subarray(at, at + max));
        }
        done();
      } catch (e) {
        done(e as Error);
      }
    },
  });
}
