/**
 * The call engine's one hook into what happens after a call: `emitCallEvent(deps, event, call)`
 * is called by server/modules/conversations/runtime.ts when a call's line opens (`call_started`) and once the ended call is
 * stored (`call_ended`). It queues the webhook deliveries (outbox.ts) and, for `call_ended`, the post-call
 * analysis (analysis.ts), after the caller's turn of the event loop. It never throws: a failure is logged
 * and the call goes on. A call refused before an agent answered (server/modules/telephony/service.ts: no inbound
 * agent, over the concurrency or spend limit) is told as `call_ended` too, with `analyse: false` (nothing
 * was said to analyse).
 */
import type { AppDeps } from '../../platform/deps.js';
import { runLater } from '../../platform/jobs/later.js';
import { queueAnalysis } from '../calls/analysis.js';
import { queueCallEvent } from './outbox.js';

export function emitCallEvent(
  deps: AppDeps,
  event: 'call_started' | 'call_ended',
  call: { companyId: string; callId: string },
  { analyse = true }: { analyse?: boolean } = {},
): void {
  runLater(deps, `webhook ${event}`, async () => {
    if (event === 'call_ended' && analyse) await queueAnalysis(deps, call);
    await queueCallEvent(deps, event, call);
  });
}
