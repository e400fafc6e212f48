import fs from 'node:fs';
import { Hono } from 'hono';
import { type Kysely, sql } from 'kysely';
import { COMPANY_MESSAGES, DeleteCompanyBodySchema, UpdateCompanyBodySchema } from '../../../src/api/contract/company.js';
import type { DB } from '../../db/schema.js';
import { requireAuth } from '../../lib/auth.js';
import { JSON_BODY_MAX, limitBody } from '../../lib/body-limit.js';
import type { AppDeps } from '../../lib/deps.js';
import { HttpError, jsonBody, notFound, ok } from '../../lib/http.js';
import { verifyPassword } from '../../services/passwords.js';
import { removeUpload } from '../../services/uploads.js';
import type { AppEnv } from '../../types.js';
import { companyKbDir } from '../knowledge-base/kb.repo.js';
import { releasePoolNumbers } from '../number/number.repo.js';

const toCompany = (row: { id: string; name: string; created_at: string }) => ({
  _id: row.id,
  name: row.name,
  createdAt: row.created_at,
});

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
  await db.transaction().execute(async (trx) => {
    // numbers taken from the platform pool go back to it; numbers the company added itself go with it
    await releasePoolNumbers(trx, companyId, deps.clock.now());
    await trx.deleteFrom('companies').where('id', '=', companyId).execute();
    for (const table of tables) await sql`delete from ${sql.table(table)} where company_id = ${companyId}`.execute(trx);
  });
  for (const f of files) await removeUpload(deps.config.dataDir, f.name).catch(() => undefined);
  await fs.promises.rm(companyKbDir(deps.config.dataDir, companyId), { recursive: true, force: true });
}

/** /company: the caller's own company only (an account belongs to exactly one). */
export function companyRoutes(deps: AppDeps) {
  const r = new Hono<AppEnv>();
  r.use('*', requireAuth(deps), limitBody(JSON_BODY_MAX));

  const load = (companyId: string) =>
    deps.db.db.selectFrom('companies').select(['id', 'name', 'created_at']).where('id', '=', companyId).executeTakeFirst();

  r.get('/', async (c) => {
    const row = await load(c.get('auth').companyId);
    const companies = row ? [toCompany(row)] : [];
    return ok(c, { data: { companies, total: companies.length } });
  });

  /** Updates the caller's company profile (name). */
  r.post('/', async (c) => {
    const { name } = await jsonBody(c, UpdateCompanyBodySchema);
    const { companyId } = c.get('auth');
    await deps.db.db.updateTable('companies').set({ name }).where('id', '=', companyId).execute();
    const row = await load(companyId);
    if (!row) throw notFound(COMPANY_MESSAGES.notFound);
    return ok(c, { msg: COMPANY_MESSAGES.updated, company: toCompany(row) });
  });

  r.delete('/:id', async (c) => {
    const { companyId, accountId } = c.get('auth');
    if (c.req.param('id') !== companyId) throw notFound(COMPANY_MESSAGES.notFound);
    const { password } = await jsonBody(c, DeleteCompanyBodySchema);
    const account = await deps.db.db
      .selectFrom('accounts')
      .select('password_hash')
      .where('id', '=', accountId)
      .where('company_id', '=', companyId)
      .executeTakeFirst();
    if (!account) throw notFound(COMPANY_MESSAGES.notFound);
    // 403, not 401: a wrong password must not look like an expired session to the client
    if (!(await verifyPassword(account.password_hash, password))) {
      throw new HttpError(403, COMPANY_MESSAGES.passwordWrong, { errors: { password: COMPANY_MESSAGES.passwordWrong } });
    }
    await deleteCompany(deps, companyId);
    deps.logger.info('company deleted', { companyId, accountId });
    return ok(c, { msg: COMPANY_MESSAGES.deleted });
  });

  return r;
}
