/**
 * The audit log: who did what, when, from where. Entries are append-only: no route changes or removes one.
 *
 * - `GET /audit-log?actor=&action=&dateFrom=&dateTo=&page=&limit=` -> `{ entries, total }`, newest first.
 *   `actor` is an email (exact, any case); `action` one of AUDIT_ACTIONS; `dateFrom`/`dateTo` an ISO date
 *   (a whole UTC day) or instant; `page` from 1.
 */
import * as v from 'valibot';

export const AUDIT_ACTIONS = [
  'auth.sign_in',
  'auth.sign_in_failed',
  'company.retention_changed',
  'company.default_data_storage_changed',
  'call.content_deleted',
  'provider.connected',
  'provider.changed',
  'provider.removed',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_ACTION_LABELS: Record<AuditAction, string> = {
  'auth.sign_in': 'Signed in',
  'auth.sign_in_failed': 'Failed sign-in',
  'company.retention_changed': 'Retention changed',
  'company.default_data_storage_changed': 'Default data storage changed',
  'call.content_deleted': 'Call content deleted',
  'provider.connected': 'Provider key connected',
  'provider.changed': 'Provider key changed',
  'provider.removed': 'Provider key removed',
};

/** The retention job's entries have no account: this is their actor. */
export const AUDIT_SYSTEM_ACTOR = 'system (retention)';

const DATE_MESSAGE = 'Must be an ISO date (YYYY-MM-DD) or date and time';
const isoDate = v.pipe(
  v.string(DATE_MESSAGE),
  v.regex(/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/, DATE_MESSAGE),
  v.check((s) => !Number.isNaN(Date.parse(s)), DATE_MESSAGE),
);

export const AUDIT_PAGE_MAX = 1000;

export const AuditLogQuerySchema = v.object({
  actor: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(254), v.toLowerCase())),
  action: v.optional(v.picklist(AUDIT_ACTIONS, `Action must be one of ${AUDIT_ACTIONS.join(', ')}`)),
  dateFrom: v.optional(isoDate),
  dateTo: v.optional(isoDate),
  page: v.optional(v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(1), v.maxValue(AUDIT_PAGE_MAX)), '1'),
  limit: v.optional(v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(1), v.maxValue(100)), '50'),
});
export type AuditLogQuery = v.InferOutput<typeof AuditLogQuerySchema>;

export const AuditEntrySchema = v.object({
  /** ISO-8601 UTC */
  time: v.string(),
  /** the account's email, or AUDIT_SYSTEM_ACTOR */
  actor: v.string(),
  action: v.string(),
  /** what it was done to: a call id, a provider name, 'retention: 30 days -> keep', an email */
  target: v.string(),
  ip: v.string(),
});
export type AuditEntry = v.InferOutput<typeof AuditEntrySchema>;

export const AuditLogResponseSchema = v.object({
  success: v.literal(true),
  data: v.object({ entries: v.array(AuditEntrySchema), total: v.number() }),
});
