/**
 * Background jobs shared fairly between companies: the webhook outbox (server/modules/webhooks/worker.ts) and the
 * post-call analyses (server/modules/calls/analysis.ts). One company's slow receiver or slow LLM must not hold
 * up another company's jobs (docs/webhooks.md, "Fairness").
 *
 * - Claim (`claimFairly`): the due rows are ranked within their company (oldest first) and taken round by
 *   round (every company's oldest, then every company's second, ...), each company only up to its limit
 *   minus what it already has in flight on any server (rows leased and not expired), at most `take` rows.
 *   The claim is one transaction: on PostgreSQL it first takes a transaction-level advisory lock of the
 *   table, so servers sharing the database claim one after another and each sees what the others took
 *   (the per-company limit holds across servers), and the rows are still locked `FOR UPDATE SKIP LOCKED`;
 *   SQLite transactions are IMMEDIATE (server/platform/db/index.ts). Each row is then set to its busy status with a
 *   compare-and-set on `attempts`, so a row is never taken twice.
 * - Run (`JobPool`): the claimed rows run concurrently, at most `slots` at once in this server; a finished
 *   run frees its slot and the loop (`jobLoop`) claims again.
 */
import { type Kysely, PostgresAdapter, sql } from 'kysely';
import type { CallAnalysesTable, DB } from '../db/schema.js';

/** The limits of the background jobs (AppConfig.jobLimits, from the environment in server/platform/env.ts). */
export interface JobLimits {
  /** analyses running at once in one server (ANALYSIS_CONCURRENCY) */
  analysisConcurrency?: number;
  /** analyses of one company running at once, across servers (ANALYSIS_PER_COMPANY) */
  analysisPerCompany?: number;
  /** the whole of one analysis attempt, LLM answer included (ANALYSIS_DEADLINE_SECONDS) */
  analysisDeadlineMs?: number;
  /** webhook deliveries being sent at once by one server (WEBHOOK_CONCURRENCY) */
  webhookConcurrency?: number;
  /** deliveries of one company being sent at once, across servers (WEBHOOK_PER_COMPANY) */
  webhookPerCompany?: number;
  /** 'Resend's a company may make in a sliding minute (WEBHOOK_RESENDS_PER_MINUTE) */
  resendsPerMinute?: number;
  /** the wait between two 'Resend's of one delivery (WEBHOOK_RESEND_INTERVAL_SECONDS) */
  resendIntervalMs?: number;
}

export const JOB_LIMIT_DEFAULTS: Required<JobLimits> = {
  analysisConcurrency: 8,
  analysisPerCompany: 2,
  analysisDeadlineMs: 60_000,
  webhookConcurrency: 16,
  webhookPerCompany: 4,
  resendsPerMinute: 20,
  resendIntervalMs: 60_000,
};

/** The limits in force: the configured ones, the defaults for the rest. */
export function jobLimitsOf(config: { jobLimits?: JobLimits | undefined }): Required<JobLimits> {
  const set = Object.entries(config.jobLimits ?? {}).filter(([, value]) => typeof value === 'number' && value > 0);
  return { ...JOB_LIMIT_DEFAULTS, ...Object.fromEntries(set) };
}

// ---------------------------------------------------------------------------------------------
// Claiming

/** What both job tables have. */
export type JobRow = Pick<CallAnalysesTable, 'company_id' | 'status' | 'attempts' | 'next_attempt_at' | 'lease_until' | 'worker'>;

export interface FairClaim {
  table: 'webhook_deliveries' | 'call_analyses';
  key: 'id' | 'call_id';
  /** the status of a row being worked on ('sending', 'running'); due rows are 'pending' */
  busy: string;
  worker: string;
  now: Date;
  leaseMs: number;
  /** rows to take at most (this server's free slots) */
  take: number;
  /** rows of one company in flight at most */
  perCompany: number;
}

const whole = (n: number) => sql.lit(Math.max(0, Math.floor(n)));

interface CompanyDue {
  company_id: string;
  /** its oldest pending row's time */
  first_due: string | null;
  /** its rows in flight (busy, leased) */
  busy: number | string;
}

/**
 * Claims up to `take` due rows, fairly across companies (see the top of this file); answers them as
 * claimed (busy, this worker, leased, the attempt counted). Every step reads the index
 * `(status, company_id, next_attempt_at)` (migration 019, server/platform/db/migrations/019_job_claim_indexes.ts): the companies with pending rows one seek each,
 * then each chosen company's oldest due rows; no step ranks or sorts every due row.
 */
export async function claimFairly<Row extends JobRow>(db: Kysely<DB>, c: FairClaim): Promise<Row[]> {
  if (c.take < 1 || c.perCompany < 1) return [];
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const now = c.now.toISOString();
  const lease = new Date(c.now.getTime() + c.leaseMs).toISOString();
  const table = sql.table(c.table);
  const key = sql.ref(c.key);
  return db.transaction().execute(async (trx) => {
    if (postgres) await sql`select pg_advisory_xact_lock(hashtextextended(${`claim:${c.table}`}, 0))`.execute(trx);
    // a row whose lease ran out (its server died mid-job) is due again, with its attempts counted
    await sql`update ${table} set status = 'pending', lease_until = null
      where status = ${c.busy} and lease_until < ${now}`.execute(trx);
    // the companies with pending rows (a loose index scan), each with its oldest and its rows in flight
    const { rows: companies } = await sql<CompanyDue>`with recursive c(company_id) as (
        select min(company_id) from ${table} where status = 'pending'
        union all
        select (select min(t.company_id) from ${table} t where t.status = 'pending' and t.company_id > c.company_id)
        from c where c.company_id is not null
      )
      select c.company_id,
        (select min(t.next_attempt_at) from ${table} t where t.status = 'pending' and t.company_id = c.company_id) as first_due,
        (select count(*) from ${table} t where t.status = ${c.busy} and t.company_id = c.company_id) as busy
      from c where c.company_id is not null`.execute(trx);
    // the least busy first, then the longest waiting; each with the room its limit leaves
    const open = companies
      .map((r) => ({
        company: r.company_id,
        firstDue: r.first_due ?? '',
        room: c.perCompany - Number(r.busy),
        busy: Number(r.busy),
      }))
      .filter((r) => r.firstDue !== '' && r.firstDue <= now && r.room > 0)
      .sort((a, b) => a.busy - b.busy || a.firstDue.localeCompare(b.firstDue) || a.company.localeCompare(b.company))
      .slice(0, c.take);
    if (open.length === 0) return [];
    const oldest = open.map(
      (o) => sql`select * from (select ${key} as k, company_id from ${table}
        where status = 'pending' and company_id = ${o.company} and next_attempt_at <= ${now}
        order by next_attempt_at limit ${whole(Math.min(o.room, c.take))}) p`,
    );
    const { rows: picked } = await sql<{ k: string; company_id: string }>`${sql.join(oldest, sql` union all `)}`.execute(trx);
    // round by round: every company's oldest, then every company's second, ...
    const queues = new Map(open.map((o) => [o.company, [] as string[]]));
    for (const p of picked) queues.get(p.company_id)?.push(p.k);
    const keys: string[] = [];
    for (let round = 0; keys.length < c.take && round < c.perCompany; round++)
      for (const q of queues.values()) if (q[round] !== undefined && keys.length < c.take) keys.push(q[round] as string);
    if (keys.length === 0) return [];
    const { rows } = await sql<Row>`select * from ${table} t
      where t.${key} in (${sql.join(keys)}) and t.status = 'pending' and t.next_attempt_at <= ${now}${
        postgres ? sql` for update skip locked` : sql``
      }`.execute(trx);
    const claimed: Row[] = [];
    for (const row of rows) {
      const attempts = Number(row.attempts);
      const id = (row as unknown as Record<string, string>)[c.key] as string;
      const res = await sql`update ${table} set status = ${c.busy}, worker = ${c.worker}, lease_until = ${lease},
          attempts = ${attempts + 1}, updated_at = ${now}
        where ${key} = ${id} and status = 'pending' and attempts = ${attempts}`.execute(trx);
      if (Number(res.numAffectedRows) === 1)
        claimed.push({ ...row, attempts: attempts + 1, status: c.busy, worker: c.worker, lease_until: lease });
    }
    return claimed;
  });
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
 * (`wake()`: a job was queued, or a run ended) or the poll. `afterDrain` runs after each pass (upkeep).
 */
export function jobLoop(o: {
  round: () => Promise<unknown[]>;
  pollMs: number;
  onError: (e: unknown) => void;
  afterDrain?: () => Promise<void>;
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
        await o.afterDrain?.();
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
