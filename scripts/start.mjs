// Production start: builds when the build is missing or older than the sources, then serves
// the SPA and the API from this one Node process. SKIP_BUILD=1 serves dist/ as it is.
import path from 'node:path';
import { buildIsStale, root } from './lib/stale.mjs';

if (process.env.SKIP_BUILD !== '1' && buildIsStale()) {
  process.stdout.write('Building Parley (first start or sources changed)...\n');
  const { buildAll } = await import('./build.mjs');
  await buildAll({ quiet: true });
}
process.env.NODE_ENV ??= 'production';
await import(path.join(root, 'dist/server/main.js'));
