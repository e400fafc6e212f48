/**
 * The events the server's modules tell each other, and the typed bus that carries them. A module that
 * reacts to another's event subscribes in the composition root (server/compose.ts), so the publisher
 * never imports its listeners: the call engine does not know webhooks exist.
 *
 * One bus per app (`deps.events`, built by composeDeps in server/compose.ts), never a module global: the
 * tests build one app per test.
 *
 * `publish` runs the handlers one after the other, in the order they subscribed, each awaited; the first
 * that throws stops the rest and `publish` rejects with its error. So a publisher inside a transaction
 * (company.created) rolls back when a handler fails, and a handler that writes through the payload's `db`
 * commits with it. A publisher that must not wait for its listeners (a call ending) publishes from
 * `runLater` (server/platform/jobs/later.ts): after the caller's turn, a failure logged.
 */
import type { Kysely } from 'kysely';
import type { DB } from './db/schema.js';

/** A call of a company (call_sessions.id). */
export interface CallRef {
  companyId: string;
  callId: string;
}

export interface AppEvents {
  /** A call's line opened (server/modules/conversations/runtime.ts). Webhooks queue `call_started`. */
  'call.started': CallRef;
  /**
   * An ended call is stored (runtime.ts; recovery.ts for a call a dead process left; the telephony service
   * for a call refused or unanswered before an agent spoke: `analyse: false`, nothing was said). The post-call
   * analysis is queued (when `analyse`), then webhooks queue `call_ended`.
   */
  'call.ended': CallRef & { analyse: boolean };
  /** The post-call analysis of a call is stored (server/modules/calls/analysis.ts). Webhooks queue `call_analyzed`. */
  'call.analyzed': CallRef;
  /** A batch dialled its last recipient (server/modules/batches/dispatcher.ts). Webhooks queue `batch_completed`. */
  'batch.completed': { companyId: string; batch: Record<string, unknown> };
  /**
   * A company and its first account were inserted (server/modules/auth/accounts.ts). Published inside the
   * sign-up transaction: `db` is that transaction; a handler writes through it (the sample agent), and a
   * handler that throws rolls the whole sign-up back.
   */
  'company.created': { db: Kysely<DB>; companyId: string; accountId: string; now: Date };
}

export type EventHandler<T> = (payload: T) => void | Promise<void>;

export class EventBus<Events extends object = AppEvents> {
  readonly #handlers = new Map<keyof Events, EventHandler<never>[]>();

  /** Adds `handler` after the ones already there; answers a function that removes it. */
  on<K extends keyof Events>(name: K, handler: EventHandler<Events[K]>): () => void {
    const list = this.#handlers.get(name) ?? [];
    list.push(handler as EventHandler<never>);
    this.#handlers.set(name, list);
    return () => {
      const at = list.indexOf(handler as EventHandler<never>);
      if (at >= 0) list.splice(at, 1);
    };
  }

  /** Runs the handlers of `name` in order, each awaited; rejects with the first error (the rest do not run). */
  async publish<K extends keyof Events>(name: K, payload: Events[K]): Promise<void> {
    for (const handler of [...(this.#handlers.get(name) ?? [])]) await (handler as EventHandler<Events[K]>)(payload);
  }
}

export type AppEventBus = EventBus<AppEvents>;
