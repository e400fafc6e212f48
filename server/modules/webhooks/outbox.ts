/**
 * The webhook outbox: events become rows of `webhook_deliveries` (migration 014), one per webhook
 * that wants them, and the worker (worker.ts) sends them. Nothing here talks to the network.
 *
 * - `queueCallEvent(deps, event, call)` (on the call events events.ts subscribes to) reads the
 *   call as GET /call/{id} shows it and queues the event for the agent's 'Agent Level Webhook' (from the
 *   agent snapshot the call ran with) and the company-wide webhook.
 * - `emitBatchEvent` queues `batch_completed` for the company-wide webhook.
 * - The company's signing secret is sealed with the master key; it is made when first needed (or rotated
 *   through POST /webhook/secret, whose answer is the only time it is shown).
 */

import type { AgentDoc } from '@contract/agent/save.js';
import type { WebhookEvent } from '@contract/webhook.js';
import { newId } from '../../platform/crypto/ids.js';
import { decryptSecret, encryptSecret } from '../../platform/crypto/secrets.js';
import { parseJson } from '../../platform/db/json.js';
import type { AppDeps } from '../../platform/deps.js';
import { wakeChannel } from '../../platform/jobs/wake.js';
import { callDetail, recordingToken } from '../calls/index.js';
import {
  callWebhookSource,
  companyWebhook,
  insertDeliveries,
  storeFirstSecret,
  upsertSecret,
  upsertWebhookUrl,
} from './outbox.repo.js';
import { newSigningSecret } from './sign.js';

export { companyWebhook };

const SECRET_CONTEXT = (companyId: string) => ({ companyId, provider: 'webhooks', field: 'signing secret' });

// ---------------------------------------------------------------------------------------------
// Settings and secret

/** Sets the company-wide URL ('' = none), creating the settings row when missing. */
export async function saveCompanyWebhookUrl(deps: AppDeps, companyId: string, url: string) {
  await upsertWebhookUrl(deps.db.db, companyId, url, deps.clock.now().toISOString());
}

/** Makes a new signing secret (the previous one stops signing at once) and returns it: shown once. */
export async function rotateSecret(deps: AppDeps, companyId: string): Promise<string> {
  const secret = newSigningSecret();
  const sealed = encryptSecret(deps.secrets.masterKey, secret, SECRET_CONTEXT(companyId));
  const hint = secret.slice(-4);
  await upsertSecret(deps.db.db, companyId, sealed, hint, deps.clock.now().toISOString());
  return secret;
}

/** The company's signing secret in memory only, made on first use (it can be rotated to be seen). */
export async function signingSecret(deps: AppDeps, companyId: string): Promise<string> {
  const row = await companyWebhook(deps.db.db, companyId);
  if (row?.secret) return decryptSecret(deps.secrets.masterKey, row.secret, SECRET_CONTEXT(companyId));
  // two servers making the first secret at once: the first write wins, both use what was stored
  const secret = newSigningSecret();
  const sealed = encryptSecret(deps.secrets.masterKey, secret, SECRET_CONTEXT(companyId));
  await storeFirstSecret(deps.db.db, companyId, sealed, secret.slice(-4), deps.clock.now().toISOString());
  const stored = await companyWebhook(deps.db.db, companyId);
  return decryptSecret(deps.secrets.masterKey, stored?.secret as string, SECRET_CONTEXT(companyId));
}

// ---------------------------------------------------------------------------------------------
// Queueing

export interface NewDelivery {
  companyId: string;
  target: 'company' | 'agent';
  agentId: string | null;
  url: string;
  event: WebhookEvent | string;
  callId: string | null;
  payload: string;
}

export async function enqueueDeliveries(deps: AppDeps, deliveries: NewDelivery[]): Promise<string[]> {
  if (deliveries.length === 0) return [];
  const at = deps.clock.now();
  const now = at.toISOString();
  const rows = deliveries.map((d) => ({
    id: newId(at),
    company_id: d.companyId,
    target: d.target,
    agent_id: d.agentId,
    url: d.url,
    event: d.event,
    call_id: d.callId,
    payload: d.payload,
    status: 'pending' as const,
    attempts: 0,
    next_attempt_at: now,
    lease_until: null,
    worker: null,
    status_code: null,
    duration_ms: null,
    error: null,
    request_body: null,
    response_body: null,
    attempted_at: null,
    created_at: now,
    updated_at: now,
  }));
  await insertDeliveries(deps.db.db, rows);
  // this app's webhook workers send them at once (their poll is the fallback)
  wakeChannel(deps).wake('webhook_deliveries');
  return rows.map((r) => r.id);
}

/** The call as a webhook carries it: GET /call/{id}'s detail, with an absolute recording URL. */
export async function callPayload(deps: AppDeps, companyId: string, callId: string) {
  const nowMs = deps.clock.now().getTime();
  const base = deps.config.publicUrl.replace(/\/+$/, '');
  return callDetail(deps.db.db, companyId, callId, (id) => {
    const token = recordingToken(deps.secrets.jwtKey, id, companyId, nowMs);
    return `${base}/api/v1/call/${id}/recording?token=${encodeURIComponent(token)}`;
  });
}

/** The webhooks of a call: its agent's (from the snapshot it ran with) and the company's. */
async function callTargets(deps: AppDeps, companyId: string, callId: string) {
  const session = await callWebhookSource(deps.db.db, companyId, callId);
  const targets: { target: 'company' | 'agent'; agentId: string | null; url: string }[] = [];
  const agent = session ? parseJson<Partial<AgentDoc>>(session.agent, {}) : {};
  const agentUrl = agent.editor?.agentLevelWebhook?.trim();
  if (agentUrl) targets.push({ target: 'agent', agentId: session?.agent_id ?? null, url: agentUrl });
  const company = await companyWebhook(deps.db.db, companyId);
  if (company?.url) targets.push({ target: 'company', agentId: null, url: company.url });
  return targets;
}

/** Queues `event` of a call for its webhooks now (awaitable: tests and the analysis worker). */
export async function queueCallEvent(
  deps: AppDeps,
  event: 'call_started' | 'call_ended' | 'call_analyzed',
  call: { companyId: string; callId: string },
  extra: Record<string, unknown> = {},
): Promise<string[]> {
  const targets = await callTargets(deps, call.companyId, call.callId);
  if (targets.length === 0) return [];
  const detail = await callPayload(deps, call.companyId, call.callId);
  const payload = JSON.stringify({ event, call: { call_id: call.callId, ...detail, ...extra } });
  return enqueueDeliveries(
    deps,
    targets.map((t) => ({ companyId: call.companyId, ...t, event, callId: call.callId, payload })),
  );
}

/** `batch_completed` for the company-wide webhook. */
export async function emitBatchEvent(deps: AppDeps, companyId: string, batch: Record<string, unknown>): Promise<string[]> {
  const company = await companyWebhook(deps.db.db, companyId);
  if (!company?.url) return [];
  const payload = JSON.stringify({ event: 'batch_completed', batch });
  return enqueueDeliveries(deps, [
    { companyId, target: 'company', agentId: null, url: company.url, event: 'batch_completed', callId: null, payload },
  ]);
}
