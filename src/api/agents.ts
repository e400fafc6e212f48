/**
 * Typed calls of the agent resource: list, read, create,
 * update, delete. Every change invalidates the cached agent list and the changed agent (`agent` prefix
 * of the query cache), so a list on screen reloads.
 */

import { type QueryCache, queryCache } from './cache';
import { type ApiClient, api, type CallOptions } from './client';
import type { AgentDialogPatch } from './contract/agent/dialog';
import { AGENT_PATHS, type AgentSort, agentListParams } from './contract/agent/query';
import { AgentDeleteResponseSchema, AgentListResponseSchema, AgentResponseSchema } from './contract/agent/responses';
import type { AgentSavePayloadInput } from './contract/agent/save';

export interface AgentListParams {
  /** 1-based, as the server takes it */
  page: number;
  limit: number;
  search?: string;
  sort?: AgentSort;
}

export type AgentCallOptions = CallOptions;

/** Cache key prefix of everything agent-shaped (the list and single agents). */
export const AGENT_CACHE_PREFIX = 'agent';
export const agentListKey = (q: AgentListParams) => `agents?${new URLSearchParams(agentListParams(q)).toString()}`;
export const agentKey = (id: string) => `agent:${id}`;

export function agentsApi(client: ApiClient, cache: QueryCache) {
  const changed = <T>(result: T): T => {
    cache.invalidate(AGENT_CACHE_PREFIX);
    return result;
  };
  return {
    /** GET /agent (cached by its parameters; always asks the server) */
    list: (q: AgentListParams, options?: AgentCallOptions) =>
      cache.load(agentListKey(q), () =>
        client.get(AGENT_PATHS.list, AgentListResponseSchema, { query: agentListParams(q), ...options }),
      ),

    /** GET /agent/{id} */
    get: (id: string, options?: AgentCallOptions) =>
      cache.load(agentKey(id), () => client.get(AGENT_PATHS.one(id), AgentResponseSchema, options)),

    /** POST /agent with the save payload */
    create: async (payload: AgentSavePayloadInput, options?: AgentCallOptions) =>
      changed(await client.post(AGENT_PATHS.create, AgentResponseSchema, { ...payload }, options)),

    /** PUT /agent/{id} with the full save payload (+ version) or an edit-dialog patch (+ version) */
    update: async (
      id: string,
      body: (AgentSavePayloadInput | AgentDialogPatch) & { version?: number },
      options?: AgentCallOptions,
    ) => changed(await client.put(AGENT_PATHS.one(id), AgentResponseSchema, { ...body }, options)),

    /** DELETE /agent/{id} */
    remove: async (id: string, options?: AgentCallOptions) =>
      changed(await client.delete(AGENT_PATHS.one(id), AgentDeleteResponseSchema, options)),
  };
}

export type AgentsApi = ReturnType<typeof agentsApi>;

export const agents = agentsApi(api, queryCache);
