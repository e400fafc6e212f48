/**
 * Starts the provider fakes (tests/e2e/provider-fakes.ts) and gives the server their URLs.
 * Builds the app once (skipped when dist/ is fresh), starts it like `npm start` (SKIP_BUILD=1) on a free
 * port with a temporary DATA_DIR and the embedded SQLite database, waits for /api/v1/health, and
 * provides the base URL to the e2e tests (`inject('baseUrl')`). Stops the server at teardown.
 *
 * The database starts empty, so the server creates the demo workspace (DEMO is unset): the account
 * demo@parley.test (its printed password is provided as `inject('demoAccount')`) and, for the tests that
 * request numbers, 30 free numbers in the pool. Tests sign up their own companies, so the demo never
 * shows in them. To grant a request the way an operator does, run the admin command on the server's
 * DATA_DIR: `runCli('admin', ['grant-number-requests', '--company', email], inject('dataDir'))`
 * (tests/cli-runner.ts).
 */
import type { TestProject } from 'vitest/node';
import { buildAll } from '../../scripts/build.mjs';
import { startServer } from '../../scripts/lib/server.mjs';
import { buildIsStale } from '../../scripts/lib/stale.mjs';
import { assertChromium } from './chromium.js';
import { type FakeKeys, startProviderFakes } from './provider-fakes.js';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    /** the server's DATA_DIR (emails land in DATA_DIR/outbox as .eml files) */
    dataDir: string;
    /** the demo workspace's account, with the password the server printed at its first start */
    demoAccount: { email: string; password: string };
    /** the provider fakes' keys (tests/e2e/provider-fakes.ts), to connect on the Providers API */
    fakeKeys: FakeKeys;
  }
}

export default async function setup(project: TestProject) {
  assertChromium();
  if (buildIsStale()) await buildAll({ quiet: true });
  // the providers are the fakes of tests/fakes on 127.0.0.1, reached through the production base-URL variables
  const fakes = await startProviderFakes();
  const server = await startServer({ env: fakes.env });
  project.provide('fakeKeys', fakes.keys);
  project.provide('baseUrl', server.baseUrl);
  project.provide('dataDir', server.dataDir);
  const printed = () => /Sign in as (\S+) with the password (\S+)/.exec(server.output());
  // printed before the server listens; give the pipe a moment to deliver it
  for (let i = 0; i < 100 && !printed(); i++) await new Promise((r) => setTimeout(r, 20));
  const demo = printed();
  if (!demo) {
    await server.stop();
    await fakes.close();
    throw new Error(`The server did not create the demo workspace:\n${server.output()}`);
  }
  project.provide('demoAccount', { email: demo[1]!, password: demo[2]! });
  return async () => {
    await server.stop();
    await fakes.close();
  };
}
