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

/** The data-storage level new agents of the company get when their creator does not choose one. */
export async function companyDefaultDataStorage(db: Kysely<DB>, companyId: string): Promise<DataStorage> {
  return (await loadCompanySettings(db, companyId)).default_data_storage;
}

/** Writes the whole settings of the company (an upsert: the first change creates its row). */
export async function saveCompanySettings(db: Kysely<DB>, companyId: string, s: CompanySettings, now: string): Promise<void> {
  await db
    .insertInto('company_settings')
    .values({ company_id: companyId, ...s, updated_at: now })
    .onConflict((oc) => oc.column('company_id').doUpdateSet({ ...s, updated_at: now }))
    .execute();
}

/** The companies that keep content for a limited time, with their period and the job's lease (the retention job). */
export function companiesWithRetention(db: Kysely<DB>) {
  return db
    .selectFrom('company_settings')
    .select(['company_id', 'retention_days', 'retention_status', 'attempts', 'retention_lease_until'])
    .where('retention_days', 'is not', null)
    .orderBy('company_id')
    .execute();
}

/** Extends the lease of `worker` on the company; false when it is no longer its own. */
export async function renewRetentionLease(db: Kysely<DB>, companyId: string, worker: string, until: string): Promise<boolean> {
  const res = await db
    .updateTable('company_settings')
    .set({ retention_lease_until: until })
    .where('company_id', '=', companyId)
    .where('retention_status', '=', 'running')
    .where('retention_worker', '=', worker)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Gives the company's lease back (only the worker holding it can). */
export async function releaseRetentionLease(db: Kysely<DB>, companyId: string, worker: string): Promise<void> {
  await db
    .updateTable('company_settings')
    .set({ retention_status: 'idle', retention_worker: null, retention_lease_until: null })
    .where('company_id', '=', companyId)
    .where('retention_worker', '=', worker)
    .execute();
}
