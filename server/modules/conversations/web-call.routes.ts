import { StartConversationBodySchema } from '@contract/call-runtime.js';
import { Hono } from 'hono';
import type { AppDeps } from '../../platform/deps.js';
import { jsonBody, ok } from '../../platform/http/http.js';
import type { AppEnv } from '../../platform/http/types.js';
import { requireAuth } from '../auth/index.js';
import { callRuntime } from './call-runtime.js';
import { startWebCall } from './runtime.js';

/**
 * `POST /call/web`: starts a web call (Test in the editor); the browser then opens the socket
 * /call/web/{id}/stream (server/call-sockets.ts). Mounted under /call by server/compose.ts, before the call
 * history (server/modules/calls/call.routes.ts), so it carries its own `requireAuth`.
 */
export function webCallRoutes(deps: AppDeps) {
  const r = new Hono<AppEnv>();
  r.post('/web', requireAuth(deps), async (c) => {
    callRuntime(deps);
    const auth = c.get('auth');
    const body = await jsonBody(c, StartConversationBodySchema);
    return ok(c, { data: await startWebCall(deps, { companyId: auth.companyId, accountId: auth.accountId }, body) }, 201);
  });
  return r;
}
