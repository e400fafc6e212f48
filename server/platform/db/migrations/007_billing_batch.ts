import type { Kysely } from 'kysely';

/**
 * Billing settings of a company (limits and billing contact; one row, absent = defaults) and batch calls
 * with their recipients.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('company_billing')
    .addColumn('company_id', 'text', (c) => c.primaryKey().references('companies.id').onDelete('cascade'))
    .addColumn('concurrency_limit', 'integer', (c) => c.notNull())
    .addColumn('monthly_spend_limit_cents', 'bigint', (c) => c.notNull())
    .addColumn('contact_name', 'text', (c) => c.notNull())
    .addColumn('contact_email', 'text', (c) => c.notNull())
    .addColumn('contact_address', 'text', (c) => c.notNull())
    .addColumn('contact_tax_id', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('batch_calls')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('from_number', 'text', (c) => c.notNull())
    .addColumn('send_mode', 'text', (c) => c.notNull())
    .addColumn('scheduled_at', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    // the upload whose rows are the batch's recipients (a new upload replaces the previous one)
    .addColumn('upload_id', 'text')
    .addColumn('recipients_count', 'integer', (c) => c.notNull())
    .addColumn('invalid_count', 'integer', (c) => c.notNull())
    .addColumn('duplicate_count', 'integer', (c) => c.notNull())
    .addColumn('sent_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // the idempotency guarantee: one batch per key and company, whatever the concurrency
  await db.schema
    .createIndex('batch_calls_idempotency_uq')
    .on('batch_calls')
    .columns(['company_id', 'idempotency_key'])
    .unique()
    .execute();
  await db.schema
    .createIndex('batch_calls_company_created_idx')
    .on('batch_calls')
    .columns(['company_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('batch_recipients')
    .addColumn('batch_id', 'text', (c) => c.notNull().references('batch_calls.id').onDelete('cascade'))
    .addColumn('company_id', 'text', (c) => c.notNull())
    .addColumn('upload_id', 'text', (c) => c.notNull())
    /** spreadsheet row of the CSV (the header is row 1) */
    .addColumn('row_number', 'integer', (c) => c.notNull())
    .addColumn('phone_number', 'text', (c) => c.notNull())
    /** JSON object of the other columns: the dynamic variables {{column}} */
    .addColumn('variables', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('batch_recipients_pk', ['upload_id', 'row_number'])
    .execute();
  // duplicates are detected by the database, so memory stays flat for millions of rows
  await db.schema
    .createIndex('batch_recipients_upload_phone_uq')
    .on('batch_recipients')
    .columns(['upload_id', 'phone_number'])
    .unique()
    .execute();
  await db.schema.createIndex('batch_recipients_batch_idx').on('batch_recipients').column('batch_id').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('batch_recipients').execute();
  await db.schema.dropTable('batch_calls').execute();
  await db.schema.dropTable('company_billing').execute();
}
