import { type ColumnDefinitionBuilder, type Kysely, PostgresAdapter, sql } from 'kysely';

/**
 * Phone numbers, the requests companies make for free numbers, and call records.
 *
 * - `phone_numbers`: every number the platform knows. `company_id` null = free (the pool, listed as
 *   "available" to every company); set = assigned to that company. `origin` says where the number came
 *   from: 'pool' (the platform's own, granted to a company; deleting it returns it to the pool) or
 *   'company' (added by the company with POST /number/create; deleting it removes it). `phone_number`
 *   is E.164 and unique platform-wide. `assigned_at` = when the company got it (billing counts months
 *   from it). The agent columns are cleared by their foreign keys when the agent is deleted.
 * - `number_requests`: a company's request for a free number (one per company and number); an
 *   operator (`npm run admin -- grant-number-requests`) or REQUEST_AUTO_GRANT grants it, which moves the
 *   number to the company and sets `granted_at`.
 * - `calls`: one row per call, append-only. `time` is ISO-8601 UTC text (sorts like the instant),
 *   `duration` whole seconds, `cost` USD, `phone_number` the company's own line the call used (`to` of an
 *   inbound call, `from` of an outbound one). Calls are written ONLY through insertCalls
 *   (server/modules/calls/call.repo.ts), which keeps `call_counts` exact.
 * - `call_counts`: the number of calls per company and UTC day, for every combination of the list's
 *   equality filters, each either a value or '*' (any): (status | *) x (type | *) x (phone_number | *).
 *   Counting a filtered call history is then a sum over at most one row per day of the date range, and
 *   a deep page of a time-ordered list is found day by day instead of skipping N rows (see listCalls).
 *
 * Indexes of `calls` (company first, each readable in either direction): time (the default order and
 * date ranges), status + time (status filter and sort), phone_number + time (the phone-number filter),
 * from_number + time (sort by number; the search scans this narrow index instead of the table),
 * duration + time and cost + time (sorts). Keyed indexes continue with `time desc, id desc`: the list
 * breaks ties by time in the direction opposite to the sort key (ascending keys show the newest call
 * first), so one index serves both directions. Extra trailing columns make the id queries covering:
 * the filter indexes carry duration and cost (a small filtered set sorts by them from the index), the
 * sort indexes carry status, type and phone_number (a filtered walk in sort order checks the filters
 * in the index). bench/calls-api.ts measures them on 1,000,000 calls. On PostgreSQL the sortable text columns use the "C" collation
 * so both databases order them the same way (byte order) and the indexes serve ORDER BY directly.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  const pg = db.getExecutor().adapter instanceof PostgresAdapter;
  const sortable = (c: ColumnDefinitionBuilder) => (pg ? c.modifyEnd(sql`collate "C"`) : c);

  await db.schema
    .createTable('phone_numbers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.references('companies.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('phone_number', 'text', (c) => sortable(c.notNull()))
    .addColumn('provider', 'text', (c) => sortable(c.notNull()))
    .addColumn('phone_number_type', 'text', (c) => c.notNull())
    .addColumn('phone_number_pretty', 'text', (c) => c.notNull())
    .addColumn('area_code', 'integer')
    .addColumn('nickname', 'text', (c) => sortable(c))
    .addColumn('termination_uri', 'text', (c) => c.notNull())
    .addColumn('assistant_id', 'text')
    .addColumn('inbound_agent_id', 'text', (c) => c.references('agents.id').onDelete('set null'))
    .addColumn('outbound_agent_id', 'text', (c) => c.references('agents.id').onDelete('set null'))
    .addColumn('assigned_at', 'text', (c) => sortable(c))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('phone_numbers_number_uq').on('phone_numbers').column('phone_number').unique().execute();
  // the free pool (company_id null) and each company's numbers, in number order
  await db.schema
    .createIndex('phone_numbers_company_number_idx')
    .on('phone_numbers')
    .columns(['company_id', 'phone_number'])
    .execute();
  await db.schema.createIndex('phone_numbers_inbound_idx').on('phone_numbers').column('inbound_agent_id').execute();
  await db.schema.createIndex('phone_numbers_outbound_idx').on('phone_numbers').column('outbound_agent_id').execute();

  await db.schema
    .createTable('number_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('phone_number_id', 'text', (c) => c.notNull().references('phone_numbers.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('granted_at', 'text')
    .execute();
  await db.schema
    .createIndex('number_requests_company_number_uq')
    .on('number_requests')
    .columns(['company_id', 'phone_number_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('number_requests_number_idx')
    .on('number_requests')
    .columns(['phone_number_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('calls')
    .addColumn('id', 'text', (c) => sortable(c.primaryKey()))
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('agent_id', 'text')
    .addColumn('time', 'text', (c) => sortable(c.notNull()))
    .addColumn('from_number', 'text', (c) => sortable(c.notNull()))
    .addColumn('to_number', 'text', (c) => c.notNull())
    .addColumn('phone_number', 'text', (c) => sortable(c.notNull()))
    .addColumn('duration', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('cost', 'double precision', (c) => c.notNull())
    .addColumn('disconnection_reason', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => sortable(c.notNull()))
    .addColumn('call_successful', 'integer', (c) => c.notNull())
    .execute();
  const index = (name: string, columns: string[]) => db.schema.createIndex(name).on('calls').columns(columns).execute();
  // filters (and the default order): their key, then time; duration and cost ride along so a small
  // filtered set is sorted by them without reading the table
  await index('calls_company_time_idx', ['company_id', 'time', 'id', 'duration', 'cost']);
  await index('calls_company_status_time_idx', ['company_id', 'status', 'time desc', 'id desc', 'duration', 'cost']);
  await index('calls_company_number_time_idx', ['company_id', 'phone_number', 'time desc', 'id desc', 'duration', 'cost']);
  // sorts: their key, then time; the equality filters ride along so a filtered walk never reads the table
  const filters = ['status', 'type', 'phone_number'];
  await index('calls_company_from_time_idx', ['company_id', 'from_number', 'time desc', 'id desc', ...filters]);
  await index('calls_company_duration_idx', ['company_id', 'duration', 'time desc', 'id desc', ...filters]);
  await index('calls_company_cost_idx', ['company_id', 'cost', 'time desc', 'id desc', ...filters]);

  await db.schema
    .createTable('call_counts')
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('phone_number', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => sortable(c.notNull()))
    .addColumn('calls', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('call_counts_pk', ['company_id', 'status', 'type', 'phone_number', 'day'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('call_counts').execute();
  await db.schema.dropTable('calls').execute();
  await db.schema.dropTable('number_requests').execute();
  await db.schema.dropTable('phone_numbers').execute();
}
