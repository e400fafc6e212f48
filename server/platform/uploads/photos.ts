import { Worker } from 'node:worker_threads';
import type { PhotoType } from '@contract/account.js';
import { HttpError } from '../http/http.js';
import { concurrencyLimit } from '../jobs/concurrency.js';

/**
 * Uploaded photos are decoded and encoded again (server/platform/uploads/photo.worker.mjs): only the pixels are
 * stored, as a fresh JPEG, PNG or WEBP of the same type. Metadata, comments, extra chunks and bytes after
 * the image — where a polyglot hides its page — never reach the disk.
 *
 * Decoding untrusted images runs off the event loop, in a worker thread per photo, bounded:
 * - dimensions from the header before any pixel buffer exists: at most PHOTO_MAX_PIXELS (16 MP, 4096 x
 *   4096) and PHOTO_MAX_SIDE a side, so a "pixel bomb" (a small file declaring a huge image) is refused;
 * - the worker's V8 heap (resourceLimits) and jpeg-js's own memory cap; pngjs inflates no more than the
 *   declared image (interlaced images are inflated with a bound first);
 * - PHOTO_TIME_LIMIT_MS, after which the worker is terminated;
 * - PHOTO_WORKERS at once, PHOTO_QUEUE_MAX waiting, beyond that 503.
 *
 * This is a small runner of its own (one worker per job: photos are rare, at sign-up); the document
 * parsers of the knowledge base have a pool of their own, and the two can share one later.
 */

export const PHOTO_MAX_PIXELS = 4096 * 4096;
export const PHOTO_MAX_SIDE = 8192;
export const PHOTO_TIME_LIMIT_MS = 10_000;
const PHOTO_WORKERS = 2;
const PHOTO_QUEUE_MAX = 32;
const HEAP_MB = 96;

export type PhotoRefusal = 'unreadable' | 'too-many-pixels' | 'too-complex';

export class PhotoError extends Error {
  constructor(readonly reason: PhotoRefusal) {
    super(reason);
  }
}

const WORKER_URL = new URL('./photo.worker.mjs', import.meta.url);

const slots = concurrencyLimit({
  max: PHOTO_WORKERS,
  queueMax: PHOTO_QUEUE_MAX,
  onFull: () => new HttpError(503, 'Too many photos are being processed right now. Please try again in a moment.'),
});

type WorkerAnswer = { ok: true; bytes: Uint8Array } | { ok: false; reason: PhotoRefusal };

/** Runs one job in a fresh worker: its answer, or PhotoError('too-complex') when it ran out of time or memory. */
function runWorker(job: Record<string, unknown>, transfer: ArrayBuffer[], timeLimitMs: number): Promise<WorkerAnswer> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_URL, {
      resourceLimits: { maxOldGenerationSizeMb: HEAP_MB, maxYoungGenerationSizeMb: 16 },
      stdout: true,
      stderr: true,
    });
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      fn();
    };
    const timer = setTimeout(() => finish(() => reject(new PhotoError('too-complex'))), timeLimitMs);
    worker.once('message', (answer: WorkerAnswer) => finish(() => resolve(answer)));
    // out of memory (ERR_WORKER_OUT_OF_MEMORY) or a crash of the decoder
    worker.once('error', () => finish(() => reject(new PhotoError('too-complex'))));
    worker.once('exit', () => finish(() => reject(new PhotoError('too-complex'))));
    worker.postMessage(job, transfer);
  });
}

/** The photo's pixels encoded again as `type`; throws PhotoError when it cannot or may not be read. */
export function reencodePhoto(bytes: Uint8Array, type: PhotoType, opts: { timeLimitMs?: number } = {}): Promise<Uint8Array> {
  return slots.run(async () => {
    const copy = new Uint8Array(bytes);
    const answer = await runWorker(
      { bytes: copy, type, maxPixels: PHOTO_MAX_PIXELS, maxSide: PHOTO_MAX_SIDE },
      [copy.buffer],
      opts.timeLimitMs ?? PHOTO_TIME_LIMIT_MS,
    );
    if (!answer.ok) throw new PhotoError(answer.reason);
    return answer.bytes;
  });
}
