import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

export interface CompanyCreated {
  companyId: string;
  accountId: string;
  now: Date;
}

/**
 * Runs inside the registration transaction, after the company and its first account exist.
 * `db` is that transaction: write through it so a failure rolls the whole sign-up back.
 */
export type CompanyCreatedHook = (db: Kysely<DB>, event: CompanyCreated) => Promise<void>;

/**
 * Hooks called for every new company, in order. Other resources push theirs at module load, e.g.
 * the agents module: `onCompanyCreated.push(createSampleAgent)`.
 */
export const onCompanyCreated: CompanyCreatedHook[] = [];

export async function runCompanyCreated(db: Kysely<DB>, event: CompanyCreated): Promise<void> {
  for (const hook of onCompanyCreated) await hook(db, event);
}
