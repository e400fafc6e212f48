/** The files module: what other modules and the top floor (server/compose.ts, app.ts, main.ts, cli/) use of it. */
export { filesRoutes } from './files.routes.js';
export { photoUploads } from './uploads.js';
