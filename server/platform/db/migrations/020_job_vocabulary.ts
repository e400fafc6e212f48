import { type Kysely, sql } from 'kysely';

/**
 * The knowledge-base jobs speak the leased jobs' vocabulary (server/platform/jobs/leased-job.ts), like the
 * analyses and the webhook deliveries: `queued` is `pending`, `run_after` is `next_attempt_at`,
 * `last_error` is `error`. Nobody sees these rows (the knowledge base shows its own status). The claim reads
 * `(status, company_id, next_attempt_at)` like the other job tables (019_job_claim_indexes.ts).
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('knowledge_base_jobs_due').execute();
  await db.schema.alterTable('knowledge_base_jobs').renameColumn('run_after', 'next_attempt_at').execute();
  await db.schema.alterTable('knowledge_base_jobs').renameColumn('last_error', 'error').execute();
  await sql`update knowledge_base_jobs set status = 'pending' where status = 'queued'`.execute(db);
  await db.schema
    .createIndex('knowledge_base_jobs_company_due')
    .on('knowledge_base_jobs')
    .columns(['status', 'company_id', 'next_attempt_at'])
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('knowledge_base_jobs_company_due').execute();
  await sql`update knowledge_base_jobs set status = 'queued' where status = 'pending'`.execute(db);
  await db.schema.alterTable('knowledge_base_jobs').renameColumn('error', 'last_error').execute();
  await db.schema.alterTable('knowledge_base_jobs').renameColumn('next_attempt_at', 'run_after').execute();
  await db.schema.createIndex('knowledge_base_jobs_due').on('knowledge_base_jobs').columns(['status', 'run_after']).execute();
}
