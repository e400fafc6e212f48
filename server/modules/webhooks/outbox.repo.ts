/**
 * The SQL of the webhook outbox (outbox.ts) and of the worker's upkeep (worker.ts): the company's webhook
 * settings and sealed signing secret, the delivery rows, the webhook source of a call. Every statement is
 * scoped to one company, except the pruning of old delivered and failed rows (every company's log is
 * kept DELIVERY_RETENTION_MS). Claiming and settling deliveries is the leased-job library's
 * (server/platform/jobs/jobs.repo.ts).
 */
import type { Insertable, Kysely } from 'kysely';
import type { DB, WebhookDeliveriesTable } from '../../platform/db/schema.js';

export function companyWebhook(db: Kysely<DB>, companyId: string) {
  return db.selectFrom('company_webhooks').selectAll().where('company_id', '=', companyId).executeTakeFirst();
}

/** Sets the company-wide URL, creating the settings row when missing. */
export async function upsertWebhookUrl(db: Kysely<DB>, companyId: string, url: string, now: string): Promise<void> {
  await db
    .insertInto('company_webhooks')
    .values({ company_id: companyId, url, secret: null, secret_hint: null, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('company_id').doUpdateSet({ url, updated_at: now }))
    .execute();
}

/** Stores a new sealed secret, replacing the one before. */
export async function upsertSecret(db: Kysely<DB>, companyId: string, sealed: string, hint: string, now: string): Promise<void> {
  await db
    .insertInto('company_webhooks')
    .values({ company_id: companyId, url: '', secret: sealed, secret_hint: hint, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('company_id').doUpdateSet({ secret: sealed, secret_hint: hint, updated_at: now }))
    .execute();
}

/** Stores a first sealed secret only where none is stored yet (two servers at once: the first write wins). */
export async function storeFirstSecret(db: Kysely<DB>, companyId: string, sealed: string, hint: string, now: string) {
  await db
    .insertInto('company_webhooks')
    .values({ company_id: companyId, url: '', secret: sealed, secret_hint: hint, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('company_id').doNothing())
    .execute();
  await db
    .updateTable('company_webhooks')
    .set({ secret: sealed, secret_hint: hint, updated_at: now })
    .where('company_id', '=', companyId)
    .where('secret', 'is', null)
    .execute();
}

export async function insertDeliveries(db: Kysely<DB>, rows: Insertable<WebhookDeliveriesTable>[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('webhook_deliveries').values(rows).execute();
}

/** The agent snapshot a call ran with (its agent-level webhook) and its agent. */
export function callWebhookSource(db: Kysely<DB>, companyId: string, callId: string) {
  return db
    .selectFrom('call_sessions')
    .select(['agent', 'agent_id'])
    .where('company_id', '=', companyId)
    .where('id', '=', callId)
    .executeTakeFirst();
}

/** Removes up to `batch` delivered and failed deliveries last updated before `before`; how many. */
export async function pruneDeliveries(db: Kysely<DB>, before: string, batch: number): Promise<number> {
  const old = db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', 'in', ['delivered', 'failed'])
    .where('updated_at', '<', before)
    .limit(batch);
  const res = await db.deleteFrom('webhook_deliveries').where('id', 'in', old).executeTakeFirst();
  return Number(res.numDeletedRows);
}
