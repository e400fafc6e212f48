import { BILLING_MESSAGES, BillingContactSchema, BillingLimitsSchema, MonthSchema, UsageQuerySchema } from '@contract/billing.js';
import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppDeps } from '../../platform/deps.js';
import { JSON_BODY_MAX, limitBody } from '../../platform/http/body-limit.js';
import { jsonBody, notFound, ok, query } from '../../platform/http/http.js';
import type { AppEnv } from '../../platform/http/types.js';
import { requireAuth } from '../auth/index.js';
import { loadCompany } from '../company/index.js';
import {
  billingContact,
  billingLimits,
  monthOf,
  monthToDateSpend,
  numberCountries,
  saveContact,
  saveLimits,
  statements,
  usage,
} from './billing.service.js';

/** /billing: statements and the printable invoice, usage per day and agent, limits, billing contact. */
export function billingRoutes(deps: AppDeps) {
  const r = new Hono<AppEnv>();
  r.use('*', requireAuth(deps), limitBody(JSON_BODY_MAX));

  r.get('/statements', async (c) => ok(c, { statements: await statements(deps, c.get('auth').companyId) }));

  r.get('/statements/:id', async (c) => {
    const id = c.req.param('id');
    if (!v.is(MonthSchema, id)) throw notFound(BILLING_MESSAGES.statementNotFound);
    const { companyId, accountId } = c.get('auth');
    const statement = (await statements(deps, companyId)).find((s) => s.id === id);
    if (!statement) throw notFound(BILLING_MESSAGES.statementNotFound);
    const [company, billTo] = await Promise.all([
      loadCompany(deps.db.db, companyId).then((row) => {
        if (!row) throw notFound();
        return row;
      }),
      billingContact(deps, companyId, accountId),
    ]);
    const today = deps.clock.now().toISOString().slice(0, 10);
    const dayAfter = new Date(Date.parse(`${statement.periodEnd}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    return ok(c, {
      invoice: {
        number: `INV-${id.replace('-', '')}-${companyId.slice(-6).toUpperCase()}`,
        issuedOn: statement.status === 'Open' ? today : dayAfter,
        company: { _id: company.id, name: company.name },
        billTo,
        statement,
      },
    });
  });

  r.get('/usage', async (c) => {
    const { month } = query(c, UsageQuerySchema);
    return ok(c, await usage(deps, c.get('auth').companyId, month ?? monthOf(deps.clock.now())));
  });

  const limitsAnswer = async (companyId: string, msg?: string) => ({
    ...(msg ? { msg } : {}),
    limits: await billingLimits(deps, companyId),
    monthToDateSpend: await monthToDateSpend(deps, companyId),
    numberCountries: await numberCountries(deps, companyId),
  });

  r.get('/limits', async (c) => ok(c, await limitsAnswer(c.get('auth').companyId)));

  r.put('/limits', async (c) => {
    const limits = await jsonBody(c, BillingLimitsSchema);
    const { companyId } = c.get('auth');
    await saveLimits(deps, companyId, limits);
    return ok(c, await limitsAnswer(companyId, BILLING_MESSAGES.limitsSaved));
  });

  r.get('/contact', async (c) => {
    const { companyId, accountId } = c.get('auth');
    return ok(c, { contact: await billingContact(deps, companyId, accountId) });
  });

  r.put('/contact', async (c) => {
    const contact = await jsonBody(c, BillingContactSchema);
    const { companyId, accountId } = c.get('auth');
    await saveContact(deps, companyId, contact);
    return ok(c, { msg: BILLING_MESSAGES.contactSaved, contact: await billingContact(deps, companyId, accountId) });
  });

  return r;
}
