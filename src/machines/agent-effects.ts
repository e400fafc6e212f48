/**
 * Effects the Agents page's machines share (agentUpdate, agentDelete, agentImport): toasts, and
 * reloading the agents list after the server refused a change because the row on screen is out of
 * date. Tests swap them with `.provide({ actions: { notify, refreshList } })`.
 */
import { AGENT_CACHE_PREFIX } from '../api/agents';
import { queryCache } from '../api/cache';
import { toast } from '../ui/toast/toast';

export interface AgentToast {
  title: string;
  description: string;
  variant?: 'default' | 'destructive';
}

export const agentEffects = {
  notify: (_: unknown, params: AgentToast) => {
    toast(params);
  },
  refreshList: () => {
    queryCache.invalidate(AGENT_CACHE_PREFIX);
  },
};
