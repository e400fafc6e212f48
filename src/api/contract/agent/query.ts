/**
 * GET /agent?page=1&limit=10&search=...&sort=...: the list query, and the agent API's paths.
 */
import * as v from 'valibot';
import { intParam, type SortPairs, searchParam, sortParam, sortToParam } from '../list';
import { AGENT_SORT_FIELDS, type AgentSortField } from './sort';

export const AGENT_LIST_LIMIT_MAX = 100;
export const AGENT_LIST_LIMIT_DEFAULT = 10;
export const AGENT_SEARCH_MAX = 200;
export type AgentSort = SortPairs<AgentSortField>;

export const AgentListQuerySchema = v.object({
  page: intParam(1, 1, 1_000_000),
  limit: intParam(AGENT_LIST_LIMIT_DEFAULT, 1, AGENT_LIST_LIMIT_MAX),
  search: searchParam(AGENT_SEARCH_MAX),
  sort: sortParam(AGENT_SORT_FIELDS),
});
export type AgentListQuery = v.InferOutput<typeof AgentListQuerySchema>;

/** Builds the query string values of GET /agent (sort as the URL-encoded JSON object, keys in order). */
export function agentListParams(q: { page: number; limit: number; search?: string; sort?: AgentSort }): Record<string, string> {
  const params: Record<string, string> = { page: String(q.page), limit: String(q.limit) };
  if (q.search) params.search = q.search;
  const sort = sortToParam(q.sort);
  if (sort) params.sort = sort;
  return params;
}

export const AGENT_PATHS = {
  list: '/agent',
  create: '/agent',
  one: (id: string) => `/agent/${encodeURIComponent(id)}`,
} as const;
