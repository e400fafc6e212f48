import type { ProviderName } from '@contract/provider.js';
import type { ProviderConnectionsTable } from '../../platform/db/schema.js';
import type { AppDeps } from '../../platform/deps.js';
import { CARRIERS } from '../../platform/net/public-url.js';

/** The provider_connections queries of /provider, /user and the call engine's key look-up; every one scoped to a company. */

export type ConnectionRow = ProviderConnectionsTable;

export async function connectionsOf(deps: AppDeps, companyId: string): Promise<Map<string, ConnectionRow>> {
  const rows = await deps.db.db.selectFrom('provider_connections').selectAll().where('company_id', '=', companyId).execute();
  return new Map(rows.map((r) => [r.provider, r]));
}

export function connectionByProvider(deps: AppDeps, companyId: string, provider: ProviderName) {
  return deps.db.db
    .selectFrom('provider_connections')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('provider', '=', provider)
    .executeTakeFirst();
}

/** The sealed secrets (JSON) of the company's connection to `provider`; undefined when not connected. */
export async function storedSecrets(deps: Pick<AppDeps, 'db'>, companyId: string, provider: string): Promise<string | undefined> {
  const row = await deps.db.db
    .selectFrom('provider_connections')
    .select('secrets')
    .where('company_id', '=', companyId)
    .where('provider', '=', provider)
    .executeTakeFirst();
  return row?.secrets;
}

export function connectionById(deps: AppDeps, companyId: string, id: string) {
  return deps.db.db
    .selectFrom('provider_connections')
    .selectAll()
    .where('id', '=', id)
    .where('company_id', '=', companyId)
    .executeTakeFirst();
}

/** How many carrier (Twilio, Plivo) connections there are: the company's, or (no company: at start) all. */
export async function carrierConnections(deps: AppDeps, companyId?: string): Promise<number> {
  let q = deps.db.db
    .selectFrom('provider_connections')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('provider', 'in', [...CARRIERS]);
  if (companyId !== undefined) q = q.where('company_id', '=', companyId);
  const row = await q.executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Inserts a connection; a second one for the same provider fails with a unique violation. */
export async function insertConnection(deps: AppDeps, row: ConnectionRow): Promise<void> {
  await deps.db.db.insertInto('provider_connections').values(row).execute();
}

export async function updateConnectionSecrets(
  deps: AppDeps,
  companyId: string,
  id: string,
  secrets: string,
  updatedAt: string,
): Promise<void> {
  await deps.db.db
    .updateTable('provider_connections')
    .set({ secrets, updated_at: updatedAt })
    .where('id', '=', id)
    .where('company_id', '=', companyId)
    .execute();
}

/** Deletes the company's connection to `provider`; false when there was none. */
export async function deleteConnection(deps: AppDeps, companyId: string, provider: ProviderName): Promise<boolean> {
  const res = await deps.db.db
    .deleteFrom('provider_connections')
    .where('company_id', '=', companyId)
    .where('provider', '=', provider)
    .executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}
