/**
 * What a call keeps: the agent's data-storage level and the company's retention period.
 * Shared by the editor, the Update Agent dialog, the company settings page and the server that
 * applies them before anything is stored or sent (transcripts, analysis, function calls, recordings,
 * webhooks, exports, logs).
 */
import * as v from 'valibot';

/** Everything (as heard); everything with personal data replaced by typed markers; metadata only. */
export const DATA_STORAGE_LEVELS = ['everything', 'everything_but_pii', 'metadata_only'] as const;
export type DataStorage = (typeof DATA_STORAGE_LEVELS)[number];

export const DATA_STORAGE_LABELS: Record<DataStorage, string> = {
  everything: 'Everything',
  everything_but_pii: 'Everything but personal data',
  metadata_only: 'Metadata only',
};

export const DataStorageSchema = v.picklist(
  DATA_STORAGE_LEVELS,
  'Data storage must be everything, everything_but_pii or metadata_only',
);

/** The typed markers that replace personal data at the 'everything_but_pii' level. */
export const PII_MARKERS = ['[PHONE]', '[EMAIL]', '[DATE_OF_BIRTH]', '[SSN]', '[CARD_NUMBER]', '[ADDRESS]', '[NAME]'] as const;
export type PiiMarker = (typeof PII_MARKERS)[number];

/** The retention choices the settings page offers (days); any whole number in range may be sent. */
export const RETENTION_CHOICES = [7, 30, 90, 365] as const;
export const RETENTION_MAX_DAYS = 3650;
const RETENTION_MESSAGE = `Retention must be a whole number of days from 1 to ${RETENTION_MAX_DAYS}, or null to keep`;

/** GET/PUT /company/settings. `retention_days: null` keeps content forever (the default). */
export const CompanySettingsSchema = v.object({
  retention_days: v.nullable(
    v.pipe(
      v.number(RETENTION_MESSAGE),
      v.integer(RETENTION_MESSAGE),
      v.minValue(1, RETENTION_MESSAGE),
      v.maxValue(RETENTION_MAX_DAYS, RETENTION_MESSAGE),
    ),
  ),
  default_data_storage: DataStorageSchema,
});
export type CompanySettings = v.InferOutput<typeof CompanySettingsSchema>;

export const COMPANY_SETTINGS_DEFAULTS: CompanySettings = { retention_days: null, default_data_storage: 'everything' };

/** PUT /company/settings: either field or both. */
export const CompanySettingsPatchSchema = v.pipe(
  v.partial(CompanySettingsSchema),
  v.check((p) => p.retention_days !== undefined || p.default_data_storage !== undefined, 'Nothing to update'),
);

/** The answer of GET and PUT /company/settings. */
export const CompanySettingsResponseSchema = v.object({
  success: v.literal(true),
  msg: v.optional(v.string()),
  data: CompanySettingsSchema,
});
