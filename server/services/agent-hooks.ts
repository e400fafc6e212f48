import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';

export interface AgentDeleted {
  companyId: string;
  agentId: string;
  now: Date;
}

/**
 * Runs inside the delete transaction, after the agent row is gone. `db` is that transaction: write
 * through it so a failure rolls the delete back (e.g. phone numbers clear inbound/outbound_agent_id).
 */
export type AgentDeletedHook = (db: Kysely<DB>, event: AgentDeleted) => Promise<void>;

/** Hooks called for every deleted agent, in order. Other resources push theirs at module load. */
export const onAgentDeleted: AgentDeletedHook[] = [];

export async function runAgentDeleted(db: Kysely<DB>, event: AgentDeleted): Promise<void> {
  for (const hook of onAgentDeleted) await hook(db, event);
}
