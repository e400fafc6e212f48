import { type Kysely, sql } from 'kysely';

/**
 * Replayed carrier requests (docs/telephony.md, "Replays").
 *
 * - One call per carrier call: a unique index on `call_sessions (company_id, provider_call_id)` where the
 *   carrier's id is set (web calls and chats have none). A carrier's webhook sent again finds the call it
 *   made and answers what it answered the first time. Rows made by replays before this index existed keep
 *   their carrier id with `#dup-{row id}` after it, so the index can be built: the oldest row of each
 *   carrier call keeps the id itself (it is the one the carrier's own callbacks were matched to).
 * - `carrier_nonces`: the nonces of Plivo's V3 signatures seen, per company, until `expires_at`: a request
 *   whose nonce was already seen is a replay (refused with 403). A table rather than memory so every server
 *   sharing the database knows them.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  await sql`update call_sessions set provider_call_id = provider_call_id || '#dup-' || id
    where provider_call_id is not null and exists (
      select 1 from call_sessions earlier
      where earlier.company_id = call_sessions.company_id
        and earlier.provider_call_id = call_sessions.provider_call_id
        and (earlier.created_at < call_sessions.created_at
          or (earlier.created_at = call_sessions.created_at and earlier.id < call_sessions.id)))`.execute(db);
  await db.schema
    .createIndex('call_sessions_company_provider_call')
    .on('call_sessions')
    .columns(['company_id', 'provider_call_id'])
    .unique()
    .where(sql.ref('provider_call_id'), 'is not', null)
    .execute();

  await db.schema
    .createTable('carrier_nonces')
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('carrier_nonces_pk', ['company_id', 'provider', 'nonce'])
    .execute();
  await db.schema.createIndex('carrier_nonces_expires').on('carrier_nonces').column('expires_at').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('carrier_nonces').execute();
  await db.schema.dropIndex('call_sessions_company_provider_call').execute();
}
