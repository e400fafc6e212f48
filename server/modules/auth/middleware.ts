import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppDeps } from '../../platform/deps.js';
import { HttpError } from '../../platform/http/http.js';
import type { AppEnv } from '../../platform/http/types.js';
import { isSessionLive } from './session.repo.js';
import { sessionExpired } from './sessions.js';
import { bearer, InvalidTokenError, verifyAccessToken } from './tokens.js';

/**
 * Verifies `Authorization: Bearer <access token>` and sets `c.get('auth')` to
 * `{ accountId, companyId, sessionId }`. Refuses bad, expired and revoked-session tokens with 401.
 *
 *   api.use('/agent/*', requireAuth(deps));
 */
export function requireAuth(deps: AppDeps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const token = bearer(c.req.header('Authorization'));
    if (!token) {
      throw new HttpError(401, 'Please login to continue', undefined, { 'WWW-Authenticate': 'Bearer' });
    }
    const now = deps.clock.now();
    let claims: Awaited<ReturnType<typeof verifyAccessToken>>;
    try {
      claims = await verifyAccessToken(deps.secrets.jwtKey, token, now);
    } catch (e) {
      if (e instanceof InvalidTokenError) throw sessionExpired();
      throw e;
    }
    if (!(await isSessionLive(deps.db.db, claims.sessionId, claims.accountId, now))) throw sessionExpired();
    c.set('auth', claims);
    await next();
  };
}

/**
 * The client's IP: the socket's peer address, or — only when TRUST_PROXY names N trusted proxy hops —
 * the address N entries from the right of X-Forwarded-For (the one our own proxy appended).
 */
export function clientIp(c: Context, deps: AppDeps): string {
  const hops = deps.config.trustProxy ?? 0;
  if (hops > 0) {
    const chain = (c.req.header('X-Forwarded-For') ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const ip = chain[chain.length - hops];
    if (ip) return ip;
  }
  try {
    return getConnInfo(c).remote.address ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
