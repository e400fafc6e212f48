import type { Kysely } from 'kysely';

/**
 * Indexes for the fair claim of the background jobs (server/platform/jobs/jobs.repo.ts): the webhook outbox and the
 * post-call analyses are claimed company by company (each company's oldest due rows, and how many it has
 * in flight). `(status, company_id, next_attempt_at)` lets the claim list the companies with pending rows
 * one index seek each, and read a company's oldest due rows (or count its rows in flight) from the index,
 * instead of ranking every due row of every company at each claim. The Resend limits of the delivery log
 * use `rate_limits` and need nothing new.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('webhook_deliveries_company_due')
    .on('webhook_deliveries')
    .columns(['status', 'company_id', 'next_attempt_at'])
    .execute();
  await db.schema
    .createIndex('call_analyses_company_due')
    .on('call_analyses')
    .columns(['status', 'company_id', 'next_attempt_at'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('call_analyses_company_due').execute();
  await db.schema.dropIndex('webhook_deliveries_company_due').execute();
}
