import { COMPANY_MESSAGES, DeleteCompanyBodySchema, UpdateCompanyBodySchema } from '@contract/company.js';
import { CompanySettingsPatchSchema } from '@contract/data-storage.js';
import { Hono } from 'hono';
import type { AppDeps } from '../../platform/deps.js';
import { JSON_BODY_MAX, limitBody } from '../../platform/http/body-limit.js';
import { HttpError, jsonBody, notFound, ok } from '../../platform/http/http.js';
import type { AppEnv } from '../../platform/http/types.js';
import { record } from '../audit/index.js';
import { clientIp, requireAuth, verifyCallerPassword } from '../auth/index.js';
import { companyAccountPasswordHash, deleteCompany, loadCompany, renameCompany } from './company.repo.js';
import { loadCompanySettings, saveCompanySettings } from './settings.repo.js';

const toCompany = (row: { id: string; name: string; created_at: string }) => ({
  _id: row.id,
  name: row.name,
  createdAt: row.created_at,
});

/** /company: the caller's own company only (an account belongs to exactly one). */
export function companyRoutes(deps: AppDeps) {
  const r = new Hono<AppEnv>();
  r.use('*', requireAuth(deps), limitBody(JSON_BODY_MAX));

  const db = deps.db.db;

  r.get('/', async (c) => {
    const row = await loadCompany(db, c.get('auth').companyId);
    const companies = row ? [toCompany(row)] : [];
    return ok(c, { data: { companies, total: companies.length } });
  });

  /** Updates the caller's company profile (name). */
  r.post('/', async (c) => {
    const { name } = await jsonBody(c, UpdateCompanyBodySchema);
    const { companyId } = c.get('auth');
    await renameCompany(db, companyId, name);
    const row = await loadCompany(db, companyId);
    if (!row) throw notFound(COMPANY_MESSAGES.notFound);
    return ok(c, { msg: COMPANY_MESSAGES.updated, company: toCompany(row) });
  });

  /** The company's settings: retention of call content and the default data storage of new agents. */
  r.get('/settings', async (c) => {
    return ok(c, { data: await loadCompanySettings(db, c.get('auth').companyId) });
  });

  /** Changes either setting or both; answers the settings as they now are. */
  r.put('/settings', async (c) => {
    const patch = await jsonBody(c, CompanySettingsPatchSchema);
    const { companyId } = c.get('auth');
    const before = await loadCompanySettings(db, companyId);
    const next = {
      retention_days: patch.retention_days === undefined ? before.retention_days : patch.retention_days,
      default_data_storage: patch.default_data_storage ?? before.default_data_storage,
    };
    await saveCompanySettings(db, companyId, next, deps.clock.now().toISOString());
    const who = { companyId, actor: { id: c.get('auth').accountId }, ip: clientIp(c, deps) };
    const days = (d: number | null) => (d === null ? 'keep' : `${d} days`);
    if (next.retention_days !== before.retention_days)
      await record(deps, {
        ...who,
        action: 'company.retention_changed',
        target: `retention: ${days(before.retention_days)} -> ${days(next.retention_days)}`,
      });
    if (next.default_data_storage !== before.default_data_storage)
      await record(deps, {
        ...who,
        action: 'company.default_data_storage_changed',
        target: `default data storage: ${before.default_data_storage} -> ${next.default_data_storage}`,
      });
    return ok(c, { msg: COMPANY_MESSAGES.settingsSaved, data: next });
  });

  r.delete('/:id', async (c) => {
    const { companyId, accountId } = c.get('auth');
    if (c.req.param('id') !== companyId) throw notFound(COMPANY_MESSAGES.notFound);
    const { password } = await jsonBody(c, DeleteCompanyBodySchema);
    const passwordHash = await companyAccountPasswordHash(db, companyId, accountId);
    if (!passwordHash) throw notFound(COMPANY_MESSAGES.notFound);
    // the throttle every password check shares (per account and per IP: 429 past it)
    // 403, not 401: a wrong password must not look like an expired session to the client
    if (!(await verifyCallerPassword(deps, c, accountId, passwordHash, password))) {
      throw new HttpError(403, COMPANY_MESSAGES.passwordWrong, { errors: { password: COMPANY_MESSAGES.passwordWrong } });
    }
    await deleteCompany(deps, companyId);
    deps.logger.info('company deleted', { companyId, accountId });
    return ok(c, { msg: COMPANY_MESSAGES.deleted });
  });

  return r;
}
