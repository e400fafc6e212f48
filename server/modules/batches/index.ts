/**
 * Batch calls (/batch-call): recipients uploads, the dispatcher that dials them.
 * What other modules and the top floor (server/compose.ts, app.ts, main.ts, call-sockets.ts, cli/) use of it:
 * a module is imported only through this file (tests/unit/server-layers.test.ts).
 */
export { batchCallRoutes } from './batch-call.routes.js';
export { startBatchDispatcher } from './dispatcher.js';
export { recipientUploads } from './uploads.js';
