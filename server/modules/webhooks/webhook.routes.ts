import {
  type Delivery,
  type DeliveryDetail,
  DeliveryListQuerySchema,
  WEBHOOK_MESSAGES,
  WebhookUrlBodySchema,
} from '@contract/webhook.js';
import { Hono } from 'hono';
import { isId } from '../../platform/crypto/ids.js';
import { parseJson } from '../../platform/db/json.js';
import type { WebhookDeliveriesTable } from '../../platform/db/schema.js';
import type { AppDeps } from '../../platform/deps.js';
import { JSON_BODY_MAX, limitBody } from '../../platform/http/body-limit.js';
import { HttpError, jsonBody, notFound, ok, query } from '../../platform/http/http.js';
import { enforce, forgive } from '../../platform/http/ratelimit.js';
import type { AppEnv } from '../../platform/http/types.js';
import { jobLimitsOf } from '../../platform/jobs/limits.js';
import { assertPublicUrl, UnsafeUrlError } from '../../platform/net/net-guard.js';
import { requireAuth } from '../auth/index.js';
import { companyWebhook, enqueueDeliveries, rotateSecret, saveCompanyWebhookUrl } from './outbox.js';
import { agentsWithWebhook, findDelivery, listDeliveries } from './webhook.repo.js';

type Row = Pick<
  WebhookDeliveriesTable,
  | 'id'
  | 'target'
  | 'agent_id'
  | 'url'
  | 'event'
  | 'call_id'
  | 'status'
  | 'attempts'
  | 'status_code'
  | 'duration_ms'
  | 'error'
  | 'attempted_at'
  | 'created_at'
  | 'next_attempt_at'
>;

const item = (r: Row): Delivery => ({
  _id: r.id,
  webhook: r.target,
  agent_id: r.agent_id,
  url: r.url,
  event: r.event,
  call_id: r.call_id,
  status: r.status as Delivery['status'],
  attempts: Number(r.attempts),
  status_code: r.status_code === null ? null : Number(r.status_code),
  duration_ms: r.duration_ms === null ? null : Number(r.duration_ms),
  error: r.error,
  time: r.attempted_at ?? r.created_at,
  next_attempt_at: r.status === 'pending' ? r.next_attempt_at : null,
});

/**
 * A webhook URL a tenant chose must be public (SSRF): refused (400) when it resolves to a loopback,
 * private, link-local or metadata address, unless ALLOW_PRIVATE_WEBHOOK_URLS. Checked again at each send
 * (DNS can change), where a name that does not resolve fails the attempt.
 */
export async function checkWebhookUrl(deps: AppDeps, url: string, field = 'url'): Promise<void> {
  if (url === '') return;
  try {
    await assertPublicUrl(url, { allowPrivate: deps.config.allowPrivateWebhookUrls === true });
  } catch (e) {
    if (!(e instanceof UnsafeUrlError)) throw e;
    // a name that does not resolve (yet) reaches nothing: it is checked again at each send
    if (e.reason === 'unresolvable') return;
    const message = WEBHOOK_MESSAGES.urlRefused(e.message);
    throw new HttpError(400, message, { errors: { [field]: message } });
  }
}

/** The company's webhooks: its own URL, then each agent with an 'Agent Level Webhook' (at most 200). */
async function webhooksOf(deps: AppDeps, companyId: string, companyUrl: string) {
  const agents = await agentsWithWebhook(deps.db.db, companyId);
  const out = companyUrl ? [{ id: 'company', label: 'Company webhook', url: companyUrl }] : [];
  for (const a of agents) {
    const url = parseJson<{ editor?: { agentLevelWebhook?: string } }>(a.doc, {}).editor?.agentLevelWebhook ?? '';
    if (url) out.push({ id: a.id, label: a.agent_name, url });
  }
  return out;
}

/**
 * Resend is limited per delivery (one per `resendIntervalMs`) and per company (`resendsPerMinute` in a
 * sliding minute), across servers (server/platform/http/ratelimit.ts): over either, 429 with Retry-After and a
 * sentence saying which. A Resend refused by the company's limit is not held against its delivery.
 */
async function limitResend(deps: AppDeps, companyId: string, deliveryId: string) {
  const limits = jobLimitsOf(deps.config);
  const now = deps.clock.now();
  const perDelivery = { name: 'resend:delivery', max: 1, windowMs: limits.resendIntervalMs };
  const perCompany = { name: 'resend:company', max: limits.resendsPerMinute, windowMs: 60_000 };
  const attempt = await enforce(deps.db.db, perDelivery, deliveryId, now, WEBHOOK_MESSAGES.resendTooSoon);
  try {
    await enforce(deps.db.db, perCompany, companyId, now, (s) => WEBHOOK_MESSAGES.resendLimit(perCompany.max, s));
  } catch (e) {
    if (attempt.entry) await forgive(deps.db.db, perDelivery, deliveryId, attempt.entry);
    throw e;
  }
}

/** /webhook: the company-wide webhook, the signing secret, the delivery log and Resend (contract/webhook.ts). */
export function webhookRoutes(deps: AppDeps) {
  const r = new Hono<AppEnv>();
  const db = deps.db.db;
  r.use('*', requireAuth(deps));

  r.get('/', async (c) => {
    const { companyId } = c.get('auth');
    const row = await companyWebhook(db, companyId);
    return ok(c, {
      data: {
        url: row?.url ?? '',
        webhooks: await webhooksOf(deps, companyId, row?.url ?? ''),
        has_secret: Boolean(row?.secret),
        secret_hint: row?.secret_hint ?? null,
      },
    });
  });

  r.put('/', limitBody(JSON_BODY_MAX), async (c) => {
    const { url } = await jsonBody(c, WebhookUrlBodySchema);
    const { companyId } = c.get('auth');
    await checkWebhookUrl(deps, url);
    await saveCompanyWebhookUrl(deps, companyId, url);
    const row = await companyWebhook(db, companyId);
    deps.logger.info('webhook saved', { companyId, removed: url === '' });
    return ok(c, {
      msg: url === '' ? WEBHOOK_MESSAGES.removed : WEBHOOK_MESSAGES.saved,
      data: {
        url,
        webhooks: await webhooksOf(deps, companyId, url),
        has_secret: Boolean(row?.secret),
        secret_hint: row?.secret_hint ?? null,
      },
    });
  });

  r.post('/secret', async (c) => {
    const { companyId } = c.get('auth');
    const secret = await rotateSecret(deps, companyId);
    deps.logger.info('webhook secret rotated', { companyId });
    c.header('Cache-Control', 'no-store');
    return ok(c, { msg: WEBHOOK_MESSAGES.secretCreated, data: { secret, secret_hint: secret.slice(-4) } }, 201);
  });

  r.get('/deliveries', async (c) => {
    const { page, limit, webhook } = query(c, DeliveryListQuerySchema);
    const { companyId } = c.get('auth');
    const { rows, total } = await listDeliveries(db, companyId, { page: Number(page), limit: Number(limit), webhook });
    return ok(c, { data: { deliveries: rows.map(item), total } });
  });

  const own = async (companyId: string, id: string) => {
    const row = isId(id) ? await findDelivery(db, companyId, id) : undefined;
    if (!row) throw notFound(WEBHOOK_MESSAGES.deliveryNotFound);
    return row;
  };

  r.get('/deliveries/:id', async (c) => {
    const row = await own(c.get('auth').companyId, c.req.param('id'));
    const detail: DeliveryDetail = { ...item(row), request_body: row.request_body, response_body: row.response_body };
    return ok(c, { data: detail });
  });

  r.post('/deliveries/:id/resend', async (c) => {
    const { companyId } = c.get('auth');
    const row = await own(companyId, c.req.param('id'));
    await limitResend(deps, companyId, row.id);
    const [id] = await enqueueDeliveries(deps, [
      {
        companyId,
        target: row.target as 'company' | 'agent',
        agentId: row.agent_id,
        url: row.url,
        event: row.event,
        callId: row.call_id,
        payload: row.payload,
      },
    ]);
    const created = await own(companyId, id as string);
    return ok(c, { msg: WEBHOOK_MESSAGES.resent, data: item(created) }, 201);
  });

  return r;
}
