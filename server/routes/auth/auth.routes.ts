import { Hono } from 'hono';
import type { RefreshResponse } from '../../../src/api/contract/account.js';
import { limitBody } from '../../lib/body-limit.js';
import type { AppDeps } from '../../lib/deps.js';
import { rotateRefreshToken, sessionExpired } from '../../services/sessions.js';
import { bearer } from '../../services/tokens.js';
import type { AppEnv } from '../../types.js';

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
