/**
 * A concurrency cap: at most `max` tasks run at once, up to `queueMax` more wait their turn (first in,
 * first out), and beyond that `run` refuses at once with the error `onFull()` makes, so a flood can
 * neither pile up unbounded work nor memory.
 *
 *   const hashing = concurrencyLimit({ max: 1, queueMax: 100, onFull: () => new HttpError(503, 'Busy') });
 *   const ok = await hashing.run(() => verify(phc, password));
 */
export interface ConcurrencyLimit {
  run<T>(task: () => Promise<T>): Promise<T>;
  /** tasks running now */
  readonly active: number;
  /** tasks waiting for a slot */
  readonly waiting: number;
}

export function concurrencyLimit(p: { max: number; queueMax: number; onFull: () => Error }): ConcurrencyLimit {
  if (!(p.max >= 1)) throw new Error('concurrencyLimit: max must be at least 1');
  let active = 0;
  const queue: (() => void)[] = [];
  // a finished task hands its slot straight to the next waiting one
  const release = () => {
    const next = queue.shift();
    if (next) next();
    else active--;
  };
  return {
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (active < p.max) active++;
      else if (queue.length >= p.queueMax) throw p.onFull();
      else await new Promise<void>((resolve) => queue.push(resolve));
      try {
        return await task();
      } finally {
        release();
      }
    },
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
  };
}
