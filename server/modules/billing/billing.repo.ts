import { type Kysely, sql } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/**
 * The queries of ./billing.service.ts: the company_billing row (limits and contact) and the sums of the
 * company's calls, numbers and pending batch dials that billing figures are computed from. Every query is
 * scoped to the company; a function taking `db` runs inside the caller's transaction when given one.
 */

/** The company's limits as stored; undefined while it saved none (defaults apply). */
export function billingLimitsRow(db: Kysely<DB>, companyId: string) {
  return db
    .selectFrom('company_billing')
    .select(['concurrency_limit', 'monthly_spend_limit_cents', 'allowed_countries'])
    .where('company_id', '=', companyId)
    .executeTakeFirst();
}

/** The phone numbers the company holds. */
export async function companyPhoneNumbers(db: Kysely<DB>, companyId: string): Promise<string[]> {
  const rows = await db.selectFrom('phone_numbers').select('phone_number').where('company_id', '=', companyId).execute();
  return rows.map((r) => r.phone_number);
}

export type BillingFields = Partial<{
  concurrency_limit: number;
  monthly_spend_limit_cents: number;
  contact_name: string;
  contact_email: string;
  contact_address: string;
  contact_tax_id: string;
  allowed_countries: string;
}>;

/** Writes `set` into the company's billing row, creating it with `defaults` for the other fields. */
export async function upsertBillingRow(
  db: Kysely<DB>,
  companyId: string,
  defaults: Required<Omit<BillingFields, 'allowed_countries'>>,
  set: BillingFields,
  updatedAt: string,
): Promise<void> {
  await db
    .insertInto('company_billing')
    .values({ company_id: companyId, ...defaults, ...set, updated_at: updatedAt })
    .onConflict((oc) => oc.column('company_id').doUpdateSet({ ...set, updated_at: updatedAt }))
    .execute();
}

/** What the billing contact is made of: the stored row, the company's name and the account's email. */
export function contactSources(db: Kysely<DB>, companyId: string, accountId: string) {
  return Promise.all([
    db.selectFrom('company_billing').selectAll().where('company_id', '=', companyId).executeTakeFirst(),
    db.selectFrom('companies').select('name').where('id', '=', companyId).executeTakeFirst(),
    db.selectFrom('accounts').select('email').where('id', '=', accountId).where('company_id', '=', companyId).executeTakeFirst(),
  ]);
}

/** Call cost (USD) of the company from `from` (inclusive) to `to` (exclusive), ISO instants. */
export async function callCost(db: Kysely<DB>, companyId: string, from: string, to: string): Promise<number> {
  const row = await db
    .selectFrom('calls')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('cost'), sql<number>`0`).as('cost'))
    .where('company_id', '=', companyId)
    .where('time', '>=', from)
    .where('time', '<', to)
    .executeTakeFirstOrThrow();
  return Number(row.cost);
}

/** The dials the company's batches still have to send (scheduled, sending or paused), but `excludeBatchId`'s. */
export async function pendingBatchDials(db: Kysely<DB>, companyId: string, excludeBatchId?: string): Promise<number> {
  let pending = db
    .selectFrom('batch_calls')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>(sql<number>`recipients_count - sent_count`), sql<number>`0`).as('dials'))
    .where('company_id', '=', companyId)
    .where('status', 'in', ['scheduled', 'sending', 'paused']);
  if (excludeBatchId) pending = pending.where('id', '!=', excludeBatchId);
  return Number((await pending.executeTakeFirstOrThrow()).dials);
}

/** What the statements are made of: when the company started, its calls per month ('yyyy-MM'), its numbers. */
export function statementSources(db: Kysely<DB>, companyId: string) {
  return Promise.all([
    db.selectFrom('companies').select('created_at').where('id', '=', companyId).executeTakeFirst(),
    db
      .selectFrom('calls')
      .select((eb) => [
        sql<string>`substr(time, 1, 7)`.as('month'),
        eb.fn.coalesce(eb.fn.sum<number>('cost'), sql<number>`0`).as('cost'),
        eb.fn.coalesce(eb.fn.sum<number>('duration'), sql<number>`0`).as('seconds'),
        eb.fn.countAll<number>().as('count'),
      ])
      .where('company_id', '=', companyId)
      .groupBy(sql`substr(time, 1, 7)`)
      .execute(),
    db.selectFrom('phone_numbers').select(['assigned_at', 'created_at']).where('company_id', '=', companyId).execute(),
  ]);
}

/** The company's calls from `from` (inclusive) to `to` (exclusive), summed per day ('yyyy-MM-dd') and per agent. */
export function usageSums(db: Kysely<DB>, companyId: string, from: string, to: string) {
  const within = db.selectFrom('calls').where('company_id', '=', companyId).where('time', '>=', from).where('time', '<', to);
  return Promise.all([
    within
      .select((eb) => [
        sql<string>`substr(time, 1, 10)`.as('day'),
        eb.fn.coalesce(eb.fn.sum<number>('cost'), sql<number>`0`).as('cost'),
        eb.fn.coalesce(eb.fn.sum<number>('duration'), sql<number>`0`).as('seconds'),
        eb.fn.countAll<number>().as('count'),
      ])
      .groupBy(sql`substr(time, 1, 10)`)
      .execute(),
    within
      .select((eb) => [
        'agent_id',
        eb.fn.coalesce(eb.fn.sum<number>('cost'), sql<number>`0`).as('cost'),
        eb.fn.coalesce(eb.fn.sum<number>('duration'), sql<number>`0`).as('seconds'),
        eb.fn.countAll<number>().as('count'),
      ])
      .groupBy('agent_id')
      .execute(),
  ]);
}

/** The names of the company's agents among `ids` (a deleted agent is absent). */
export async function agentNames(db: Kysely<DB>, companyId: string, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('agents')
    .select(['id', 'agent_name'])
    .where('company_id', '=', companyId)
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((a) => [a.id, a.agent_name]));
}
