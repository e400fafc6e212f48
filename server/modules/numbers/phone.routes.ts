import { PhoneListQuerySchema } from '@contract/phone.js';
import { Hono } from 'hono';
import type { AppDeps } from '../../platform/deps.js';
import { ok } from '../../platform/http/http.js';
import { listQuery } from '../../platform/http/list-query.js';
import type { AppEnv } from '../../platform/http/types.js';
import { isLocalPublicUrl } from '../../platform/net/public-url.js';
import { requireAuth } from '../auth/index.js';
import { carrierConnections } from '../providers/index.js';
import { listCompanyNumbers, listFreeNumbers } from './number.repo.js';

/** /phone: the two tabs of the Phone Numbers screen (page zero-based, limit, search, sort). */
export function phoneRoutes(deps: AppDeps) {
  const db = deps.db.db;
  const r = new Hono<AppEnv>();
  r.use('*', requireAuth(deps));

  /** The free pool; `requested: true` on the numbers the caller's company asked for. */
  r.get('/free', async (c) =>
    ok(c, { data: await listFreeNumbers(db, c.get('auth').companyId, listQuery(c, PhoneListQuerySchema)) }),
  );

  /** Whether the carriers can call this server back: a warning for the Phone Numbers screen. */
  r.get('/telephony-status', async (c) => {
    const local = isLocalPublicUrl(deps.config.publicUrl);
    const carriers = local ? await carrierConnections(deps, c.get('auth').companyId) : 0;
    return ok(c, { data: { callbacksUnreachable: local && carriers > 0 } });
  });

  /** The company's numbers. */
  r.get('/assigned', async (c) =>
    ok(c, { data: await listCompanyNumbers(db, c.get('auth').companyId, listQuery(c, PhoneListQuerySchema)) }),
  );

  return r;
}
