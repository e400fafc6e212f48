/** The voices module: what other modules and the top floor (server/compose.ts, app.ts, main.ts, cli/) use of it. */
export { voiceRoutes } from './voice.routes.js';
