/**
 * The company (/company) and its workspaces: the demo workspace and the seeded data of `npm run seed`.
 * What other modules and the top floor (server/compose.ts, app.ts, main.ts, call-sockets.ts, cli/) use of it:
 * a module is imported only through this file (tests/unit/server-layers.test.ts).
 */
export { seededRng } from './call-generator.js';
export { loadCompany } from './company.repo.js';
export { companyRoutes } from './company.routes.js';
export { retentionPass, startRetentionJob } from './retention.js';
export { companyDefaultDataStorage } from './settings.repo.js';
export { addPoolNumbers, BULK_CALLS, createDemoWorkspace, demoEnabled, ensureWorkspace, seedCalls } from './workspace.js';
export { accountOfEmail, holdsAnyNumber } from './workspace.repo.js';
