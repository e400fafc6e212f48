/** The billing module: what other modules and the top floor (server/compose.ts, app.ts, main.ts, cli/) use of it. */
export { billingRoutes } from './billing.routes.js';
export { allowedCountries, billingLimits, committedSpend, monthToDateSpend } from './billing.service.js';
