import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { CompiledQuery, type DatabaseConnection, Kysely, PostgresDialect, SqliteDialect, SqliteDriver, sql } from 'kysely';
import pg from 'pg';
import { migrateToLatest } from './migrate.js';
import type { DB } from './schema.js';

export type DbKind = 'sqlite' | 'postgres';

export interface Database_ {
  db: Kysely<DB>;
  kind: DbKind;
  close(): Promise<void>;
}
export type { Database_ as AppDatabase };

// PostgreSQL returns BIGINT (count(*)) as text by default; our counts fit comfortably in a JS number.
pg.types.setTypeParser(20, (value: string) => Number.parseInt(value, 10));
// NUMERIC as number (costs are small decimals)
pg.types.setTypeParser(1700, (value: string) => Number.parseFloat(value));

export interface OpenOptions {
  /** postgres://... or undefined for SQLite */
  url?: string | undefined;
  /** SQLite file path, or ':memory:' */
  sqliteFile?: string;
  /** PostgreSQL schema to use (tests isolate themselves in their own schema) */
  pgSchema?: string;
  /** run migrations after opening (default true) */
  migrate?: boolean;
  poolSize?: number;
}

export async function openDatabase(opts: OpenOptions): Promise<Database_> {
  let result: Database_;
  if (opts.url) {
    const pool = new pg.Pool({
      connectionString: opts.url,
      max: opts.poolSize ?? 10,
      ...(opts.pgSchema ? { options: `-c search_path=${opts.pgSchema}` } : {}),
    });
    if (opts.pgSchema) {
      const client = await pool.connect();
      try {
        await client.query(`CREATE SCHEMA IF NOT EXISTS "${opts.pgSchema.replace(/"/g, '')}"`);
      } finally {
        client.release();
      }
    }
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    result = { db, kind: 'postgres', close: () => db.destroy() };
  } else {
    const file = opts.sqliteFile ?? ':memory:';
    if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
    const sqlite = new Database(file);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    const db = new Kysely<DB>({ dialect: new ImmediateSqliteDialect({ database: sqlite }) });
    result = { db, kind: 'sqlite', close: () => db.destroy() };
  }
  if (opts.migrate !== false) await migrateToLatest(result.db);
  return result;
}

/**
 * SQLite with every transaction begun IMMEDIATE (Kysely's driver says a plain `begin`, which is DEFERRED).
 * Inside this process Kysely's one SQLite connection already runs transactions one at a time; IMMEDIATE
 * also takes the database's write lock at the start, so a transaction that reads and then writes
 * (withCompanyLock) is serialised against other processes on the same file too (the admin CLI, a second
 * server): they wait their turn (busy_timeout) instead of one of them failing with SQLITE_BUSY when it
 * upgrades its read to a write.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}
class ImmediateSqliteDialect extends SqliteDialect {
  constructor(private readonly settings: ConstructorParameters<typeof SqliteDialect>[0]) {
    super(settings);
  }
  override createDriver() {
    return new ImmediateSqliteDriver(this.settings);
  }
}

/** A real round trip to the database (used by the health check). */
export async function ping(db: Kysely<DB>): Promise<void> {
  await sql`select 1 as ok`.execute(db);
}

/** SQLite only: lets this connection cache up to `mib` MiB of pages (bulk loads rebuilding indexes). */
export async function widenSqliteCache(db: Kysely<DB>, mib: number): Promise<void> {
  await sql`pragma cache_size = ${sql.raw(String(-Math.floor(mib * 1024)))}`.execute(db);
}
