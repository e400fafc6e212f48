/**
 * Builds the app once (skipped when dist/ is fresh), starts it like `npm start` (SKIP_BUILD=1) on a free
 * port with a temporary DATA_DIR and the embedded SQLite database, waits for /api/v1/health, and
 * provides the base URL to the e2e tests (`inject('baseUrl')`). Stops the server at teardown.
 */
import type { TestProject } from 'vitest/node';
import { buildAll } from '../../scripts/build.mjs';
import { startServer } from '../../scripts/lib/server.mjs';
import { buildIsStale } from '../../scripts/lib/stale.mjs';
import { assertChromium } from './chromium.js';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    /** the server's DATA_DIR (emails land in DATA_DIR/outbox as .eml files) */
    dataDir: string;
  }
}

export default async function setup(project: TestProject) {
  assertChromium();
  if (buildIsStale()) await buildAll({ quiet: true });
  const server = await startServer();
  project.provide('baseUrl', server.baseUrl);
  project.provide('dataDir', server.dataDir);
  return async () => {
    await server.stop();
  };
}
