import type { AuditLogQuery } from '@contract/audit.js';
import type { Insertable, Kysely } from 'kysely';
import type { AuditLogTable, DB } from '../../platform/db/schema.js';

/** The audit log's SQL: an insert and a filtered page. Nothing here updates or deletes an entry. */

export async function insertAuditEntry(db: Kysely<DB>, row: Insertable<AuditLogTable>): Promise<void> {
  await db.insertInto('audit_log').values(row).execute();
}

/** The email of the company's account `accountId`, or undefined. */
export async function accountEmail(db: Kysely<DB>, companyId: string, accountId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('accounts')
    .select('email')
    .where('id', '=', accountId)
    .where('company_id', '=', companyId)
    .executeTakeFirst();
  return row?.email;
}

/** Whole days `YYYY-MM-DD` as the range's bounds: dateFrom from its start, dateTo to its end. */
const bound = (s: string, end: boolean) =>
  s.length === 10 ? `${s}T${end ? '23:59:59.999' : '00:00:00.000'}Z` : new Date(s).toISOString();

/** One page of the company's entries, newest first, and how many match. */
export async function listAuditEntries(db: Kysely<DB>, companyId: string, q: AuditLogQuery) {
  let base = db.selectFrom('audit_log').where('company_id', '=', companyId);
  if (q.actor) base = base.where('actor_email', '=', q.actor);
  if (q.action) base = base.where('action', '=', q.action);
  if (q.dateFrom) base = base.where('time', '>=', bound(q.dateFrom, false));
  if (q.dateTo) base = base.where('time', '<=', bound(q.dateTo, true));
  const [rows, total] = await Promise.all([
    base
      .select(['time', 'actor_email', 'action', 'target', 'ip'])
      .orderBy('time', 'desc')
      .orderBy('id', 'desc')
      .limit(q.limit)
      .offset((q.page - 1) * q.limit)
      .execute(),
    base.select((e) => e.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}
