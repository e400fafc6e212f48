/**
 * Accounts, sign-in and sessions (/account, /auth): the `requireAuth` middleware every module mounts, passwords, the
 * expiry sweep.
 * What other modules and the top floor (server/compose.ts, app.ts, main.ts, call-sockets.ts, cli/) use of it:
 * a module is imported only through this file (tests/unit/server-layers.test.ts).
 */
export { accountRoutes } from './account.routes.js';
export { insertCompanyWithAccount } from './accounts.js';
export { authRoutes } from './auth.routes.js';
export { clientIp, requireAuth } from './middleware.js';
export { verifyCallerPassword } from './password-guard.js';
export { hashPassword } from './passwords.js';
export { startSweeper } from './sweep.js';
