/** The contact module: what other modules and the top floor (server/compose.ts, app.ts, main.ts, cli/) use of it. */
export { contactRoutes } from './contact.routes.js';
