/** The company module: what other modules and the top floor (server/compose.ts, app.ts, main.ts, cli/) use of it. */
export { seededRng } from './call-generator.js';
export { loadCompany } from './company.repo.js';
export { companyRoutes } from './company.routes.js';
export { addPoolNumbers, createDemoWorkspace, demoEnabled, ensureWorkspace, seedCalls } from './workspace.js';
