import { Hono } from 'hono';
import { PhoneListQuerySchema } from '../../../src/api/contract/phone.js';
import { requireAuth } from '../../lib/auth.js';
import type { AppDeps } from '../../lib/deps.js';
import { ok } from '../../lib/http.js';
import { listQuery } from '../../lib/list-query.js';
import { isLocalPublicUrl } from '../../lib/public-url.js';
import type { AppEnv } from '../../types.js';
import { listCompanyNumbers, listFreeNumbers } from '../number/number.repo.js';
import { carrierConnections } from '../provider/provider.repo.js';

/** /phone: the two tabs of the Phone Numbers screen (page zero-based, limit, search, sort). */
export function phoneRoutes(deps: AppDeps) {
  const db = deps.db.db;
  const r = new Hono<AppEnv>();
  r.use('*', requireAuth(deps));

  /** The free pool; `requested: true` on the numbers the caller's company asked for. */
  r.get('/free', async (c) =>
    ok(c, { data: await listFreeNumbers(db, c.get('auth').companyId, listQuery(c, PhoneListQuerySchema)) }),
  );

  /** Whether the carriers can call this server back (issue 19): a warning for the Phone Numbers screen. */
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
