/**
 * Provider connections (/provider, /user): a company's keys, read for a call through call-keys.
 * What other modules and the top floor (server/compose.ts, app.ts, main.ts, call-sockets.ts, cli/) use of it:
 * a module is imported only through this file (tests/unit/server-layers.test.ts).
 */
export { ProviderKeyMissingError, providerAccess } from './call-keys.js';
export { userRoutes } from './catalogue.routes.js';
export { carrierConnections, connectionByProvider } from './provider.repo.js';
export { providerRoutes } from './provider.routes.js';
export { getProviderSecret, openField } from './provider.store.js';
