/**
 * What webhooks listen to (server/platform/events.ts): a call started, ended or was analysed, a batch
 * completed. `subscribeWebhooks(deps)` is called once per app by server/compose.ts, after the post-call
 * analysis subscribed (so an ended call's analysis is queued before its `call_ended` delivery). Each event
 * is queued for the webhooks that want it (outbox.ts); the worker (worker.ts) sends them. The publishers
 * (server/modules/conversations/call-events.ts, the telephony service, the batch dispatcher, the analysis
 * worker) never import this module.
 */
import type { AppDeps } from '../../platform/deps.js';
import { emitBatchEvent, queueCallEvent } from './outbox.js';

export function subscribeWebhooks(deps: AppDeps): void {
  const { events } = deps;
  events.on('call.started', async ({ companyId, callId }) => {
    await queueCallEvent(deps, 'call_started', { companyId, callId });
  });
  events.on('call.ended', async ({ companyId, callId }) => {
    await queueCallEvent(deps, 'call_ended', { companyId, callId });
  });
  events.on('call.analyzed', async ({ companyId, callId }) => {
    await queueCallEvent(deps, 'call_analyzed', { companyId, callId });
  });
  events.on('batch.completed', async ({ companyId, batch }) => {
    await emitBatchEvent(deps, companyId, batch);
  });
}
