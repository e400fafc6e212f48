import fs from 'node:fs';
import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { AppDeps } from '../../platform/deps.js';
import { yieldToLoop } from '../../platform/jobs/cooperative.js';
import { removeUpload } from '../../platform/uploads/uploads.js';
import { companyKbDir } from '../knowledge/index.js';
import { releasePoolNumbers } from '../numbers/index.js';

/** The company queries of /company, and the deletion of a company with everything it owns. */

/** Every table of this database (current schema on PostgreSQL) with a company_id column. */
export async function companyScopedTables(db: Kysely<DB>, kind: 'sqlite' | 'postgres'): Promise<string[]> {
  if (kind === 'postgres') {
    // the catalogue of this schema only (Kysely's introspection reads every schema of the database)
    const { rows } = await sql<{ table_name: string }>`
      select c.table_name from information_schema.columns c
      join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
      where c.table_schema = current_schema() and c.column_name = 'company_id' and t.table_type = 'BASE TABLE'
        and c.table_name <> 'companies'`.execute(db);
    return rows.map((r) => r.table_name);
  }
  const tables = await db.introspection.getTables();
  return tables
    .filter((t) => !t.isView && t.name !== 'companies')
    .filter((t) => t.columns.some((c) => c.name === 'company_id'))
    .map((t) => t.name);
}

/** Rows per DELETE when a company's largest tables are emptied on SQLite. */
const DELETE_ROWS = 1000;

/**
 * SQLite runs on the event loop, and one cascade of 200,000 calls held it 5.6 s (2.6 s of CPU): there the company's
 * largest tables (reached through an index each) are emptied first, DELETE_ROWS rows per statement with
 * a turn of the loop between. If the process dies meanwhile, the company is still there with fewer rows
 * and deleting it again finishes the work. PostgreSQL answers other requests while it deletes: one
 * transaction there.
 */
async function emptyLargeTables(db: Kysely<DB>, companyId: string): Promise<void> {
  const steps = [
    sql`delete from calls where rowid in (select rowid from calls where company_id = ${companyId} limit ${DELETE_ROWS})`,
    sql`delete from call_counts where rowid in (select rowid from call_counts where company_id = ${companyId} limit ${DELETE_ROWS})`,
    sql`delete from batch_recipients where rowid in (select rowid from batch_recipients where batch_id in
      (select id from batch_calls where company_id = ${companyId}) limit ${DELETE_ROWS})`,
    sql`delete from knowledge_base_chunks where rowid in (select rowid from knowledge_base_chunks where knowledge_base_id in
      (select id from knowledge_bases where company_id = ${companyId}) limit ${DELETE_ROWS})`,
  ];
  for (const step of steps) {
    for (;;) {
      const res = await step.execute(db);
      if (Number(res.numAffectedRows ?? 0) < DELETE_ROWS) break;
      await yieldToLoop();
    }
  }
}

/**
 * Removes a company and everything it owns, in one transaction: deleting the company row lets the
 * foreign keys cascade (accounts -> sessions -> refresh tokens, agents, numbers, calls, providers,
 * batches...), then any remaining row of a table with a company_id column is deleted too. Stored files
 * (uploads, knowledge-base sources) are removed after the commit. Pool numbers return to the pool.
 */
export async function deleteCompany(deps: AppDeps, companyId: string): Promise<void> {
  const db = deps.db.db;
  const tables = await companyScopedTables(db, deps.db.kind);
  const files = await db.selectFrom('files').select('name').where('company_id', '=', companyId).execute();
  if (deps.db.kind === 'sqlite') await emptyLargeTables(db, companyId);
  await db.transaction().execute(async (trx) => {
    // numbers taken from the platform pool go back to it; numbers the company added itself go with it
    await releasePoolNumbers(trx, companyId, deps.clock.now());
    await trx.deleteFrom('companies').where('id', '=', companyId).execute();
    for (const table of tables) await sql`delete from ${sql.table(table)} where company_id = ${companyId}`.execute(trx);
  });
  // The company is gone once that commits, so the answer is a success whatever happens to its files: they
  // are removed best effort. An upload of the company still in flight may be writing into its knowledge-base
  // directory at this moment (rm then meets ENOTEMPTY): rm retries, and what an upload leaves after that is
  // removed by the upload itself when its insert fails, or by the orphan sweep (services/pending-uploads.ts).
  for (const f of files) await removeUpload(deps.config.dataDir, f.name).catch(() => undefined);
  await fs.promises
    .rm(companyKbDir(deps.config.dataDir, companyId), { recursive: true, force: true, maxRetries: 5, retryDelay: 20 })
    .catch((e: unknown) =>
      deps.logger.warn('files of a deleted company left for the sweep', {
        companyId,
        reason: e instanceof Error ? e.message : String(e),
      }),
    );
}

/** The company's profile row. */
export function loadCompany(db: Kysely<DB>, companyId: string) {
  return db.selectFrom('companies').select(['id', 'name', 'created_at']).where('id', '=', companyId).executeTakeFirst();
}

export async function renameCompany(db: Kysely<DB>, companyId: string, name: string): Promise<void> {
  await db.updateTable('companies').set({ name }).where('id', '=', companyId).execute();
}

/** The password hash of the account `accountId` of `companyId` (undefined when it is not that company's). */
export async function companyAccountPasswordHash(db: Kysely<DB>, companyId: string, accountId: string) {
  const row = await db
    .selectFrom('accounts')
    .select('password_hash')
    .where('id', '=', accountId)
    .where('company_id', '=', companyId)
    .executeTakeFirst();
  return row?.password_hash;
}
