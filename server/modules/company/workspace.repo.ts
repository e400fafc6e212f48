import type { Insertable, Kysely } from 'kysely';
import type { CallAnalysesTable, CallSessionsTable, DB, PhoneNumbersTable } from '../../platform/db/schema.js';

/**
 * The reads and writes of ./workspace.ts (the seeded and demo workspaces) that no route shares: they
 * span accounts, numbers and agents of one company while it is being filled.
 */

/** The account of `email` (lowercased) and its company, if any. */
export function accountOfEmail(db: Kysely<DB>, email: string) {
  return db.selectFrom('accounts').select(['id', 'company_id']).where('email', '=', email).executeTakeFirst();
}

/** Whether the database holds any company yet. */
export async function anyCompanyExists(db: Kysely<DB>): Promise<boolean> {
  return (await db.selectFrom('companies').select('id').limit(1).executeTakeFirst()) !== undefined;
}

/** Whether the company holds at least one number. */
export async function holdsAnyNumber(db: Kysely<DB>, companyId: string): Promise<boolean> {
  const owned = await db.selectFrom('phone_numbers').select('id').where('company_id', '=', companyId).limit(1).execute();
  return owned.length > 0;
}

/** Which of `phones` are already in the pool (any company's or free). */
export async function takenPhoneNumbers(db: Kysely<DB>, phones: readonly string[]): Promise<Set<string>> {
  const rows = await db
    .selectFrom('phone_numbers')
    .select('phone_number')
    .where('phone_number', 'in', [...phones])
    .execute();
  return new Set(rows.map((r) => r.phone_number));
}

/** The company's numbers with their agents, oldest assignment first. */
export function companyNumberAgents(db: Kysely<DB>, companyId: string) {
  return db
    .selectFrom('phone_numbers')
    .select(['phone_number', 'inbound_agent_id', 'outbound_agent_id'])
    .where('company_id', '=', companyId)
    .orderBy('assigned_at')
    .orderBy('phone_number')
    .execute();
}

/** The company's agents with their LLM model, oldest first. */
export function companyAgentModels(db: Kysely<DB>, companyId: string) {
  return db
    .selectFrom('agents')
    .select(['id', 'agent_name as name', 'llm_model'])
    .where('company_id', '=', companyId)
    .orderBy('created_at')
    .execute();
}

/** One agent of the company (a new company has just its sample agent); null when it has none. */
export async function someAgentId(db: Kysely<DB>, companyId: string): Promise<string | null> {
  return (await db.selectFrom('agents').select('id').where('company_id', '=', companyId).executeTakeFirst())?.id ?? null;
}

/** Sets the nickname and agents of one of the company's numbers. */
export async function setNumberRoles(
  db: Kysely<DB>,
  companyId: string,
  id: string,
  roles: Partial<Pick<PhoneNumbersTable, 'nickname' | 'inbound_agent_id' | 'outbound_agent_id'>>,
): Promise<void> {
  await db.updateTable('phone_numbers').set(roles).where('id', '=', id).where('company_id', '=', companyId).execute();
}

/** rows a statement inserts at most (both databases' limits on bound values, ~30 columns a row) */
const ROWS_PER_INSERT = 200;

/** The sessions and analyses of generated calls (demo-conversations.ts), in one transaction. */
export async function insertGeneratedConversations(
  db: Kysely<DB>,
  sessions: readonly Insertable<CallSessionsTable>[],
  analyses: readonly Insertable<CallAnalysesTable>[],
): Promise<void> {
  if (sessions.length === 0 && analyses.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < sessions.length; i += ROWS_PER_INSERT)
      await trx
        .insertInto('call_sessions')
        .values(sessions.slice(i, i + ROWS_PER_INSERT))
        .execute();
    for (let i = 0; i < analyses.length; i += ROWS_PER_INSERT)
      await trx
        .insertInto('call_analyses')
        .values(analyses.slice(i, i + ROWS_PER_INSERT))
        .execute();
  });
}

/** Gives a generated call its recording (a file name in the company's recordings folder). */
export async function setGeneratedRecording(db: Kysely<DB>, companyId: string, callId: string, name: string): Promise<void> {
  await db
    .updateTable('call_sessions')
    .set({ recording: name })
    .where('company_id', '=', companyId)
    .where('id', '=', callId)
    .execute();
}
