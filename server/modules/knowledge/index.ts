/** The knowledge module: what other modules and the top floor (server/compose.ts, app.ts, main.ts, cli/) use of it. */
export { companyKbDir, ownKnowledgeBaseIds } from './kb.repo.js';
export { knowledgeBaseRoutes } from './kb.routes.js';
export { createKnowledgeWorker } from './kb.worker.js';
export { knowledgeBaseUploads } from './uploads.js';
