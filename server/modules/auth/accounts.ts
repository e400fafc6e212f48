import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { AppEventBus } from '../../platform/events.js';

export interface NewCompanyAccount {
  companyId: string;
  accountId: string;
  companyName: string;
  name: string;
  /** lowercased */
  email: string;
  passwordHash: string;
  photo?: string | null;
  now: Date;
}

/**
 * Creates a company with its first account and publishes `company.created` (the sample agent...: its
 * handlers are subscribed in server/compose.ts and write through `db`). Call it inside a transaction (`db`
 * is that transaction) so a failure, a handler's included, leaves nothing behind.
 * Used by registration and by the demo workspace and seed.
 */
export async function insertCompanyWithAccount(db: Kysely<DB>, events: AppEventBus, a: NewCompanyAccount): Promise<void> {
  const at = a.now.toISOString();
  await db.insertInto('companies').values({ id: a.companyId, name: a.companyName, created_at: at }).execute();
  await db
    .insertInto('accounts')
    .values({
      id: a.accountId,
      company_id: a.companyId,
      name: a.name,
      email: a.email,
      password_hash: a.passwordHash,
      photo: a.photo ?? null,
      created_at: at,
      updated_at: at,
    })
    .execute();
  await events.publish('company.created', { db, companyId: a.companyId, accountId: a.accountId, now: a.now });
}
