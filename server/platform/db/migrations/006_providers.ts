import type { Kysely } from 'kysely';

/**
 * A company's connection to a third-party provider. `secrets` is a JSON object of field name ->
 * envelope-encrypted value (server/platform/crypto/secrets.ts); no plain credential is ever stored.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('provider_connections')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('secrets', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // one connection per provider and company; also makes concurrent connects safe (the loser gets 409)
  await db.schema
    .createIndex('provider_connections_company_provider_uq')
    .on('provider_connections')
    .columns(['company_id', 'provider'])
    .unique()
    .execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see above
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('provider_connections').execute();
}
