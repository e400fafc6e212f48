/**
 * The call log (/call): history, analytics, detail, recordings, export, and the post-call analysis.
 * What other modules and the top floor (server/compose.ts, app.ts, main.ts, call-sockets.ts, cli/) use of it:
 * a module is imported only through this file (tests/unit/server-layers.test.ts).
 */
export { createAnalysisWorker, queueAnalysis } from './analysis.js';
export { type CallRow, insertCalls, recountCalls, storedCallCount, withCallIndexesDeferred } from './call.repo.js';
export { callRoutes } from './call.routes.js';
export { deleteCallContent, removeContentBefore } from './content.js';
export { callDetail, recordingsDir, recordingToken } from './detail.js';
