// Production start: builds when the build is missing or older than the sources, then serves
// the SPA and the API from this one Node process.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const stamp = path.join(root, 'dist/.build-stamp');

function newestSource() {
  let newest = 0;
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const f = path.join(d, e.name);
      if (e.isDirectory()) walk(f);
      else newest = Math.max(newest, fs.statSync(f).mtimeMs);
    }
  };
  for (const d of ['src', 'server', 'public']) if (fs.existsSync(path.join(root, d))) walk(path.join(root, d));
  for (const f of ['index.html', 'vite.config.ts', 'package.json'])
    newest = Math.max(newest, fs.statSync(path.join(root, f)).mtimeMs);
  return newest;
}

const needsBuild =
  process.env.SKIP_BUILD !== '1' &&
  (!fs.existsSync(stamp) ||
    !fs.existsSync(path.join(root, 'dist/server/main.js')) ||
    fs.statSync(stamp).mtimeMs < newestSource());
if (needsBuild) {
  process.stdout.write('Building Parley (first start or sources changed)...\n');
  const { buildAll } = await import('./build.mjs');
  await buildAll({ quiet: true });
}
process.env.NODE_ENV ??= 'production';
await import(path.join(root, 'dist/server/main.js'));
