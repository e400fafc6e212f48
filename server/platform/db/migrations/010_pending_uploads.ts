import { type Kysely, sql } from 'kysely';

/**
 * Uploads in progress (server/platform/uploads/pending-uploads.ts): a row per recipients list, knowledge-base
 * directory or photo that is being written and is not yet part of the data, with a lease its request
 * renews. A row whose lease ran out belongs to a request that died (SIGKILL, crash): the sweep removes
 * what it left (recipient rows, a directory, a file) and then the row.
 * No foreign key on company_id: a photo's company is created in the very transaction that ends its lease.
 *
 * The recipient rows that earlier crashes left behind (uploads that are no batch's list) are marked here
 * with a lease already run out, so the first sweep removes them.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('pending_uploads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    /** recipients | knowledge-base | photo */
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('company_id', 'text')
    /** a random token of the request (or sweep) holding the lease */
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('lease_until', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pending_uploads_lease_idx').on('pending_uploads').column('lease_until').execute();

  const now = new Date().toISOString();
  await sql`insert into pending_uploads (id, kind, company_id, owner, lease_until, created_at)
    select distinct r.upload_id, 'recipients', r.company_id, '', ${new Date(0).toISOString()}, ${now}
    from batch_recipients r
    where not exists (select 1 from batch_calls b where b.id = r.batch_id and b.upload_id = r.upload_id)`.execute(db);
}

// biome-ignore lint/suspicious/noExplicitAny: see above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('pending_uploads').execute();
}
