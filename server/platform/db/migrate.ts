import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { migrations } from './migrations/index.js';

/**
 * Runs every pending migration, in name order, each in its own transaction together with its row in
 * `parley_migrations` (so a migration is applied completely or not at all). Idempotent.
 *
 * Why not Kysely's Migrator: it decides whether its tables exist by reading the catalogue of EVERY
 * schema of a PostgreSQL database, which fails when another schema is dropped at that moment (other
 * tenants of a shared database, parallel test runs). This one only touches the connection's own schema.
 *
 * On PostgreSQL the run holds an advisory lock (MIGRATION_LOCK_KEY) on one connection, so several
 * instances starting at once apply each migration exactly once. SQLite serialises writers by itself.
 * A database migrated by the earlier Kysely Migrator (`kysely_migration`) keeps its history.
 */
// biome-ignore lint/suspicious/noExplicitAny: the migrator works on any schema
export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return migrateOn(db, 'sqlite');
  await db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK_KEY})`.execute(conn);
    try {
      await migrateOn(conn, 'postgres');
    } finally {
      await sql`select pg_advisory_unlock(${MIGRATION_LOCK_KEY})`.execute(conn);
    }
  });
}

/** Advisory lock key (PostgreSQL) held while migrating; test clean-up takes it before dropping schemas. */
export const MIGRATION_LOCK_KEY = 7_316_041;

/** Names of the applied migrations, in order. */
// biome-ignore lint/suspicious/noExplicitAny: see above
export async function appliedMigrations(db: Kysely<any>): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from parley_migrations order by name`.execute(db);
  return rows.map((r) => r.name);
}

// biome-ignore lint/suspicious/noExplicitAny: see above
async function migrateOn(db: Kysely<any>, kind: 'sqlite' | 'postgres'): Promise<void> {
  await sql`create table if not exists parley_migrations (name text primary key, executed_at text not null)`.execute(db);
  await adoptKyselyHistory(db, kind);
  const done = new Set(await appliedMigrations(db));
  for (const name of Object.keys(migrations).sort()) {
    const migration = migrations[name];
    if (done.has(name) || !migration) continue;
    try {
      await db.transaction().execute(async (trx) => {
        await migration.up(trx);
        await sql`insert into parley_migrations (name, executed_at) values (${name}, ${new Date().toISOString()})`.execute(trx);
      });
    } catch (error) {
      throw new Error(`Database migration failed at ${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** Copies the history of Kysely's Migrator (used by the first release) into parley_migrations, once. */
// biome-ignore lint/suspicious/noExplicitAny: see above
async function adoptKyselyHistory(db: Kysely<any>, kind: 'sqlite' | 'postgres'): Promise<void> {
  const exists =
    kind === 'postgres'
      ? (await sql<{ t: string | null }>`select to_regclass('kysely_migration')::text as t`.execute(db)).rows[0]?.t
      : (
          await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name = 'kysely_migration'`.execute(
            db,
          )
        ).rows[0]?.name;
  if (!exists) return;
  await sql`insert into parley_migrations (name, executed_at)
    select name, timestamp from kysely_migration where name not in (select name from parley_migrations)`.execute(db);
}
