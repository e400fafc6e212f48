import { type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * Call analytics: the Call History overview and the per-agent figures, computed in the database
 * from two daily rollups written with the calls (insertCalls), so a range of days costs one row per day
 * whatever the number of calls (the overview of 90 days of a company with 1,000,000 calls: bench/REPORT.md).
 *
 * - `calls.latency_ms`: the call's typical response latency (the median of its agent turns: end of the
 *   caller's speech -> the agent's first audio), null when the agent never answered a turn.
 * - `call_days`: per company and UTC day, for every combination of status, type, phone_number and agent_id
 *   (each a value or '*' = any; agent_id '' = no agent): the calls, how many were successful, and the sums
 *   of their duration (seconds) and cost (USD). Like `call_counts`, any combination of the equality filters
 *   is one row per day.
 * - `call_latency_days`: per company, UTC day, status, type and phone_number (value or '*') and latency
 *   bucket (its lower bound in ms, see latencyBucket in call-analytics.repo.ts), the calls whose latency falls
 *   in that bucket: the day's p50 and p95 are read from this histogram in SQL (a window over the buckets).
 *
 * Keys: the equality filters first and the day last, so a filter and a range of days is one range of the
 * key (calls by status: one range per status). On SQLite both tables are WITHOUT ROWID (stored in key order).
 *
 * Existing calls are counted into `call_days` here (they have no latency yet).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  // SQLite: the rows are stored in key order (a day range of one combination is one contiguous read)
  const clustered = db.getExecutor().adapter instanceof PostgresAdapter ? sql`` : sql`without rowid`;
  await db.schema.alterTable('calls').addColumn('latency_ms', 'integer').execute();
  await db.schema
    .createTable('call_days')
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('phone_number', 'text', (c) => c.notNull())
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('calls', 'bigint', (c) => c.notNull())
    .addColumn('successful', 'bigint', (c) => c.notNull())
    .addColumn('duration', 'bigint', (c) => c.notNull())
    .addColumn('cost', 'double precision', (c) => c.notNull())
    .addPrimaryKeyConstraint('call_days_pk', ['company_id', 'type', 'phone_number', 'agent_id', 'status', 'day'])
    .modifyEnd(clustered)
    .execute();
  await db.schema
    .createTable('call_latency_days')
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('phone_number', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('bucket', 'integer', (c) => c.notNull())
    .addColumn('calls', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('call_latency_days_pk', ['company_id', 'status', 'type', 'phone_number', 'day', 'bucket'])
    .modifyEnd(clustered)
    .execute();

  for (let mask = 0; mask < 16; mask++) {
    const dim = (bit: number, col: string, none = false) =>
      mask & bit ? (none ? sql`coalesce(${sql.ref(col)}, '')` : sql.ref(col)) : sql.lit('*');
    const grouped = [sql.ref('company_id'), sql`substr(time, 1, 10)`];
    if (mask & 1) grouped.push(sql.ref('status'));
    if (mask & 2) grouped.push(sql.ref('type'));
    if (mask & 4) grouped.push(sql.ref('phone_number'));
    if (mask & 8) grouped.push(sql.ref('agent_id'));
    await sql`insert into call_days (company_id, status, type, phone_number, agent_id, day, calls, successful, duration, cost)
      select company_id, ${dim(1, 'status')}, ${dim(2, 'type')}, ${dim(4, 'phone_number')}, ${dim(8, 'agent_id', true)},
        substr(time, 1, 10), count(*), sum(call_successful), sum(duration), sum(cost)
      from calls group by ${sql.join(grouped)}`.execute(db);
  }
}

// biome-ignore lint/suspicious/noExplicitAny: see above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('call_latency_days').execute();
  await db.schema.dropTable('call_days').execute();
  await db.schema.alterTable('calls').dropColumn('latency_ms').execute();
}
