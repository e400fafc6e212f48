import { type ApiClient, api, type CallOptions } from './client';
import { AuditLogResponseSchema } from './contract/audit';
import { type CompanySettings, CompanySettingsResponseSchema } from './contract/data-storage';

export const COMPANY_SETTINGS_PATHS = { settings: '/company/settings', auditLog: '/audit-log' } as const;

/** GET/PUT /company/settings (retention, default data storage) and GET /audit-log. */
export function companySettingsApi(client: ApiClient) {
  return {
    get: (options?: CallOptions) => client.get(COMPANY_SETTINGS_PATHS.settings, CompanySettingsResponseSchema, options),
    save: (body: Partial<CompanySettings>, options?: CallOptions) =>
      client.put(COMPANY_SETTINGS_PATHS.settings, CompanySettingsResponseSchema, body, options),
    auditLog: (query: { page: number; limit: number }, options?: CallOptions) =>
      client.get(`${COMPANY_SETTINGS_PATHS.auditLog}?page=${query.page}&limit=${query.limit}`, AuditLogResponseSchema, options),
  };
}

export const companySettings = companySettingsApi(api);
