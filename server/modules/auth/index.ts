/** The auth module: what other modules and the top floor (server/compose.ts, app.ts, main.ts, cli/) use of it. */
export { accountRoutes } from './account.routes.js';
export { insertCompanyWithAccount } from './accounts.js';
export { authRoutes } from './auth.routes.js';
export { clientIp, requireAuth } from './middleware.js';
export { verifyCallerPassword } from './password-guard.js';
export { hashPassword } from './passwords.js';
export { startSweeper } from './sweep.js';
