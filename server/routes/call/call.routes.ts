import { Hono } from 'hono';
import { CallListQuerySchema } from '../../../src/api/contract/call.js';
import { requireAuth } from '../../lib/auth.js';
import type { AppDeps } from '../../lib/deps.js';
import { ok } from '../../lib/http.js';
import { listQuery } from '../../lib/list-query.js';
import type { AppEnv } from '../../types.js';
import { listCalls } from './call.repo.js';

/** /call: the company's call history (filters, search, sort, zero-based page; see src/api/contract/call.ts). */
export function callRoutes(deps: AppDeps) {
  const db = deps.db.db;
  const r = new Hono<AppEnv>();
  r.use('*', requireAuth(deps));

  r.get('/', async (c) => {
    const q = listQuery(c, CallListQuerySchema);
    const { calls, totalCalls } = await listCalls(db, c.get('auth').companyId, q);
    return ok(c, { data: { calls, pagination: { totalCalls, page: q.page, limit: q.limit } } });
  });

  return r;
}
