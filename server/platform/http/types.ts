import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';

/** What the auth middleware puts on the context: identity comes only from the verified token. */
export interface AuthContext {
  accountId: string;
  companyId: string;
  sessionId: string;
}

export interface AppEnv {
  Variables: {
    auth: AuthContext;
    /** set by the idempotency middleware on create routes (server/platform/http/idempotency.ts) */
    idempotency: IdempotencyHandle;
  };
}

/** What `idempotent()` puts on the context (`c.get('idempotency')`) for the route. */
export interface IdempotencyHandle {
  /**
   * With `{ hash: 'route' }`: claims the request's key for `hash`. Resolves null when the route should go
   * on and create; or the stored answer of the first request, which the route returns as is (after undoing
   * what it prepared, e.g. files it streamed to disk). Without a key it resolves null at once.
   */
  claim(hash: string): Promise<Response | null>;
  /**
   * Stores the route's answer inside the route's own transaction, so the create and the answer commit
   * together: a crash can never leave a created row whose key still looks unanswered (a retry would then
   * create it again). `answer` must be exactly the JSON the route responds with. Does nothing without a key.
   */
  storeWith(trx: Kysely<DB>, status: number, answer: unknown): Promise<void>;
}
