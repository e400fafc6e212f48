/** The providers module: what other modules and the top floor (server/compose.ts, app.ts, main.ts, cli/) use of it. */
export { ProviderKeyMissingError, providerAccess } from './call-keys.js';
export { userRoutes } from './catalogue.routes.js';
export { carrierConnections } from './provider.repo.js';
export { providerRoutes } from './provider.routes.js';
