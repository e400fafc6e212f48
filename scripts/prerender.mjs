// Writes the per-page HTML files the server sends instead of index.html:
// - dist/client/landing.html for `/`: the landing page rendered at build time (src/landing/prerender.tsx
//   through a Vite SSR build), styled by the same stylesheets as the app, with one small script
//   (src/landing/boot.ts) instead of the app's entry; the app starts on the first interaction.
// - dist/client/dashboard.html for `/dashboard`: index.html preloading that page's chunks, with a small
//   script before the entry that asks for the page's first data while the app downloads.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { filesOfHtml, reachable } from './lib/manifest.mjs';

const root = path.resolve(import.meta.dirname, '..');
const clientDir = path.join(root, 'dist/client');
const ssrDir = path.join(root, 'dist/prerender');

const attr = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

/** The JS and CSS files a route's split chunks need beyond what `exclude` (the entry's files) holds. */
export function routeFiles(manifest, routeFile, exclude = new Set()) {
  const keys = reachable(
    manifest,
    Object.keys(manifest).filter((key) => key.startsWith(`${routeFile}?tsr-split=`)),
  );
  const js = [];
  const css = [];
  for (const key of keys) {
    const chunk = manifest[key];
    if (!exclude.has(chunk.file)) js.push(chunk.file);
    for (const c of chunk.css ?? []) if (!exclude.has(c) && !css.includes(c)) css.push(c);
  }
  return { js, css };
}

const stylesheets = (css) => css.map((f) => `<link rel="stylesheet" crossorigin href="/${f}">`);
const modulePreloads = (js) => js.map((f) => `<link rel="modulepreload" crossorigin href="/${f}">`);
const intoHead = (html, tags) => html.replace(/\n\s*<\/head>/, `\n    ${tags.join('\n    ')}\n  </head>`);

/**
 * landing.html from the built index.html: the prerendered markup in #root, the stylesheets of the entry
 * and of the landing route, and the boot script instead of the app's entry (whose files, with the
 * landing route's, are listed in <meta name="parley-app"> for boot.ts to prefetch at idle).
 */
export function landingHtml(indexHtml, { html, htmlClass, bootFile, bootImports, route }) {
  const appFiles = [];
  let out = indexHtml
    .replace(/\s*<script type="module" crossorigin src="\/(assets\/[^"]+\.js)"><\/script>/, (_, file) => {
      appFiles.push(`/${file}`);
      return '';
    })
    .replace(/\s*<link rel="modulepreload" crossorigin href="\/(assets\/[^"]+\.js)">/g, (_, file) => {
      appFiles.push(`/${file}`);
      return '';
    });
  appFiles.push(...route.js.map((f) => `/${f}`));
  out = intoHead(out, [
    ...stylesheets(route.css),
    ...modulePreloads(bootImports),
    `<meta name="parley-app" content="${attr(appFiles.join(' '))}">`,
    `<script type="module" crossorigin src="/${bootFile}"></script>`,
  ])
    .replace('<html lang="en">', `<html lang="en" class="${attr(htmlClass)}">`)
    .replace('<div id="root"></div>', `<div id="root" data-prerendered>${html}</div>`);
  if (!out.includes('data-prerendered') || !out.includes(bootFile) || appFiles.length === 0)
    throw new Error('landing.html: index.html did not have the expected shape');
  return out;
}

/**
 * dashboard.html, sent for /dashboard (where a login lands): index.html that also preloads the dashboard
 * layout's and the Agents page's chunks and links their stylesheets, so the browser fetches them with the
 * entry instead of one round trip after another once the router has matched the URL; and, before the entry,
 * `earlyFile` (src/landing/early.ts), which asks for the page's first data while the app downloads
 * (module scripts run in document order: it runs as soon as it is loaded, not after the app).
 */
export function dashboardHtml(indexHtml, files, earlyFile) {
  const early = `<script type="module" crossorigin src="/${earlyFile}"></script>`;
  const out = intoHead(indexHtml, [...modulePreloads(files.js), ...stylesheets(files.css)]).replace(
    /<script type="module" crossorigin src="\/assets\/[^"]+\.js"><\/script>/,
    (entry) => `${early}\n    ${entry}`,
  );
  if (!out.includes(early)) throw new Error('dashboard.html: index.html did not have the expected shape');
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
  const early = manifest['src/landing/early.ts'];
  if (!boot || !early) throw new Error('No src/landing/boot.ts or src/landing/early.ts in the client manifest');
  const bootImports = (boot.imports ?? []).map((k) => manifest[k].file);
  const indexHtml = fs.readFileSync(path.join(clientDir, 'index.html'), 'utf8');
  const entryFiles = filesOfHtml(indexHtml);
  const route = routeFiles(manifest, 'src/routes/index.tsx', entryFiles);
  fs.writeFileSync(
    path.join(clientDir, 'landing.html'),
    landingHtml(indexHtml, { ...rendered, bootFile: boot.file, bootImports, route }),
  );
  const layout = routeFiles(manifest, 'src/routes/dashboard/route.tsx', entryFiles);
  const agents = routeFiles(manifest, 'src/routes/dashboard/index.tsx', new Set([...entryFiles, ...layout.js, ...layout.css]));
  fs.writeFileSync(
    path.join(clientDir, 'dashboard.html'),
    dashboardHtml(indexHtml, { js: [...layout.js, ...agents.js], css: [...layout.css, ...agents.css] }, early.file),
  );
  fs.rmSync(ssrDir, { recursive: true, force: true });
}
