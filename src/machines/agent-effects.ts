/**
 * Effects the Agents page's machines share (agentUpdate, agentDelete, agentImport): `notify` (a toast,
 * supplied by the route with `.provide()`, see ./notify.ts), and reloading the agents list after the server
 * refused a change because the row on screen is out of date. Tests swap them with
 * `.provide({ actions: { notify, refreshList } })`.
 */
import { AGENT_CACHE_PREFIX } from '../api/agents';
import { queryCache } from '../api/cache';
import { notify } from './notify';

export const agentEffects = {
  notify,
  refreshList: () => {
    queryCache.invalidate(AGENT_CACHE_PREFIX);
  },
};
