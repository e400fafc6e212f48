import type { AppDeps } from '../deps.js';

/**
 * Work that runs after the answer has gone (emails, the forgot-password lookup), so its duration never
 * shows in the answer's latency. It starts on the next turn of the event loop; a failure is logged with
 * `what` and its message (never the work's data). `settled(deps)` waits for all of it (tests, shutdown).
 */
const inFlight = new WeakMap<AppDeps, Set<Promise<void>>>();

export function runLater(deps: AppDeps, what: string, work: () => Promise<void>): void {
  const running = inFlight.get(deps) ?? new Set<Promise<void>>();
  inFlight.set(deps, running);
  const p: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
    .then(work)
    .catch((e: unknown) => {
      deps.logger.error(`${what} failed`, { error: e instanceof Error ? e.message : String(e) });
    })
    .finally(() => running.delete(p));
  running.add(p);
}

/** Resolves once every piece of work started with runLater for `deps` (including work it started) is done. */
export async function settled(deps: AppDeps): Promise<void> {
  const running = inFlight.get(deps);
  while (running && running.size > 0) await Promise.allSettled([...running]);
}
