import type { CallListQuery, callSearchMatch } from '@contract/call.js';
import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { matching, type TimeRange } from './call.repo.js';

/**
 * The reads of one call's detail (./detail.ts) and of the Call History export (./call.export.ts): a call's
 * calls row with its session, analysis and agent. Every read is scoped to the company.
 */

export function callRowOf(db: Kysely<DB>, companyId: string, id: string) {
  return db.selectFrom('calls').selectAll().where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst();
}

export function callSessionOf(db: Kysely<DB>, companyId: string, id: string) {
  return db.selectFrom('call_sessions').selectAll().where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst();
}

export function callAnalysisOf(db: Kysely<DB>, companyId: string, callId: string) {
  return db
    .selectFrom('call_analyses')
    .select(['status', 'result', 'error'])
    .where('company_id', '=', companyId)
    .where('call_id', '=', callId)
    .executeTakeFirst();
}

/**
 * One batch of the export: the company's calls matching the list's filters, newest first, after the
 * keyset `after` (time, id) of the previous batch.
 */
export function exportBatch(
  db: Kysely<DB>,
  companyId: string,
  q: CallListQuery,
  within: TimeRange,
  search: ReturnType<typeof callSearchMatch> | undefined,
  after: { time: string; id: string } | null,
  limit: number,
) {
  let qb = matching(db, companyId, q, within, search).selectAll();
  if (after) {
    const { time, id } = after;
    // a row value: both databases range the (company, time, id) index on it
    qb = qb.where(sql<boolean>`(${sql.ref('time')}, ${sql.ref('id')}) < (${time}, ${id})`);
  }
  return qb.orderBy('time', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** What the export shows beside each call of a batch: its session's agent name and usage, its analysis, its agent. */
export function exportDetails(db: Kysely<DB>, companyId: string, ids: readonly string[], agentIds: readonly string[]) {
  return Promise.all([
    db
      .selectFrom('call_sessions')
      .select(['id', 'agent_name', 'usage'])
      .where('company_id', '=', companyId)
      .where('id', 'in', [...ids])
      .execute(),
    db
      .selectFrom('call_analyses')
      .select(['call_id', 'result'])
      .where('company_id', '=', companyId)
      .where('call_id', 'in', [...ids])
      .where('status', '=', 'done')
      .execute(),
    agentIds.length
      ? db
          .selectFrom('agents')
          .select(['id', 'agent_name as name'])
          .where('company_id', '=', companyId)
          .where('id', 'in', [...agentIds])
          .execute()
      : Promise.resolve([] as { id: string; name: string }[]),
  ]);
}
