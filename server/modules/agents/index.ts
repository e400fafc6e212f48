/** The agents module: what other modules and the top floor (server/compose.ts, app.ts, main.ts, cli/) use of it. */
export { docOf, findAgent } from './agent.repo.js';
export { agentRoutes } from './agent.routes.js';
export { createSampleAgent } from './sample-agent.js';
