/**
 * Knowledge bases (/knowledge-base): uploads, extraction and their worker.
 * What other modules and the top floor (server/compose.ts, app.ts, main.ts, call-sockets.ts, cli/) use of it:
 * a module is imported only through this file (tests/unit/server-layers.test.ts).
 */
export { companyKbDir, ownKnowledgeBaseIds } from './kb.repo.js';
export { knowledgeBaseRoutes } from './kb.routes.js';
export { knowledgeSearch } from './kb.search.js';
export { createKnowledgeWorker } from './kb.worker.js';
export { knowledgeBaseUploads } from './uploads.js';
