/**
 * The fields GET /agent may be sorted by (JSON keys of `sort`). A module of its own, free of valibot: the
 * Agents route's `validateSearch` (which stays in the entry chunk) uses it without the rest of the contract.
 */
export const AGENT_SORT_FIELDS = ['agent_name', 'updatedAt', 'createdAt', 'voice_id', 'voice_model'] as const;
export type AgentSortField = (typeof AGENT_SORT_FIELDS)[number];
