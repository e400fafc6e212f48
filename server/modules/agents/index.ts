/**
 * Agents: their repo and routes (/agent), and the sample agent every new company starts with.
 * What other modules and the top floor (server/compose.ts, app.ts, main.ts, call-sockets.ts, cli/) use of it:
 * a module is imported only through this file (tests/unit/server-layers.test.ts).
 */
export { docOf, findAgent } from './agent.repo.js';
export { agentRoutes } from './agent.routes.js';
export { maskAgent, sealFunctionHeaders } from './function-secrets.js';
export { createSampleAgent } from './sample-agent.js';
