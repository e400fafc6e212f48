import type { RefreshResponse } from '@contract/account.js';
import { Hono } from 'hono';
import type { AppDeps } from '../../platform/deps.js';
import { limitBody } from '../../platform/http/body-limit.js';
import type { AppEnv } from '../../platform/http/types.js';
import { rotateRefreshToken, sessionExpired } from './sessions.js';
import { bearer } from './tokens.js';

export function authRoutes(deps: AppDeps) {
  const app = new Hono<AppEnv>();

  /** POST /auth/refresh, `Authorization: Bearer <refresh token>` -> { access_token, refresh_token } */
  app.post('/refresh', limitBody(4 * 1024), async (c) => {
    const presented = bearer(c.req.header('Authorization'));
    if (!presented || presented.length > 200) throw sessionExpired();
    const body: RefreshResponse = await rotateRefreshToken(deps, presented);
    return c.json(body);
  });

  return app;
}
