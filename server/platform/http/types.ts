import type { IdempotencyHandle } from './idempotency.js';

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
