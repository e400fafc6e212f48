import type { Kysely } from 'kysely';

/**
 * Knowledge bases: the base with its sources (JSON), the text chunks extracted from them, and
 * one processing job per base. The job row is the durable queue: a worker claims it with a lease, so a
 * job whose worker died (restart, crash) is claimed again once its lease has run out.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('knowledge_bases')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('account_id', 'text')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('name_lower', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('enable_auto_refresh', 'integer', (c) => c.notNull())
    .addColumn('sources', 'text', (c) => c.notNull())
    .addColumn('error_message', 'text')
    .addColumn('chunk_count', 'integer', (c) => c.notNull())
    .addColumn('user_modified_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('knowledge_bases_company_created')
    .on('knowledge_bases')
    .columns(['company_id', 'created_at desc', 'id desc'])
    .execute();

  await db.schema
    .createTable('knowledge_base_chunks')
    .addColumn('knowledge_base_id', 'text', (c) => c.notNull().references('knowledge_bases.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('company_id', 'text', (c) => c.notNull())
    .addColumn('source_index', 'integer', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('knowledge_base_chunks_pk', ['knowledge_base_id', 'position'])
    .execute();

  await db.schema
    .createTable('knowledge_base_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('knowledge_base_id', 'text', (c) => c.notNull().references('knowledge_bases.id').onDelete('cascade'))
    .addColumn('company_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('run_after', 'text', (c) => c.notNull())
    .addColumn('lease_until', 'text')
    .addColumn('worker', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('knowledge_base_jobs_due').on('knowledge_base_jobs').columns(['status', 'run_after']).execute();
  await db.schema
    .createIndex('knowledge_base_jobs_base_uq')
    .on('knowledge_base_jobs')
    .columns(['knowledge_base_id'])
    .unique()
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('knowledge_base_jobs').execute();
  await db.schema.dropTable('knowledge_base_chunks').execute();
  await db.schema.dropTable('knowledge_bases').execute();
}
