import type { Kysely } from 'kysely';

/**
 * Phone numbers, the requests companies make for free numbers, and call records.
 *
 * - `phone_numbers`: the platform's pool. `company_id` null = free (listed as "available" to every
 *   company); set = assigned to that company. `phone_number` is E.164 and unique platform-wide.
 * - `number_requests`: a company's request for a free number (one per company and number); an
 *   operator (or REQUEST_AUTO_GRANT) grants it, which moves the number to the company.
 * - `calls`: one row per call. `time` is ISO-8601 UTC text (sorts like the instant), `duration` whole
 *   seconds, `cost` USD. The indexes serve the call-history queries of one company: by time, by
 *   status + time and by from-number + time, each readable in either direction.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('phone_numbers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.references('companies.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.references('accounts.id').onDelete('set null'))
    .addColumn('phone_number', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('phone_number_type', 'text', (c) => c.notNull())
    .addColumn('phone_number_pretty', 'text', (c) => c.notNull())
    .addColumn('area_code', 'integer')
    .addColumn('nickname', 'text')
    .addColumn('termination_uri', 'text')
    .addColumn('assistant_id', 'text')
    .addColumn('inbound_agent_id', 'text', (c) => c.references('agents.id').onDelete('set null'))
    .addColumn('outbound_agent_id', 'text', (c) => c.references('agents.id').onDelete('set null'))
    .addColumn('assigned_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('phone_numbers_number_uq').on('phone_numbers').column('phone_number').unique().execute();
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
  await db.schema.createIndex('number_requests_number_idx').on('number_requests').column('phone_number_id').execute();

  await db.schema
    .createTable('calls')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('agent_id', 'text')
    .addColumn('time', 'text', (c) => c.notNull())
    .addColumn('from_number', 'text', (c) => c.notNull())
    .addColumn('to_number', 'text', (c) => c.notNull())
    .addColumn('duration', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('cost', 'real', (c) => c.notNull())
    .addColumn('disconnection_reason', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('call_successful', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('calls_company_time_idx').on('calls').columns(['company_id', 'time', 'id']).execute();
  await db.schema
    .createIndex('calls_company_status_time_idx')
    .on('calls')
    .columns(['company_id', 'status', 'time', 'id'])
    .execute();
  await db.schema
    .createIndex('calls_company_from_time_idx')
    .on('calls')
    .columns(['company_id', 'from_number', 'time', 'id'])
    .execute();
  await db.schema.createIndex('calls_company_agent_idx').on('calls').columns(['company_id', 'agent_id']).execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('calls').execute();
  await db.schema.dropTable('number_requests').execute();
  await db.schema.dropTable('phone_numbers').execute();
}
