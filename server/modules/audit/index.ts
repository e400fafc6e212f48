/**
 * The audit log: `record(...)` appends an entry (sign-ins, provider keys, settings, deleted call content),
 * `auditRoutes` reads them (/audit-log). A module is imported only through this file
 * (tests/unit/server-layers.test.ts).
 */
export { type AuditRecord, record } from './audit.js';
export { auditRoutes } from './audit.routes.js';
