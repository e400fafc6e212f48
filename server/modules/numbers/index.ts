/** The numbers module: what other modules and the top floor (server/compose.ts, app.ts, main.ts, cli/) use of it. */
export { insertNumberRows, poolNumberRow, releasePoolNumbers } from './number.repo.js';
export { numberRoutes } from './number.routes.js';
export { phoneRoutes } from './phone.routes.js';
export { grantNumberRequests, pendingNumberRequests } from './request.repo.js';
export { requestRoutes } from './request.routes.js';
