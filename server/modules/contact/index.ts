/**
 * The contact form (/contact).
 * What other modules and the top floor (server/compose.ts, app.ts, main.ts, call-sockets.ts, cli/) use of it:
 * a module is imported only through this file (tests/unit/server-layers.test.ts).
 */
export { contactRoutes } from './contact.routes.js';
