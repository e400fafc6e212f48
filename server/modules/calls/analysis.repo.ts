/**
 * The SQL of the post-call analyses (analysis.ts) beyond what the leased-job library claims and settles
 * (server/platform/jobs/jobs.repo.ts): queueing one, and reading the call it analyses. Scoped to the company.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/** Queues the analysis of a call (once per call: a second queueing does nothing). */
export async function insertAnalysis(db: Kysely<DB>, call: { companyId: string; callId: string }, now: string): Promise<void> {
  await db
    .insertInto('call_analyses')
    .values({
      call_id: call.callId,
      company_id: call.companyId,
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      lease_until: null,
      worker: null,
      result: null,
      error: null,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.column('call_id').doNothing())
    .execute();
}

/** The agent snapshot, transcript and dynamic variables of the call analysed. */
export function analysedCall(db: Kysely<DB>, companyId: string, callId: string) {
  return db
    .selectFrom('call_sessions')
    .select(['agent', 'transcript', 'dynamic_variables'])
    .where('company_id', '=', companyId)
    .where('id', '=', callId)
    .executeTakeFirst();
}
