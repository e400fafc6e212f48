/**
 * Billing (/billing): limits, spend and allowed countries that calls and batches check.
 * What other modules and the top floor (server/compose.ts, app.ts, main.ts, call-sockets.ts, cli/) use of it:
 * a module is imported only through this file (tests/unit/server-layers.test.ts).
 */
export { billingRoutes } from './billing.routes.js';
export { allowedCountries, billingLimits, committedSpend, monthToDateSpend } from './billing.service.js';
