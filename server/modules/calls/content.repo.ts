import type { Kysely } from 'kysely';
import { parseJson } from '../../platform/db/json.js';
import type { DB } from '../../platform/db/schema.js';

/**
 * The removal of a call's content (./content.ts): what each table keeps. Every query is scoped to the company.
 * The call's row and its metadata (time, duration, numbers, status, reason, cost, latency, usage) stay.
 */

/** What a call's content removal needs to know first: its session (live or not, its recording) and its row. */
export async function contentState(db: Kysely<DB>, companyId: string, callId: string) {
  const [session, call] = await Promise.all([
    db
      .selectFrom('call_sessions')
      .select(['status', 'recording', 'content_deleted_at'])
      .where('company_id', '=', companyId)
      .where('id', '=', callId)
      .executeTakeFirst(),
    db
      .selectFrom('calls')
      .select(['content_deleted_at'])
      .where('company_id', '=', companyId)
      .where('id', '=', callId)
      .executeTakeFirst(),
  ]);
  return { session, call };
}

/** An analysis without its text: the verdict (successful, sentiment) stays, the summary and the extracted fields go. */
function analysisWithoutText(result: string | null): string | null {
  if (result === null) return null;
  const r = parseJson<Record<string, unknown>>(result, {});
  return JSON.stringify({ ...r, summary: null, custom: {} });
}

/** A webhook payload `{event, call}` with the call's content replaced by its removal. */
function payloadWithoutContent(payload: string, deletedAt: string): string {
  const p = parseJson<{ call?: Record<string, unknown> } & Record<string, unknown>>(payload, {});
  if (!p.call) return payload;
  const analysis = p.call.analysis as Record<string, unknown> | null | undefined;
  p.call = {
    ...p.call,
    transcript: [],
    dynamic_variables: {},
    recording_url: null,
    analysis: analysis ? { ...analysis, summary: null, custom: {} } : (analysis ?? null),
    content_deleted_at: deletedAt,
  };
  return JSON.stringify(p);
}

/**
 * Clears the call's content in one transaction and answers whether this caller did it (false: it was
 * already gone, or another server got there first). The updates are conditional on `content_deleted_at`
 * being null: of two servers removing the same call at once, one changes the rows and the other nothing.
 */
export async function clearCallContent(db: Kysely<DB>, companyId: string, callId: string, now: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const session = await trx
      .updateTable('call_sessions')
      .set({ transcript: '[]', dynamic_variables: '{}', recording: null, content_deleted_at: now, updated_at: now })
      .where('company_id', '=', companyId)
      .where('id', '=', callId)
      .where('content_deleted_at', 'is', null)
      .executeTakeFirst();
    const call = await trx
      .updateTable('calls')
      .set({ content_deleted_at: now })
      .where('company_id', '=', companyId)
      .where('id', '=', callId)
      .where('content_deleted_at', 'is', null)
      .executeTakeFirst();
    const won = Number(session.numUpdatedRows) + Number(call.numUpdatedRows) > 0;
    if (!won) return false;

    const analysis = await trx
      .selectFrom('call_analyses')
      .select(['status', 'result'])
      .where('company_id', '=', companyId)
      .where('call_id', '=', callId)
      .executeTakeFirst();
    if (analysis?.status === 'done') {
      await trx
        .updateTable('call_analyses')
        .set({ result: analysisWithoutText(analysis.result), updated_at: now })
        .where('company_id', '=', companyId)
        .where('call_id', '=', callId)
        .execute();
    } else if (analysis) {
      // an analysis not run yet never will: there is nothing left to analyse (a run under way loses its
      // lease, so its answer is not written)
      await trx
        .updateTable('call_analyses')
        .set({
          status: 'failed',
          result: null,
          error: 'The call content was deleted',
          lease_until: null,
          worker: null,
          updated_at: now,
        })
        .where('company_id', '=', companyId)
        .where('call_id', '=', callId)
        .execute();
    }

    // the webhook outbox: deliveries still to send carry the call as it now is; those sent keep no copy
    const deliveries = await trx
      .selectFrom('webhook_deliveries')
      .select(['id', 'payload'])
      .where('company_id', '=', companyId)
      .where('call_id', '=', callId)
      .execute();
    for (const d of deliveries) {
      await trx
        .updateTable('webhook_deliveries')
        .set({ payload: payloadWithoutContent(d.payload, now), request_body: null, response_body: null, updated_at: now })
        .where('company_id', '=', companyId)
        .where('id', '=', d.id)
        .execute();
    }
    return true;
  });
}

/** Up to `limit` of the company's calls created before `before` whose content is still there, oldest first. */
export function callsPastRetention(db: Kysely<DB>, companyId: string, before: string, limit: number) {
  return db
    .selectFrom('call_sessions')
    .select('id')
    .where('company_id', '=', companyId)
    .where('content_deleted_at', 'is', null)
    .where('created_at', '<', before)
    .where('status', 'not in', ['registered', 'ongoing'])
    .orderBy('created_at')
    .limit(limit)
    .execute();
}
