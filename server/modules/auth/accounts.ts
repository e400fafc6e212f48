import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import type { AppEventBus } from '../../platform/events.js';
import { insertCompanyAndAccount, type NewCompanyAccount } from './account.repo.js';

export type { NewCompanyAccount };

/**
 * Creates a company with its first account and publishes `company.created` (the sample agent...: its
 * handlers are subscribed in server/compose.ts and write through `db`). Call it inside a transaction (`db`
 * is that transaction) so a failure, a handler's included, leaves nothing behind.
 * Used by registration and by the demo workspace and seed.
 */
export async function insertCompanyWithAccount(db: Kysely<DB>, events: AppEventBus, a: NewCompanyAccount): Promise<void> {
  await insertCompanyAndAccount(db, a);
  await events.publish('company.created', { db, companyId: a.companyId, accountId: a.accountId, now: a.now });
}
