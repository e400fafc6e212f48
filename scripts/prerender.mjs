// Writes dist/client/landing.html, the page the server sends for `/`: the landing page rendered at build
// time (src/landing/prerender.tsx through a Vite SSR build), styled by the same stylesheets as the app,
// with one small script (src/landing/boot.ts) instead of the app's entry. The app's files are named in
// <meta name="parley-app"> for boot.ts to prefetch at idle; the app starts on the first interaction.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(import.meta.dirname, '..');
const clientDir = path.join(root, 'dist/client');
const ssrDir = path.join(root, 'dist/prerender');

const attr = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

/** landing.html from the built index.html, the prerendered markup and the boot script's file. */
export function landingHtml(indexHtml, { html, htmlClass, bootFile, bootImports }) {
  const appFiles = [];
  let out = indexHtml
    // the app's entry and its preloads: fetched later (prefetch at idle), not on the landing's first load
    .replace(/\s*<script type="module" crossorigin src="\/(assets\/[^"]+\.js)"><\/script>/, (_, file) => {
      appFiles.push(`/${file}`);
      return '';
    })
    .replace(/\s*<link rel="modulepreload" crossorigin href="\/(assets\/[^"]+\.js)">/g, (_, file) => {
      appFiles.push(`/${file}`);
      return '';
    })
    // the landing route's styles, preloaded for the app, are the static page's own stylesheets
    .replace(/<link rel="preload" as="style" crossorigin href="([^"]+)">/g, '<link rel="stylesheet" crossorigin href="$1">');
  const scripts = [
    ...bootImports.map((f) => `<link rel="modulepreload" crossorigin href="/${f}">`),
    `<meta name="parley-app" content="${attr(appFiles.join(' '))}">`,
    `<script type="module" crossorigin src="/${bootFile}"></script>`,
  ];
  out = out
    .replace('<html lang="en">', `<html lang="en" class="${attr(htmlClass)}">`)
    .replace('</head>', `    ${scripts.join('\n    ')}\n  </head>`)
    .replace('<div id="root"></div>', `<div id="root" data-prerendered>${html}</div>`);
  if (!out.includes('data-prerendered') || !out.includes(bootFile) || appFiles.length === 0)
    throw new Error('landing.html: index.html did not have the expected shape');
  return out;
}

export async function prerenderLanding() {
  execFileSync(
    process.execPath,
    [
      path.join(root, 'node_modules/vite/bin/vite.js'),
      'build',
      '--ssr',
      'src/landing/prerender.tsx',
      '--outDir',
      'dist/prerender',
      '--logLevel',
      'warn',
    ],
    { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } },
  );
  const { renderLanding } = await import(pathToFileURL(path.join(ssrDir, 'prerender.js')).href);
  const rendered = await renderLanding();
  const manifest = JSON.parse(fs.readFileSync(path.join(clientDir, '.vite/manifest.json'), 'utf8'));
  const boot = manifest['src/landing/boot.ts'];
  if (!boot) throw new Error('No src/landing/boot.ts in the client manifest');
  const bootImports = (boot.imports ?? []).map((k) => manifest[k].file);
  const indexHtml = fs.readFileSync(path.join(clientDir, 'index.html'), 'utf8');
  fs.writeFileSync(
    path.join(clientDir, 'landing.html'),
    landingHtml(indexHtml, { ...rendered, bootFile: boot.file, bootImports }),
  );
  fs.rmSync(ssrDir, { recursive: true, force: true });
}
