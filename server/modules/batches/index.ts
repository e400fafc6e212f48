/** The batches module: what other modules and the top floor (server/compose.ts, app.ts, main.ts, cli/) use of it. */
export { batchCallRoutes } from './batch-call.routes.js';
export { startBatchDispatcher } from './dispatcher.js';
export { recipientUploads } from './uploads.js';
