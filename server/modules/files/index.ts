/**
 * Uploaded files (/files): photos, and what an interrupted photo upload leaves.
 * What other modules and the top floor (server/compose.ts, app.ts, main.ts, call-sockets.ts, cli/) use of it:
 * a module is imported only through this file (tests/unit/server-layers.test.ts).
 */
export { filesRoutes } from './files.routes.js';
export { photoUploads } from './uploads.js';
