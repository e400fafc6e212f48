import {
  ConnectProviderBodySchema,
  DisconnectProviderBodySchema,
  isProviderName,
  PROVIDER_MESSAGES,
  PROVIDERS,
  ProviderFieldsQuerySchema,
  type ProviderInfo,
  ProviderStatusQuerySchema,
  providerInfo,
  UpdateProviderBodySchema,
} from '@contract/provider.js';
import { type Context, Hono } from 'hono';
import { newId } from '../../platform/crypto/ids.js';
import type { AppDeps } from '../../platform/deps.js';
import { JSON_BODY_MAX, limitBody } from '../../platform/http/body-limit.js';
import { isUniqueViolation } from '../../platform/http/db-errors.js';
import { HttpError, jsonBody, notFound, ok, query } from '../../platform/http/http.js';
import { idempotent } from '../../platform/http/idempotency.js';
import type { AppEnv } from '../../platform/http/types.js';
import { toolUrlsOf } from '../../voice/tools/tool-urls.js';
import { checkToolProvider, isCheckedToolProvider } from '../../voice/tools/verify.js';
import { record } from '../audit/index.js';
import { clientIp, requireAuth } from '../auth/index.js';
import { checkKeys } from './key-check.js';
import {
  connectionById,
  connectionByProvider,
  connectionsOf,
  deleteConnection,
  insertConnection,
  updateConnectionSecrets,
} from './provider.repo.js';
import { checkUrlFields, listItem, maskedKeys, openField, plainCard, sealKeys } from './provider.store.js';

/** How long the check of a tool provider's key may take. */
const CHECK_TIMEOUT_MS = 8_000;

/** Resolves a provider slug; unknown names answer `status` (404 for look-ups, 400 in bodies). */
function known(name: string, status: 400 | 404): ProviderInfo {
  if (!isProviderName(name)) throw new HttpError(status, PROVIDER_MESSAGES.unknownProvider);
  return providerInfo(name);
}

/** /provider: status, fields (masked), connect, update, disconnect. Plain values never leave the server. */
export function providerRoutes(deps: AppDeps) {
  const r = new Hono<AppEnv>();
  r.use('*', requireAuth(deps));
  // the provider's name only: never a key's value
  const audit = (c: Context<AppEnv>, action: 'provider.connected' | 'provider.changed' | 'provider.removed', name: string) =>
    record(deps, {
      companyId: c.get('auth').companyId,
      actor: { id: c.get('auth').accountId },
      action,
      target: name,
      ip: clientIp(c, deps),
    });

  r.get('/', async (c) => {
    const { name } = query(c, ProviderStatusQuerySchema);
    const { companyId } = c.get('auth');
    const infos = name ? [known(name, 404)] : PROVIDERS;
    const connections = await connectionsOf(deps, companyId);
    return ok(c, { data: infos.map((p) => ({ name: p.name, connected: connections.has(p.name) })) });
  });

  r.get('/fields', async (c) => {
    const info = known(query(c, ProviderFieldsQuerySchema).name, 404);
    const row = await connectionByProvider(deps, c.get('auth').companyId, info.name);
    return ok(c, {
      name: info.name,
      label: info.label,
      _id: row?.id ?? null,
      connected: row !== undefined,
      keys: maskedKeys(deps, info, row),
    });
  });

  r.post('/values', limitBody(JSON_BODY_MAX), idempotent(deps), async (c) => {
    const body = await jsonBody(c, ConnectProviderBodySchema);
    const info = known(body.name, 400);
    const { companyId } = c.get('auth');
    if (await connectionByProvider(deps, companyId, info.name))
      throw new HttpError(409, PROVIDER_MESSAGES.alreadyConnected(info.label));
    const keys = await checkUrlFields(deps, info, body.keys);
    const secrets = sealKeys(deps, companyId, info, keys);
    // the provider tries the credentials before anything is saved (refused: 400 naming the field)
    const { warning } = await checkKeys(deps, info, plainCard(deps, info, keys).values);
    const now = deps.clock.now();
    const row = {
      id: newId(now),
      company_id: companyId,
      provider: info.name,
      secrets: JSON.stringify(secrets),
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    try {
      await insertConnection(deps, row);
    } catch (e) {
      if (isUniqueViolation(e)) throw new HttpError(409, PROVIDER_MESSAGES.alreadyConnected(info.label));
      throw e;
    }
    deps.logger.info('provider connected', { companyId, provider: info.name });
    await audit(c, 'provider.connected', info.name);
    return ok(
      c,
      { msg: PROVIDER_MESSAGES.connected(info.label), provider: listItem(info, row), ...(warning ? { warning } : {}) },
      201,
    );
  });

  r.delete('/disconnect', async (c) => {
    const info = known((await jsonBody(c, DisconnectProviderBodySchema)).name, 400);
    const { companyId } = c.get('auth');
    if (!(await deleteConnection(deps, companyId, info.name))) throw notFound(PROVIDER_MESSAGES.notConnected(info.label));
    deps.logger.info('provider disconnected', { companyId, provider: info.name });
    await audit(c, 'provider.removed', info.name);
    return ok(c, { msg: PROVIDER_MESSAGES.disconnected(info.label) });
  });

  // the stored key of a tool provider (Cal.com, Calendly, Perplexity) tried against the provider itself
  r.post('/check', async (c) => {
    const info = known((await jsonBody(c, DisconnectProviderBodySchema)).name, 400);
    if (!isCheckedToolProvider(info.name)) throw new HttpError(400, `${info.label} has no check here`);
    const row = await connectionByProvider(deps, c.get('auth').companyId, info.name);
    if (!row) throw notFound(PROVIDER_MESSAGES.notConnected(info.label));
    const secretField = info.fields.find((f) => f.secret)?.name ?? 'API Key';
    const apiKey = openField(deps, row, secretField);
    if (!apiKey) return ok(c, { ok: false, msg: `${info.label}: the stored key cannot be read. Enter it again.` });
    const baseUrl = deps.config.providerUrls[info.name] ?? toolUrlsOf()[info.name] ?? '';
    const result = await checkToolProvider(
      info.name,
      { apiKey, baseUrl, publicOnly: false },
      AbortSignal.timeout(CHECK_TIMEOUT_MS),
    );
    return ok(c, result);
  });

  r.put('/:id', async (c) => {
    const { keys } = await jsonBody(c, UpdateProviderBodySchema);
    const { companyId } = c.get('auth');
    const row = await connectionById(deps, companyId, c.req.param('id'));
    if (!row || !isProviderName(row.provider)) throw notFound('Provider connection not found');
    const info = providerInfo(row.provider);
    const checked = await checkUrlFields(deps, info, keys, row);
    const secrets = JSON.stringify(sealKeys(deps, companyId, info, checked, row));
    const card = plainCard(deps, info, checked, row);
    const { warning } = card.changed ? await checkKeys(deps, info, card.values) : {};
    const updated = { ...row, secrets, updated_at: deps.clock.now().toISOString() };
    await updateConnectionSecrets(deps, companyId, row.id, secrets, updated.updated_at);
    deps.logger.info('provider updated', { companyId, provider: info.name });
    await audit(c, 'provider.changed', info.name);
    return ok(c, {
      msg: PROVIDER_MESSAGES.updated(info.label),
      provider: listItem(info, updated),
      ...(warning ? { warning } : {}),
    });
  });

  return r;
}
