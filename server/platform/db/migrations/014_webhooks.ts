import type { Kysely } from 'kysely';

/**
 * Webhooks and post-call analysis.
 *
 * `company_webhooks`: one row per company: the company-wide webhook URL (empty: none) and the company's
 * signing secret (sealed with the master key, like provider credentials; shown once when it is made).
 *
 * `webhook_deliveries`: the outbox. A row is written when an event happens and is sent by whichever server
 * claims it (status `pending` and due, or `sending` with an expired lease: its server died). `target` is
 * 'company' or 'agent' (then `agent_id`), `payload` the JSON body as it is sent, `attempts` counted at each
 * claim. Request and response bodies of the last attempt are kept cut at 8 KB for the delivery log.
 *
 * `call_analyses`: one post-call analysis per call, run by the same kind of worker (retried, then failed).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('company_webhooks')
    .addColumn('company_id', 'text', (c) => c.primaryKey().references('companies.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('secret', 'text')
    .addColumn('secret_hint', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('agent_id', 'text')
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('call_id', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('lease_until', 'text')
    .addColumn('worker', 'text')
    .addColumn('status_code', 'integer')
    .addColumn('duration_ms', 'integer')
    .addColumn('error', 'text')
    .addColumn('request_body', 'text')
    .addColumn('response_body', 'text')
    .addColumn('attempted_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
  await db.schema
    .createIndex('webhook_deliveries_company_created')
    .on('webhook_deliveries')
    .columns(['company_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('call_analyses')
    .addColumn('call_id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('lease_until', 'text')
    .addColumn('worker', 'text')
    .addColumn('result', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('call_analyses_due').on('call_analyses').columns(['status', 'next_attempt_at']).execute();
}

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('call_analyses').execute();
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('company_webhooks').execute();
}
