import { AuditLogQuerySchema } from '@contract/audit.js';
import { Hono, type MiddlewareHandler } from 'hono';
import type { AppDeps } from '../../platform/deps.js';
import { ok } from '../../platform/http/http.js';
import { listQuery } from '../../platform/http/list-query.js';
import type { AppEnv } from '../../platform/http/types.js';
import { listAuditEntries } from './audit.repo.js';

/**
 * /audit-log: the caller's company's entries, read only (no route changes or removes one). The auth
 * middleware is given by server/compose.ts: the auth module records into this one, so this one does not
 * import it.
 */
export function auditRoutes(deps: AppDeps, requireAuth: MiddlewareHandler<AppEnv>) {
  const r = new Hono<AppEnv>();
  r.use('*', requireAuth);
  r.get('/', async (c) => {
    const q = listQuery(c, AuditLogQuerySchema);
    const { rows, total } = await listAuditEntries(deps.db.db, c.get('auth').companyId, q);
    const entries = rows.map((e) => ({ time: e.time, actor: e.actor_email, action: e.action, target: e.target, ip: e.ip }));
    return ok(c, { data: { entries, total } });
  });
  return r;
}
