import type { Kysely } from 'kysely';

/**
 * Indexes for the expiry sweep (server/modules/auth/sweep.ts): it deletes sessions, refresh tokens and
 * password reset tokens whose `expires_at` has passed, a batch at a time, without reading whole tables.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the untyped builder
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('sessions_expires_idx').on('sessions').column('expires_at').execute();
  await db.schema.createIndex('sessions_revoked_idx').on('sessions').column('revoked_at').execute();
  await db.schema.createIndex('refresh_tokens_expires_idx').on('refresh_tokens').column('expires_at').execute();
  await db.schema.createIndex('password_reset_tokens_expires_idx').on('password_reset_tokens').column('expires_at').execute();
}

// biome-ignore lint/suspicious/noExplicitAny: see above
export async function down(db: Kysely<any>): Promise<void> {
  for (const name of [
    'password_reset_tokens_expires_idx',
    'refresh_tokens_expires_idx',
    'sessions_revoked_idx',
    'sessions_expires_idx',
  ]) {
    await db.schema.dropIndex(name).execute();
  }
}
