/**
 * Leased jobs: the one library of the server's durable background work (knowledge-base processing,
 * server/modules/knowledge/kb.worker.ts; post-call analyses, server/modules/calls/analysis.ts; webhook
 * deliveries, server/modules/webhooks/worker.ts). A job is a row of its own table; the library claims due
 * rows, runs them, keeps their lease, retries them with a backoff and stores how they ended. The
 * periodic sweeps are periodic.ts.
 *
 *   const job = defineLeasedJob(deps, {
 *     name: 'analysis', table: 'call_analyses', key: 'call_id',
 *     leaseMs: () => 120_000, pollMs: 2000,
 *     retry: { attempts: () => 3, backoffMs: (attempt) => [30_000, 120_000][attempt - 1] ?? 120_000 },
 *     concurrency: () => 8, perCompany: () => 2,
 *     handle: async (row, run) => ({ status: 'done', set: { result } }),
 *     exhausted: () => ({ status: 'failed', set: { error: 'The analysis failed' } }),
 *   });
 *   job.start();                                 // and at shutdown: await job.stop()
 *   wakeChannel(deps).wake('call_analyses');     // where rows are queued (wake.ts)
 *
 * Statuses. The library has one vocabulary: `pending` (due at `next_attempt_at`), `running` (claimed by
 * `worker` until `lease_until`), `done`, `failed`. A table may store other names for them when users see
 * the stored ones: webhook deliveries store `sending` and `delivered`, because the delivery log shows
 * them and the API contract lists them (DELIVERY_STATUSES in src/api/contract/webhook.ts); the analyses'
 * statuses already are the library's (ANALYSIS_STATUSES shows pending, done, failed); the knowledge-base
 * jobs, which nobody sees, were renamed to it (`queued` became `pending`, `run_after` became
 * `next_attempt_at`, `last_error` became `error`: server/platform/db/migrations/020_job_vocabulary.ts).
 *
 * - Claim: fair across companies (jobs.repo.ts, claimFairly): at most `concurrency()` rows run at once in
 *   this server, at most `perCompany()` of one company at once across servers, each company's oldest
 *   first, round by round. Safe with several servers on one PostgreSQL (advisory lock, SKIP LOCKED,
 *   compare-and-set on `attempts`), and on SQLite (IMMEDIATE transactions).
 * - Lease: the claim leases the row for `leaseMs()`; `run.renew()` moves it on during long work and says
 *   false once another server took the row. A lease that runs out (the server died) makes the row pending
 *   again at the next claim, its attempts counted.
 * - Attempts and retry: an attempt is counted when the row is claimed, so a row whose server dies on it
 *   every time is not run forever: claimed past `retry.attempts()` it is failed with `exhausted(row)`
 *   without running. `handle` answers done, failed (for good) or retry; retry (and a thrown error, after
 *   `onError`) makes the row pending again `retry.backoffMs(attempt)` later, or failed after the last
 *   attempt. Every write after the claim applies only while the row is still this worker's.
 * - Wake and stop: the loop claims while it has free slots and due rows, then waits for the poll or a
 *   wake (a row was queued: wake.ts; a run ended). `stop()` stops claiming and waits for the runs.
 */
import type { Kysely } from 'kysely';
import { newId } from '../crypto/ids.js';
import type { DB } from '../db/schema.js';
import type { Clock } from '../deps.js';
import type { Logger } from '../log/logger.js';
import {
  claimFairly,
  type JobColumns,
  type JobRun,
  type JobTable,
  renewLease,
  type StoredStatuses,
  settleRun,
} from './jobs.repo.js';
import { type WakeChannel, wakeChannel } from './wake.js';

export type { JobTable, StoredStatuses } from './jobs.repo.js';

/** The library's statuses (see the top of this file). */
export type JobStatus = keyof StoredStatuses;
export const JOB_STATUSES: StoredStatuses = { pending: 'pending', running: 'running', done: 'done', failed: 'failed' };

/** The row of a job table as the claim answers it. */
export type JobRow<T extends JobTable> = DB[T] & JobColumns;

/** How a run ended. `retry` becomes `pending` (later) or `failed` (after the last attempt). */
export interface JobOutcome {
  status: 'done' | 'failed' | 'retry';
  /** the row's own columns written with the status (an error, a result, a response) */
  set?: Record<string, unknown> | ((status: 'done' | 'failed' | 'pending') => Record<string, unknown>);
  /** more writes in the same transaction, only when the row was still this worker's */
  also?: (trx: Kysely<DB>, status: 'done' | 'failed' | 'pending') => Promise<void>;
  /** after the transaction, only when it was stored (e.g. an event to queue) */
  after?: (status: 'done' | 'failed' | 'pending') => Promise<void>;
}

/** What a run may do besides answering its outcome. */
export interface JobContext {
  /** this worker's id */
  readonly worker: string;
  /** Moves the lease on by `leaseMs()`; false once the row is no longer this run's (stop working on it). */
  renew(): Promise<boolean>;
}

export interface LeasedJobSpec<T extends JobTable> {
  /** for the log: 'webhook delivery', 'analysis', 'knowledge base' */
  name: string;
  table: T;
  /** the primary key column */
  key: keyof DB[T] & string;
  /** the stored names, when the table shows users its own (default JOB_STATUSES) */
  statuses?: Partial<StoredStatuses>;
  /** the lease a claim takes and a renewal extends */
  leaseMs: () => number;
  /** the wait between two passes when nothing wakes the worker */
  pollMs: number;
  retry: {
    /** attempts in all */
    attempts: () => number;
    /** the wait after the failure of attempt `attempt` (1, 2, ...) */
    backoffMs: (attempt: number) => number;
  };
  /** rows running at once in this server */
  concurrency: () => number;
  /** rows of one company running at once, across servers */
  perCompany: () => number;
  handle: (row: JobRow<T>, run: JobContext) => Promise<JobOutcome>;
  /** the outcome of an error `handle` threw (default: retry, the error logged without its row) */
  onError?: (e: unknown, row: JobRow<T>) => JobOutcome;
  /** the outcome of a row claimed past its last attempt: failed without running (its server died each time) */
  exhausted: (row: JobRow<T>) => Omit<JobOutcome, 'status'>;
  /** upkeep after each pass of the loop (pruning old rows) */
  afterPass?: () => Promise<void>;
  /** at stop, once no new run starts and before waiting for the runs: close what they wait on (a worker thread) */
  onStop?: () => Promise<void>;
}

export interface LeasedJob {
  readonly id: string;
  /** Claims what the free slots allow and runs it to the end; answers how many rows ran. */
  runOnce(): Promise<number>;
  /** Runs in the background (claims, poll, wake-ups) until stop(). */
  start(): void;
  /** Stops claiming and waits for the runs under way. */
  stop(): Promise<void>;
}

export interface LeasedJobDeps {
  db: { db: Kysely<DB> };
  clock: Clock;
  logger: Logger;
  jobs?: WakeChannel | undefined;
}

const reason = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** One worker of a job table in this app (see the top of this file). */
export function defineLeasedJob<T extends JobTable>(
  deps: LeasedJobDeps,
  spec: LeasedJobSpec<T>,
  opts: { workerId?: string | undefined } = {},
): LeasedJob {
  const db = deps.db.db;
  const worker = opts.workerId ?? `${spec.table}-${newId()}`;
  const statuses: StoredStatuses = { ...JOB_STATUSES, ...spec.statuses };
  const target = { table: spec.table, key: spec.key, statuses };
  const iso = (ms = 0) => new Date(deps.clock.now().getTime() + ms).toISOString();

  async function settle(row: JobRow<T>, outcome: JobOutcome): Promise<void> {
    const last = row.attempts >= spec.retry.attempts();
    const status = outcome.status === 'retry' ? (last ? 'failed' : 'pending') : outcome.status;
    const own = typeof outcome.set === 'function' ? outcome.set(status) : (outcome.set ?? {});
    const run: JobRun = { ...target, id: String(row[spec.key]), worker, attempts: row.attempts };
    const stored = await settleRun(
      db,
      run,
      {
        ...own,
        status: statuses[status],
        lease_until: null,
        next_attempt_at: status === 'pending' ? iso(spec.retry.backoffMs(row.attempts)) : undefined,
        updated_at: iso(),
      },
      outcome.also && ((trx) => outcome.also?.(trx, status) ?? Promise.resolve()),
    );
    if (stored) await outcome.after?.(status);
  }

  async function run(row: JobRow<T>): Promise<void> {
    if (row.attempts > spec.retry.attempts()) return settle(row, { ...spec.exhausted(row), status: 'failed' });
    const context: JobContext = {
      worker,
      renew: () =>
        renewLease(db, { ...target, id: String(row[spec.key]), worker, attempts: row.attempts }, iso(spec.leaseMs()), iso()),
    };
    let outcome: JobOutcome;
    try {
      outcome = await spec.handle(row, context);
    } catch (e) {
      if (spec.onError) outcome = spec.onError(e, row);
      else {
        deps.logger.warn(`${spec.name} failed`, { attempt: row.attempts, reason: reason(e) });
        outcome = { status: 'retry', set: { error: reason(e).slice(0, 500) } };
      }
    }
    await settle(row, outcome);
  }

  const pool = new JobPool<JobRow<T>>({
    slots: spec.concurrency,
    claim: (take) =>
      claimFairly<JobRow<T>>(db, {
        ...target,
        worker,
        now: deps.clock.now(),
        leaseMs: spec.leaseMs(),
        take,
        perCompany: spec.perCompany(),
      }),
    run,
    onError: (e) => deps.logger.error(`${spec.name} failed`, { error: reason(e) }),
    onFree: () => loop.wake(),
  });
  const loop = jobLoop({
    round: () => pool.round(),
    pollMs: spec.pollMs,
    onError: (e) => deps.logger.error(`${spec.name} worker failed`, { error: reason(e) }),
    afterPass: spec.afterPass,
  });
  let unsubscribe: (() => void) | undefined;

  return {
    id: worker,
    async runOnce() {
      const runs = await pool.round();
      await Promise.all(runs);
      return runs.length;
    },
    start() {
      unsubscribe ??= wakeChannel(deps).on(spec.table, loop.wake);
      loop.start();
    },
    async stop() {
      unsubscribe?.();
      unsubscribe = undefined;
      await loop.stop();
      await spec.onStop?.();
      await pool.idle();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Running

/**
 * Runs claimed rows concurrently, at most `slots()` at once. `round()` claims as many rows as there are
 * free slots (one claim at a time in this process) and starts them.
 */
export class JobPool<Row> {
  private active = 0;
  private readonly running = new Set<Promise<void>>();
  private claiming: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly o: {
      slots: () => number;
      claim: (take: number) => Promise<Row[]>;
      run: (row: Row) => Promise<void>;
      onError: (e: unknown) => void;
      /** a run ended: a slot is free */
      onFree?: () => void;
    },
  ) {}

  /** Claims and starts what the free slots allow; resolves, once claimed, with the runs it started. */
  round(): Promise<Promise<void>[]> {
    const next = this.claiming.then(async () => {
      const take = this.o.slots() - this.active;
      if (take <= 0) return [];
      return (await this.o.claim(take)).map((row) => this.start(row));
    });
    this.claiming = next.catch(() => {});
    return next;
  }

  private start(row: Row): Promise<void> {
    this.active++;
    const run: Promise<void> = this.o
      .run(row)
      .catch(this.o.onError)
      .finally(() => {
        this.active--;
        this.running.delete(run);
        this.o.onFree?.();
      });
    this.running.add(run);
    return run;
  }

  /** Resolves when every run started so far has ended. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }
}

/**
 * The background loop of a worker: claims rounds while there is room and work, then waits for a wake-up
 * (`wake()`: a row was queued, or a run ended) or the poll. `afterPass` runs after each pass (upkeep).
 */
export function jobLoop(o: {
  round: () => Promise<unknown[]>;
  pollMs: number;
  onError: (e: unknown) => void;
  afterPass?: (() => Promise<void>) | undefined;
}) {
  let timer: NodeJS.Timeout | undefined;
  let pass: Promise<void> | undefined;
  let stopped = true;
  let again = false;
  const wake = () => {
    if (stopped) return;
    if (pass) {
      again = true;
      return;
    }
    clearTimeout(timer);
    pass = (async () => {
      try {
        while (!stopped && (await o.round()).length > 0) {}
        await o.afterPass?.();
      } catch (e) {
        o.onError(e);
      }
    })().finally(() => {
      pass = undefined;
      if (stopped) return;
      if (again) {
        again = false;
        setImmediate(wake);
      } else timer = setTimeout(wake, o.pollMs);
    });
  };
  return {
    wake,
    start() {
      if (!stopped) return;
      stopped = false;
      timer = setTimeout(wake, 0);
    },
    /** Stops claiming; resolves once the pass under way has ended (the runs it started are the pool's). */
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await pass;
    },
  };
}
