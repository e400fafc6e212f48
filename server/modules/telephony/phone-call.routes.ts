import { CreatePhoneCallBodySchema } from '@contract/telephony.js';
import { Hono } from 'hono';
import type { AppDeps } from '../../platform/deps.js';
import { jsonBody, ok } from '../../platform/http/http.js';
import type { AppEnv } from '../../platform/http/types.js';
import { requireAuth } from '../auth/index.js';
import { callRuntime } from '../conversations/index.js';
import { createPhoneCall } from './service.js';

/**
 * `POST /call/create`: places an outbound phone call through the company's carrier. Mounted under /call by
 * server/compose.ts, before the call history (server/modules/calls/call.routes.ts), so it carries its own
 * `requireAuth`.
 */
export function phoneCallRoutes(deps: AppDeps) {
  const r = new Hono<AppEnv>();
  r.post('/create', requireAuth(deps), async (c) => {
    callRuntime(deps);
    const auth = c.get('auth');
    const body = await jsonBody(c, CreatePhoneCallBodySchema);
    return ok(c, { data: await createPhoneCall(deps, { companyId: auth.companyId, accountId: auth.accountId }, body) }, 201);
  });
  return r;
}
