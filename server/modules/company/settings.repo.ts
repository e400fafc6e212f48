import { COMPANY_SETTINGS_DEFAULTS, type CompanySettings, type DataStorage } from '@contract/data-storage.js';
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/** The company's settings (GET/PUT /company/settings): its row, or the defaults when it has none. */
export async function loadCompanySettings(db: Kysely<DB>, companyId: string): Promise<CompanySettings> {
  const row = await db
    .selectFrom('company_settings')
    .select(['retention_days', 'default_data_storage'])
    .where('company_id', '=', companyId)
    .executeTakeFirst();
  if (!row) return { ...COMPANY_SETTINGS_DEFAULTS };
  return {
    retention_days: row.retention_days === null ? null : Number(row.retention_days),
    default_data_storage: row.default_data_storage as DataStorage,
  };
}

/** Writes the whole settings of the company (an upsert: the first change creates its row). */
export async function saveCompanySettings(db: Kysely<DB>, companyId: string, s: CompanySettings, now: string): Promise<void> {
  await db
    .insertInto('company_settings')
    .values({ company_id: companyId, ...s, updated_at: now })
    .onConflict((oc) => oc.column('company_id').doUpdateSet({ ...s, updated_at: now }))
    .execute();
}

/** The companies that keep content for a limited time, with their period (the retention job). */
export function companiesWithRetention(db: Kysely<DB>) {
  return db
    .selectFrom('company_settings')
    .select(['company_id', 'retention_days'])
    .where('retention_days', 'is not', null)
    .orderBy('company_id')
    .execute();
}
