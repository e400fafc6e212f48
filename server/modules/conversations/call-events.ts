import type { AppDeps } from '../../platform/deps.js';
import type { AppEvents } from '../../platform/events.js';
import { runLater } from '../../platform/jobs/later.js';

/**
 * Tells the rest of the server that a call started or ended (server/platform/events.ts; the post-call
 * analysis and the webhooks subscribe in server/compose.ts), after the caller's turn of the event loop:
 * the call never waits for its listeners, and a listener's failure is logged, never thrown at the call.
 */
export function announceCall<K extends 'call.started' | 'call.ended'>(deps: AppDeps, name: K, event: AppEvents[K]): void {
  runLater(deps, `${name} event`, () => deps.events.publish(name, event));
}
