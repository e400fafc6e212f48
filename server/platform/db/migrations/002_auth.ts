import type { Kysely } from 'kysely';

/**
 * Sessions and their refresh-token families, password reset tokens, rate-limit counters, contact
 * messages and uploaded file metadata. Secrets (refresh and reset tokens) are stored only as
 * SHA-256 hashes.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  // One row per login: the refresh-token family. Revoking it refuses its access and refresh tokens.
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('company_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('revoked_reason', 'text')
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .execute();
  await db.schema.createIndex('sessions_account_idx').on('sessions').column('account_id').execute();

  // Every refresh token ever issued in a family; each is single use (used_at set on rotation).
  await db.schema
    .createTable('refresh_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('session_id', 'text', (c) => c.notNull().references('sessions.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('parent_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema.createIndex('refresh_tokens_hash_uq').on('refresh_tokens').column('token_hash').unique().execute();
  await db.schema.createIndex('refresh_tokens_session_idx').on('refresh_tokens').column('session_id').execute();

  await db.schema
    .createTable('password_reset_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .execute();
  await db.schema
    .createIndex('password_reset_tokens_hash_uq')
    .on('password_reset_tokens')
    .column('token_hash')
    .unique()
    .execute();
  await db.schema.createIndex('password_reset_tokens_account_idx').on('password_reset_tokens').column('account_id').execute();

  // Fixed-window counters shared by every server instance: one row per key and window.
  await db.schema
    .createTable('rate_limits')
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('window_start', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('rate_limits_pk', ['key', 'window_start'])
    .execute();
  await db.schema.createIndex('rate_limits_expires_idx').on('rate_limits').column('expires_at').execute();

  await db.schema
    .createTable('contact_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  // Uploaded files (profile photos today). `name` is the server-generated, unguessable file name.
  await db.schema
    .createTable('files')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('company_id', 'text', (c) => c.notNull().references('companies.id').onDelete('cascade'))
    .addColumn('account_id', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('files_name_uq').on('files').column('name').unique().execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see above
export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['files', 'contact_messages', 'rate_limits', 'password_reset_tokens', 'refresh_tokens', 'sessions']) {
    await db.schema.dropTable(t).execute();
  }
}
