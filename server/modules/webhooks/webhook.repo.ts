/** The webhook delivery log's queries (the outbox itself lives in server/modules/webhooks/outbox.ts). */
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

export const LIST_COLUMNS = [
  'id',
  'target',
  'agent_id',
  'url',
  'event',
  'call_id',
  'status',
  'attempts',
  'status_code',
  'duration_ms',
  'error',
  'attempted_at',
  'created_at',
  'next_attempt_at',
] as const;

/** One page of a company's deliveries, newest first; `webhook` is 'company' or an agent id. */
export async function listDeliveries(db: Kysely<DB>, companyId: string, q: { page: number; limit: number; webhook?: string }) {
  let base = db.selectFrom('webhook_deliveries').where('company_id', '=', companyId);
  if (q.webhook === 'company') base = base.where('target', '=', 'company');
  else if (q.webhook) base = base.where('target', '=', 'agent').where('agent_id', '=', q.webhook);
  const [rows, total] = await Promise.all([
    base
      .select(LIST_COLUMNS)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(q.limit)
      .offset((q.page - 1) * q.limit)
      .execute(),
    base.select((e) => e.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

/** One delivery of the company's, or undefined. */
export function findDelivery(db: Kysely<DB>, companyId: string, id: string) {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The company's agents with an 'Agent Level Webhook' (at most 200, by name). */
export function agentsWithWebhook(db: Kysely<DB>, companyId: string) {
  return db
    .selectFrom('agents')
    .select(['id', 'agent_name', 'doc'])
    .where('company_id', '=', companyId)
    .where('doc', 'like', '%"agentLevelWebhook":"http%')
    .orderBy('agent_name_lower')
    .limit(200)
    .execute();
}
