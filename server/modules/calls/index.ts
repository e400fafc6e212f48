/** The calls module: what other modules and the top floor (server/compose.ts, app.ts, main.ts, cli/) use of it. */
export { createAnalysisWorker, queueAnalysis } from './analysis.js';
export { type CallRow, insertCalls, recountCalls, storedCallCount, withCallIndexesDeferred } from './call.repo.js';
export { callRoutes } from './call.routes.js';
export { callDetail, recordingsDir, recordingToken } from './detail.js';
