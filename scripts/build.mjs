// Builds the SPA (vite -> dist/client, with .br and .gz siblings) and the server (esbuild -> dist/server).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { brotli, gzip } from './lib/compress.mjs';
import { prerenderLanding } from './prerender.mjs';

const root = path.resolve(import.meta.dirname, '..');
const log = (m) => process.stdout.write(`${m}\n`);

export async function buildAll({ quiet = false } = {}) {
  const t0 = Date.now();
  execFileSync(
    process.execPath,
    [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', ...(quiet ? ['--logLevel', 'warn'] : [])],
    {
      cwd: root,
      stdio: 'inherit',
      // always a production bundle, even when called from a test run (vitest sets NODE_ENV=test, which
      // would make Vite bundle React's development build)
      env: { ...process.env, NODE_ENV: 'production' },
    },
  );
  // the landing page as static HTML (landing.html, sent for `/`)
  await prerenderLanding();
  // precompress text assets so the server can send them brotli'd or gzipped without work per request
  // (brotli at its best quality: about 13% fewer bytes than gzip -9 for the dashboard's first load)
  const walk = (d) =>
    fs
      .readdirSync(d, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
  for (const f of walk(path.join(root, 'dist/client'))) {
    if (!/\.(js|css|html|svg|json|txt|csv)$/.test(f)) continue;
    const body = fs.readFileSync(f);
    fs.writeFileSync(`${f}.gz`, gzip(body));
    fs.writeFileSync(`${f}.br`, brotli(body));
  }
  await build({
    // main.js, and beside it every worker thread's script (server/**/*.thread.ts -> <name>.thread.js, where
    // server/platform/workers/untrusted-worker.ts looks for it once built)
    entryPoints: {
      main: path.join(root, 'server/main.ts'),
      ...Object.fromEntries(
        fs
          .readdirSync(path.join(root, 'server'), { recursive: true })
          .filter((f) => String(f).endsWith('.thread.ts'))
          .map((f) => [path.basename(String(f), '.ts'), path.join(root, 'server', String(f))]),
      ),
    },
    outdir: path.join(root, 'dist/server'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
  });
  // data files the server reads at run time ship beside the bundle
  fs.copyFileSync(
    path.join(root, 'server/modules/auth/common-passwords.txt'),
    path.join(root, 'dist/server/common-passwords.txt'),
  );
  // the photo decoder's worker thread (plain JavaScript, loaded by URL beside the bundle)
  fs.copyFileSync(path.join(root, 'server/platform/uploads/photo.worker.mjs'), path.join(root, 'dist/server/photo.worker.mjs'));
  fs.writeFileSync(path.join(root, 'dist/.build-stamp'), String(Date.now()));
  if (!quiet) log(`built in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await buildAll();
}
