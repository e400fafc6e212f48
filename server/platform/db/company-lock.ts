import { type Kysely, PostgresAdapter, type Transaction } from 'kysely';
import type { DB } from './schema.js';

/**
 * The company has no row any more (deleted meanwhile): answered like any request of a deleted company,
 * 401 with the session-expired message (server/platform/http/db-errors.ts maps it).
 */
export class CompanyGoneError extends Error {
  constructor() {
    super('The company no longer exists');
  }
}

/**
 * Runs `fn` as ONE serialised step per company: a check of a company-wide budget (the monthly spend
 * limit, and next the concurrency limit) and the write that commits against it, with no other such step
 * of the same company in between, whatever the number of requests or server instances.
 *
 *   await withCompanyLock(db, companyId, async (trx) => {
 *     if ((await committedSpend(trx, ...)) + cost > limit) throw new HttpError(422, '...');
 *     await setBatchStatus(trx, ...);
 *   });
 *
 * - PostgreSQL: a transaction that starts with `SELECT ... FOR NO KEY UPDATE` on the company's row. A second
 *   locker of the same company (any connection, any instance) waits at that SELECT until the first commits,
 *   then reads what it committed (READ COMMITTED takes a new snapshot per statement). NO KEY UPDATE rather
 *   than UPDATE so the foreign-key checks of ordinary inserts (they take KEY SHARE on the company row) are
 *   not blocked; a company deletion (a DELETE takes the row's strongest lock) waits, and a locker that
 *   comes after it finds no row.
 * - SQLite: a transaction begun IMMEDIATE (server/platform/db/index.ts): Kysely's one connection runs one
 *   transaction at a time in this process, and IMMEDIATE holds the file's write lock from the start.
 *
 * Rules: inside `fn` use only `trx` (on SQLite a query on the outer `db` would wait for this very
 * transaction forever); keep it short (no network, no file I/O: every other write of the company waits
 * on PostgreSQL's lock holders, every write of the database on SQLite's); throwing rolls everything back.
 * Throws CompanyGoneError when the company does not exist (any more).
 */
export async function withCompanyLock<T>(
  db: Kysely<DB>,
  companyId: string,
  fn: (trx: Transaction<DB>) => Promise<T>,
): Promise<T> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  return db.transaction().execute(async (trx) => {
    const select = trx.selectFrom('companies').select('id').where('id', '=', companyId);
    const row = await (postgres ? select.forNoKeyUpdate() : select).executeTakeFirst();
    if (!row) throw new CompanyGoneError();
    return fn(trx);
  });
}

/** Whether the company still has its row (a request that failed may have raced its deletion). */
export async function companyExists(db: Kysely<DB>, companyId: string): Promise<boolean> {
  const row = await db.selectFrom('companies').select('id').where('id', '=', companyId).executeTakeFirst();
  return row !== undefined;
}
