import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';
import { runCompanyCreated } from '../company/company-hooks.js';
import { insertCompanyAndAccount, type NewCompanyAccount } from './account.repo.js';

/**
 * Creates a company with its first account and runs the onCompanyCreated hooks (the sample agent...).
 * Call it inside a transaction (`db` is that transaction) so a failure leaves nothing behind.
 * Used by registration and by the demo workspace and seed.
 */
export async function insertCompanyWithAccount(db: Kysely<DB>, a: NewCompanyAccount): Promise<void> {
  await insertCompanyAndAccount(db, a);
  await runCompanyCreated(db, { companyId: a.companyId, accountId: a.accountId, now: a.now });
}
