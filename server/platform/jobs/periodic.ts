/**
 * Periodic jobs: the sweeps every server runs on a timer (expired sessions and tokens,
 * server/modules/auth/sweep.ts; calls nobody will finish and the heartbeats of live calls,
 * server/modules/conversations/sweep.ts; what interrupted uploads left,
 * server/platform/uploads/pending-uploads.ts). Their writes are conditional, so servers sharing a
 * database may run them at the same time; a periodic job only makes sure one server never runs two of its
 * own passes at once, and that passes do not pile up behind a slow one (a tick during a pass is skipped).
 *
 *   const sweeper = definePeriodicJob(deps, { name: 'expiry sweep', everyMs: 300_000, run: () => sweep() });
 *   sweeper.start();            // a first pass now (unless atStart is false), then one every everyMs
 *   await sweeper.stop();       // no new pass; the one under way ends first
 *
 * A pass answers counts; when one of them is above zero it is logged with `logAs` (counts only, never
 * rows). A failed pass is logged with its message and the next one tries again. The timer does not keep
 * the process alive. Time between passes is the real time (setInterval); the passes read `deps.clock`.
 */
import type { Logger } from '../log/logger.js';

export interface PeriodicJobSpec {
  /** for the log: 'expiry sweep' */
  name: string;
  everyMs: number;
  /** a first pass at start (default true) */
  atStart?: boolean;
  /** one pass; `first` is true for the pass at start */
  run: (pass: { first: boolean }) => Promise<Record<string, number>>;
  /** the log message of a pass that counted something (none: not logged) */
  logAs?: string;
  /** how a failed pass is logged (default error) */
  failureLevel?: 'warn' | 'error';
}

export interface PeriodicJob {
  start(): void;
  /** Resolves once the passes asked for so far have ended. */
  idle(): Promise<void>;
  /** Runs one pass now, after the one under way; resolves when it has ended. */
  runNow(): Promise<void>;
  stop(): Promise<void>;
}

export function definePeriodicJob(deps: { logger: Logger }, spec: PeriodicJobSpec): PeriodicJob {
  let running: Promise<void> = Promise.resolve();
  let busy = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;
  let first = true;
  const pass = (): Promise<void> => {
    busy++;
    running = running.then(async () => {
      const isFirst = first;
      first = false;
      try {
        const counts = await spec.run({ first: isFirst });
        if (spec.logAs && Object.values(counts).some((n) => n > 0)) deps.logger.info(spec.logAs, counts);
      } catch (e) {
        deps.logger[spec.failureLevel ?? 'error'](`${spec.name} failed`, { error: e instanceof Error ? e.message : String(e) });
      } finally {
        busy--;
      }
    });
    return running;
  };
  return {
    start() {
      if (!stopped) return;
      stopped = false;
      if (spec.atStart !== false) void pass();
      else first = false;
      // a tick that finds a pass still under way is skipped: passes never pile up behind a slow one
      timer = setInterval(() => {
        if (!stopped && busy === 0) void pass();
      }, spec.everyMs);
      timer.unref();
    },
    idle: () => running,
    runNow: pass,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
