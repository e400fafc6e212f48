import { PROVIDERS, ProviderListQuerySchema } from '@contract/provider.js';
import { Hono } from 'hono';
import type { AppDeps } from '../../platform/deps.js';
import { ok, query } from '../../platform/http/http.js';
import type { AppEnv } from '../../platform/http/types.js';
import { requireAuth } from '../auth/index.js';
import { connectionsOf } from './provider.repo.js';
import { listItem } from './provider.store.js';

/** /user: the signed-in user's view of company resources (today: the provider catalogue). */
export function userRoutes(deps: AppDeps) {
  const r = new Hono<AppEnv>();
  r.use('*', requireAuth(deps));

  /** The catalogue in its fixed order, filtered by search on slug and label, paged (page 1-based). */
  r.get('/providers', async (c) => {
    const { page, limit, search } = query(c, ProviderListQuerySchema);
    const needle = search.toLowerCase();
    const matching = PROVIDERS.filter((p) => !needle || p.name.includes(needle) || p.label.toLowerCase().includes(needle));
    const connections = await connectionsOf(deps, c.get('auth').companyId);
    const slice = matching.slice((page - 1) * limit, page * limit);
    return ok(c, { providers: slice.map((p) => listItem(p, connections.get(p.name))), total: matching.length });
  });

  return r;
}
