/**
 * The SQL of the leased jobs (leased-job.ts): the fair claim, the lease renewal and the settling of a
 * run. Every statement names the job's own table, key and stored statuses, given by its definition.
 *
 * The claim (`claimFairly`): the due rows are ranked within their company (oldest first) and taken round
 * by round (every company's oldest, then every company's second, ...), each company only up to its limit
 * minus what it already has in flight on any server (rows leased and not expired), at most `take` rows.
 * The claim is one transaction: on PostgreSQL it first takes a transaction-level advisory lock of the
 * table, so servers sharing the database claim one after another and each sees what the others took (the
 * per-company limit holds across servers), and the rows are still locked `FOR UPDATE SKIP LOCKED`; SQLite
 * transactions are IMMEDIATE (server/platform/db/index.ts). Each row is then set running with a
 * compare-and-set on `attempts`, so a row is never taken twice. Every step reads the index
 * `(status, company_id, next_attempt_at)` (server/platform/db/migrations/019_job_claim_indexes.ts and
 * 020_job_vocabulary.ts): the companies with pending rows one seek each, then each chosen company's oldest
 * due rows; no step ranks or sorts every due row.
 */
import { type Kysely, PostgresAdapter, sql } from 'kysely';
import type { DB } from '../db/schema.js';

/** The columns every leased-job table has. */
export interface JobColumns {
  company_id: string;
  status: string;
  attempts: number;
  next_attempt_at: string;
  lease_until: string | null;
  worker: string | null;
  error: string | null;
  updated_at: string;
}

/** The tables that can hold leased jobs: those with every JobColumns column. */
export type JobTable = { [K in keyof DB]: DB[K] extends JobColumns ? K : never }[keyof DB];

/** The names a table stores for the library's four statuses (leased-job.ts, "Statuses"). */
export interface StoredStatuses {
  pending: string;
  running: string;
  done: string;
  failed: string;
}

export interface JobTarget {
  table: JobTable;
  /** the primary key column */
  key: string;
  statuses: StoredStatuses;
}

export interface FairClaim extends JobTarget {
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
  /** its rows in flight (running, leased) */
  busy: number | string;
}

/**
 * Claims up to `take` due rows, fairly across companies (see the top of this file); answers them as
 * claimed (running, this worker, leased, the attempt counted). A row whose lease ran out (its server died
 * mid-run) is pending again first, its attempts kept.
 */
export async function claimFairly<Row extends JobColumns>(db: Kysely<DB>, c: FairClaim): Promise<Row[]> {
  if (c.take < 1 || c.perCompany < 1) return [];
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const now = c.now.toISOString();
  const lease = new Date(c.now.getTime() + c.leaseMs).toISOString();
  const table = sql.table(c.table);
  const key = sql.ref(c.key);
  const { pending, running } = c.statuses;
  return db.transaction().execute(async (trx) => {
    if (postgres) await sql`select pg_advisory_xact_lock(hashtextextended(${`claim:${c.table}`}, 0))`.execute(trx);
    await sql`update ${table} set status = ${pending}, lease_until = null
      where status = ${running} and lease_until < ${now}`.execute(trx);
    // the companies with pending rows (a loose index scan), each with its oldest and its rows in flight
    const { rows: companies } = await sql<CompanyDue>`with recursive c(company_id) as (
        select min(company_id) from ${table} where status = ${pending}
        union all
        select (select min(t.company_id) from ${table} t where t.status = ${pending} and t.company_id > c.company_id)
        from c where c.company_id is not null
      )
      select c.company_id,
        (select min(t.next_attempt_at) from ${table} t where t.status = ${pending} and t.company_id = c.company_id) as first_due,
        (select count(*) from ${table} t where t.status = ${running} and t.company_id = c.company_id) as busy
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
        where status = ${pending} and company_id = ${o.company} and next_attempt_at <= ${now}
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
      where t.${key} in (${sql.join(keys)}) and t.status = ${pending} and t.next_attempt_at <= ${now}${
        postgres ? sql` for update skip locked` : sql``
      }`.execute(trx);
    // started in the order of the rounds
    const rank = new Map(keys.map((k, i) => [k, i]));
    const at = (row: Row) => rank.get((row as unknown as Record<string, string>)[c.key] as string) ?? 0;
    rows.sort((x, y) => at(x) - at(y));
    const claimed: Row[] = [];
    for (const row of rows) {
      const attempts = Number(row.attempts);
      const id = (row as unknown as Record<string, string>)[c.key] as string;
      const taken = await takeLease(trx, {
        table: c.table,
        where: { [c.key]: id },
        status: { column: 'status', from: pending, to: running },
        attempts,
        set: { worker: c.worker, lease_until: lease, updated_at: now },
      });
      if (taken) claimed.push({ ...row, attempts: attempts + 1, status: running, worker: c.worker, lease_until: lease });
    }
    return claimed;
  });
}

/**
 * The claim's last step, for any leased row (the fair claim above; a queue with its own selection, such
 * as the batch dispatcher's recipients, server/modules/batches/dispatcher.ts): inside the claim's
 * transaction, after the row was read (`FOR UPDATE SKIP LOCKED` on PostgreSQL), moves it from status
 * `from` to `to`, counts the attempt and writes `set` (its owner and lease), only if its status and
 * attempts are still what was read: a compare-and-set, so a row is never taken twice. True when taken.
 */
export async function takeLease(
  trx: Kysely<DB>,
  o: {
    table: keyof DB;
    /** the row's key columns and values (one or several: `{ upload_id, row_number }`) */
    where: Record<string, string | number>;
    status: { column: string; from: string; to: string };
    /** the attempts read with the row */
    attempts: number;
    set: Record<string, unknown>;
  },
): Promise<boolean> {
  const set = [
    sql`${sql.ref(o.status.column)} = ${o.status.to}`,
    sql`attempts = ${o.attempts + 1}`,
    ...Object.entries(o.set).map(([column, value]) => sql`${sql.ref(column)} = ${value}`),
  ];
  const match = Object.entries(o.where).map(([column, value]) => sql`${sql.ref(column)} = ${value}`);
  const res = await sql`update ${sql.table(o.table)} set ${sql.join(set)}
    where ${sql.join(match, sql` and `)} and ${sql.ref(o.status.column)} = ${o.status.from} and attempts = ${o.attempts}`.execute(
    trx,
  );
  return Number(res.numAffectedRows) === 1;
}

/** The run of one claimed row, as the compare-and-set of every write after the claim checks it. */
export interface JobRun extends JobTarget {
  id: string;
  worker: string;
  attempts: number;
}

/** Moves the lease of a running row on; false when the row is no longer this run's (its lease was taken). */
export async function renewLease(db: Kysely<DB>, run: JobRun, leaseUntil: string, now: string): Promise<boolean> {
  const res = await sql`update ${sql.table(run.table)} set lease_until = ${leaseUntil}, updated_at = ${now}
    where ${sql.ref(run.key)} = ${run.id} and worker = ${run.worker} and status = ${run.statuses.running}
      and attempts = ${run.attempts}`.execute(db);
  return Number(res.numAffectedRows) === 1;
}

/**
 * Stores the end of a run (its status, its columns) in one transaction with `also`, only while the row is
 * still this run's (a lease lost to another server leaves the outcome to that server); true when stored.
 */
export async function settleRun(
  db: Kysely<DB>,
  run: JobRun,
  columns: Record<string, unknown>,
  also?: (trx: Kysely<DB>) => Promise<void>,
): Promise<boolean> {
  const entries = Object.entries(columns).filter(([, value]) => value !== undefined);
  const set = sql.join(entries.map(([column, value]) => sql`${sql.ref(column)} = ${value}`));
  return db.transaction().execute(async (trx) => {
    const res = await sql`update ${sql.table(run.table)} set ${set}
      where ${sql.ref(run.key)} = ${run.id} and worker = ${run.worker} and status = ${run.statuses.running}
        and attempts = ${run.attempts}`.execute(trx);
    if (Number(res.numAffectedRows) !== 1) return false;
    await also?.(trx);
    return true;
  });
}
