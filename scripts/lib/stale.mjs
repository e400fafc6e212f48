// Is the build in dist/ missing or older than the sources? Shared by `npm start`, the e2e setup and the bench.
import fs from 'node:fs';
import path from 'node:path';

export const root = path.resolve(import.meta.dirname, '../..');
const stamp = path.join(root, 'dist/.build-stamp');

/** Newest modification time (ms) among the files the build reads. */
export function newestSource() {
  let newest = 0;
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const f = path.join(d, e.name);
      if (e.isDirectory()) walk(f);
      else newest = Math.max(newest, fs.statSync(f).mtimeMs);
    }
  };
  for (const d of ['src', 'server', 'public']) if (fs.existsSync(path.join(root, d))) walk(path.join(root, d));
  for (const f of ['index.html', 'vite.config.ts', 'package.json', 'package-lock.json', 'scripts/build.mjs']) {
    const file = path.join(root, f);
    if (fs.existsSync(file)) newest = Math.max(newest, fs.statSync(file).mtimeMs);
  }
  return newest;
}

/** True when dist/ has no complete build or a source changed after it. */
export function buildIsStale() {
  return (
    !fs.existsSync(stamp) ||
    !fs.existsSync(path.join(root, 'dist/server/main.js')) ||
    !fs.existsSync(path.join(root, 'dist/client/index.html')) ||
    fs.statSync(stamp).mtimeMs < newestSource()
  );
}
