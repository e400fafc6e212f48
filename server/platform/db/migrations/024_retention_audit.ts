import type { Kysely } from 'kysely';

/**
 * Company settings, the audit log and deleted call content.
 *
 * - `company_settings`: one row per company once it changed a setting (none = the defaults of
 *   src/api/contract/data-storage.ts): `retention_days` (null = keep content forever) and the default data
 *   storage level of new agents. The retention job leases the row while it removes the company's expired
 *   content (`retention_status` idle | running, `retention_worker` until `retention_lease_until`, `attempts`
 *   the passes taken, the compare-and-set of the job library's takeLease).
 * - `audit_log`: append-only (no route updates or deletes a row): who (account id and email, kept even when
 *   the account goes), what (`action`), on what (`target`), when and from where (`ip`). Read newest first per
 *   company, filtered by actor, action and time.
 * - `content_deleted_at` on `calls` and `call_sessions`: when the call's content (transcript, function calls,
 *   dynamic variables, analysis text, recording) was removed, by DELETE /call/{id} or the retention job; the
 *   row and its metadata stay. The index finds a company's sessions past their age whose content is still there.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('company_settings')
    .addColumn('company_id', 'text', (c) => c.primaryKey().references('companies.id').onDelete('cascade'))
    .addColumn('retention_days', 'integer')
    .addColumn('default_data_storage', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('retention_status', 'text', (c) => c.notNull().defaultTo('idle'))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('retention_worker', 'text')
    .addColumn('retention_lease_until', 'text')
    .execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('time', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('actor_email', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('ip', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('audit_log_company_time_idx').on('audit_log').columns(['company_id', 'time', 'id']).execute();
  await db.schema
    .createIndex('audit_log_company_action_time_idx')
    .on('audit_log')
    .columns(['company_id', 'action', 'time'])
    .execute();

  await db.schema.alterTable('calls').addColumn('content_deleted_at', 'text').execute();
  await db.schema.alterTable('call_sessions').addColumn('content_deleted_at', 'text').execute();
  await db.schema
    .createIndex('call_sessions_retention_idx')
    .on('call_sessions')
    .columns(['company_id', 'content_deleted_at', 'created_at'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('call_sessions_retention_idx').execute();
  await db.schema.alterTable('call_sessions').dropColumn('content_deleted_at').execute();
  await db.schema.alterTable('calls').dropColumn('content_deleted_at').execute();
  await db.schema.dropTable('audit_log').execute();
  await db.schema.dropTable('company_settings').execute();
}
