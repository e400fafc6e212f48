/**
 * Phone numbers (/number, /phone, /request): the pool, assignments and number requests.
 * What other modules and the top floor (server/compose.ts, app.ts, main.ts, call-sockets.ts, cli/) use of it:
 * a module is imported only through this file (tests/unit/server-layers.test.ts).
 */
export {
  createImportedNumber,
  foreignAgents,
  insertNumberRows,
  numbersOnPlatform,
  poolNumberRow,
  releasePoolNumbers,
} from './number.repo.js';
export { numberRoutes, type ReleaseImported } from './number.routes.js';
export { phoneRoutes } from './phone.routes.js';
export { grantNumberRequests, pendingNumberRequests } from './request.repo.js';
export { requestRoutes } from './request.routes.js';
