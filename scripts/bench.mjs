// `npm run bench`: builds, then reports per route chunk the JS and CSS sizes (raw and gzipped), the
// landing page's and the dashboard's first-load weight against their budgets, and how fast `npm start`
// answers on a built tree.
// Writes the `bundle` and `startup` sections of bench/results.json, runs the suites of SUITES (each
// writes its own section), then bench/REPORT.md (bench/report.mjs). Reports only: `--strict` exits 1
// when a budget is exceeded. `--quick`: a shorter run for development (fewer rows, shorter load phases,
// one Lighthouse run a page) into bench/results.quick.json and bench/REPORT.quick.md.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeReport } from '../bench/report.mjs';
import { QUICK, RESULTS_FILE, writeSection } from '../bench/results.mjs';
import { buildAll } from './build.mjs';
import { brotli, gzip } from './lib/compress.mjs';
import { filesOfHtml, reachable } from './lib/manifest.mjs';
import { startServer } from './lib/server.mjs';
import { root } from './lib/stale.mjs';

const KiB = 1024;
export const BUDGETS = {
  landingJsGzipBytes: 135 * KiB,
  landingCssGzipBytes: 15 * KiB,
  /** The Agents page (/dashboard) a signed-in user lands on after login */
  dashboardJsGzipBytes: 220 * KiB,
  startupReadyMs: 2000,
};
const STARTUP_RUNS = 3;

const clientDir = path.join(root, 'dist/client');
const kib = (n) => `${(n / KiB).toFixed(1)} KiB`;
const log = (line = '') => process.stdout.write(`${line}\n`);

const sizeCache = new Map();
export function sizeOf(file) {
  if (!sizeCache.has(file)) {
    const buf = fs.readFileSync(path.join(clientDir, file));
    // gzip -9 is what the budgets count; brotli is what the server sends browsers that accept it
    sizeCache.set(file, { raw: buf.length, gzip: gzip(buf).length, br: brotli(buf).length });
  }
  return sizeCache.get(file);
}
const total = (files) =>
  [...files].reduce(
    (acc, f) => {
      const s = sizeOf(f);
      return { raw: acc.raw + s.raw, gzip: acc.gzip + s.gzip, br: acc.br + s.br };
    },
    { raw: 0, gzip: 0, br: 0 },
  );

/** Route path of a file under src/routes (`dashboard/agents/$agentId.tsx` -> `/dashboard/agents/$agentId`). */
function routeOf(routeFile) {
  const segments = routeFile.replace(/\.tsx?$/, '').split('/');
  const last = segments.at(-1);
  if (last === 'index' || last === 'route') segments.pop();
  return `/${segments.join('/')}`;
}

export function analyseBundle() {
  const manifest = JSON.parse(fs.readFileSync(path.join(clientDir, '.vite/manifest.json'), 'utf8'));
  const entryKey = Object.keys(manifest).find((k) => manifest[k].isEntry);
  if (!entryKey) throw new Error('No entry chunk in dist/client/.vite/manifest.json');

  /** chunk keys statically reachable from `key` (itself included), added to `seen` */
  const closure = (key, seen = new Set()) => reachable(manifest, [key], seen);
  const filesOf = (keys) => {
    const js = new Set();
    const css = new Set();
    for (const k of keys) {
      const chunk = manifest[k];
      if (chunk.file.endsWith('.js')) js.add(chunk.file);
      else if (chunk.file.endsWith('.css')) css.add(chunk.file);
      for (const c of chunk.css ?? []) css.add(c);
    }
    return { js, css };
  };
  // what index.html itself loads (the entry and its preloads, e.g. the landing route's chunks): part of
  // every route's first load
  const html = fs.readFileSync(path.join(clientDir, 'index.html'), 'utf8');
  const htmlFiles = [...filesOfHtml(html)];
  const weigh = (keys, withHtml = false) => {
    const { js, css } = filesOf(keys);
    for (const f of withHtml ? htmlFiles : []) (f.endsWith('.js') ? js : css).add(f);
    return { css: total(css), files: [...js, ...css].sort(), js: total(js) };
  };

  // route chunks made by the router plugin's automatic code splitting, grouped by route file
  const byFile = new Map();
  for (const [key, chunk] of Object.entries(manifest)) {
    const m = /^src\/routes\/(.+?)\?tsr-split=/.exec(chunk.src ?? key);
    if (!m) continue;
    byFile.set(m[1], [...(byFile.get(m[1]) ?? []), key]);
  }
  const layoutKeys = (routeFile) => {
    const dirs = routeFile.split('/').slice(0, -1);
    const keys = [];
    for (let i = 1; i <= dirs.length; i++) {
      const prefix = dirs.slice(0, i).join('/');
      for (const candidate of [`${prefix}/route.tsx`, `${prefix}.tsx`]) {
        if (candidate !== routeFile && byFile.has(candidate)) keys.push(...byFile.get(candidate));
      }
    }
    return keys;
  };

  const entryKeys = closure(entryKey);
  const routes = [...byFile.entries()]
    .map(([file, keys]) => {
      const own = new Set(keys);
      const isLayout = /(^|\/)route\.tsx$/.test(file);
      const firstLoad = new Set(entryKeys);
      for (const k of [...layoutKeys(file), ...keys]) closure(k, firstLoad);
      const ownWeight = weigh(own);
      const firstWeight = weigh(firstLoad, true);
      return {
        chunks: ownWeight.files,
        css: ownWeight.css,
        file: `src/routes/${file}`,
        firstLoad: { css: firstWeight.css, files: firstWeight.files, js: firstWeight.js },
        js: ownWeight.js,
        kind: isLayout ? 'layout' : 'page',
        route: routeOf(file),
      };
    })
    .sort((a, b) => a.route.localeCompare(b.route) || a.file.localeCompare(b.file));

  const landing = routes.find((r) => r.file === 'src/routes/index.tsx');
  if (!landing) throw new Error('No chunk for the landing route (src/routes/index.tsx)');
  // after login the browser shows /dashboard: the entry, the dashboard layout and the Agents page
  const dashboard = routes.find((r) => r.file === 'src/routes/dashboard/index.tsx');
  if (!dashboard) throw new Error('No chunk for the dashboard route (src/routes/dashboard/index.tsx)');
  const lazy = Object.entries(manifest)
    .filter(([key, c]) => c.isDynamicEntry && !/^src\/routes\/.+\?tsr-split=/.test(c.src ?? key))
    .map(([key]) => ({ name: manifest[key].name ?? key, ...weigh([...closure(key)].filter((k) => !entryKeys.has(k))) }))
    .sort((a, b) => a.name.localeCompare(b.name));

  // what the prerendered landing page (landing.html, sent for `/`) loads before any interaction: its
  // stylesheets and the boot script with its imports; the app follows on the first interaction
  const landingHtmlPath = path.join(clientDir, 'landing.html');
  const landingHtmlFiles = fs.existsSync(landingHtmlPath) ? [...filesOfHtml(fs.readFileSync(landingHtmlPath, 'utf8'))] : [];
  const landingPage = {
    css: total(landingHtmlFiles.filter((f) => f.endsWith('.css'))),
    html: sizeOf('landing.html'),
    js: total(landingHtmlFiles.filter((f) => f.endsWith('.js'))),
    files: landingHtmlFiles,
  };
  landingPage.pass = {
    css: landingPage.css.gzip <= BUDGETS.landingCssGzipBytes,
    js: landingPage.js.gzip <= BUDGETS.landingJsGzipBytes,
  };

  return {
    budgets: {
      dashboardJsGzipBytes: BUDGETS.dashboardJsGzipBytes,
      landingCssGzipBytes: BUDGETS.landingCssGzipBytes,
      landingJsGzipBytes: BUDGETS.landingJsGzipBytes,
    },
    dashboard: {
      css: dashboard.firstLoad.css,
      js: dashboard.firstLoad.js,
      pass: { js: dashboard.firstLoad.js.gzip <= BUDGETS.dashboardJsGzipBytes },
      what: 'first load of /dashboard signed in (after login): entry + dashboard layout + Agents page chunks and their static imports',
    },
    entry: weigh(entryKeys, true),
    landingPage,
    landing: {
      css: landing.firstLoad.css,
      js: landing.firstLoad.js,
      what: 'the app on the landing page, loaded on the first interaction: entry + landing route chunks and their static imports',
      pass: {
        css: landing.firstLoad.css.gzip <= BUDGETS.landingCssGzipBytes,
        js: landing.firstLoad.js.gzip <= BUDGETS.landingJsGzipBytes,
      },
    },
    lazyChunks: lazy,
    routes,
  };
}

export async function measureStartup(runs = STARTUP_RUNS) {
  const readyMs = [];
  for (let i = 0; i < runs; i++) {
    const server = await startServer();
    readyMs.push(Math.round(server.readyMs));
    await server.stop();
  }
  const sorted = [...readyMs].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  return {
    budgetMs: BUDGETS.startupReadyMs,
    medianMs: median,
    pass: median <= BUDGETS.startupReadyMs,
    runsMs: readyMs,
    load_average: os.loadavg().map((l) => Math.round(l * 100) / 100),
    what: 'node scripts/start.mjs with SKIP_BUILD=1 on a built tree, fresh DATA_DIR (SQLite created and migrated), until GET /api/v1/health answers',
  };
}

/**
 * Further benchmarks, one file each, run in order as `tsx <file>`: each prints its figures and writes its
 * own section of bench/results.json. Add a line here for a new one.
 */
const SUITES = [
  'bench/agents-api.ts',
  'bench/calls-api.ts',
  'bench/call-export.ts',
  'bench/call-analytics.ts',
  'bench/editor.ts',
  'bench/csv-parse.ts',
  'bench/hostile-uploads.ts',
  // two tenants attack the voice surfaces (audio floods, dripped SSE) while /health is timed
  'bench/voice-flood.ts',
  'bench/load.ts',
  'bench/lighthouse.ts',
  'bench/call-engine.ts',
  // a tool turn's added latency: web calls whose agent calls a custom function on every turn
  'bench/tools.ts',
  // 50 phone calls through the fake Twilio; a batch of 1,000 dialled at 10 concurrent
  'bench/phone-calls.ts',
  'bench/batch-dial.ts',
  // precision and recall of the personal-data detectors on a labelled corpus (pure, a second or two)
  'bench/redaction.ts',
  // Stryker over src/machines (tens of minutes on 2 cores; --quick: the seven targeted machines)
  'bench/mutation.ts',
];

function runSuite(file, quick) {
  return new Promise((resolve) => {
    log(`\n▶ ${file}`);
    const child = spawn(process.execPath, [path.join(root, 'node_modules/tsx/dist/cli.mjs'), file], {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, ...(quick ? { BENCH_QUICK: '1' } : {}) },
    });
    child.on('close', (code) => resolve(code ?? 1));
  });
}

async function main() {
  const strict = process.argv.includes('--strict');
  log('Building...');
  await buildAll({ quiet: true });

  const bundle = analyseBundle();
  const mark = (ok) => (ok ? 'PASS' : 'FAIL');
  const col = (s, n) => String(s).padEnd(n);
  log();
  log('Route chunks (own files; JS and CSS, raw / gzip; first load adds the entry and layouts)');
  log(
    `  ${col('route', 34)}${col('kind', 8)}${col('JS raw', 12)}${col('JS gzip', 12)}${col('CSS raw', 12)}${col('CSS gzip', 12)}first-load JS gzip`,
  );
  for (const r of bundle.routes) {
    log(
      `  ${col(r.route, 34)}${col(r.kind, 8)}${col(kib(r.js.raw), 12)}${col(kib(r.js.gzip), 12)}${col(kib(r.css.raw), 12)}${col(kib(r.css.gzip), 12)}${kib(r.firstLoad.js.gzip)}`,
    );
  }
  log(
    `  ${col('(entry + index.html preloads)', 42)}${col(kib(bundle.entry.js.raw), 12)}${col(kib(bundle.entry.js.gzip), 12)}${col(kib(bundle.entry.css.raw), 12)}${kib(bundle.entry.css.gzip)}`,
  );
  for (const l of bundle.lazyChunks)
    log(
      `  ${col(`(lazy, beyond the entry: ${l.name})`, 42)}${col(kib(l.js.raw), 12)}${col(kib(l.js.gzip), 12)}${col(kib(l.css.raw), 12)}${kib(l.css.gzip)}`,
    );
  log();
  log(
    `Landing page first load (landing.html, before any interaction): JS ${kib(bundle.landingPage.js.gzip)} gzip ${mark(bundle.landingPage.pass.js)}; ` +
      `CSS ${kib(bundle.landingPage.css.gzip)} gzip ${mark(bundle.landingPage.pass.css)}; HTML ${kib(bundle.landingPage.html.gzip)} gzip`,
  );
  log(
    `Landing app (loaded on the first interaction or prefetched at idle): JS ${kib(bundle.landing.js.gzip)} gzip; CSS ${kib(bundle.landing.css.gzip)} gzip`,
  );
  log(
    `Dashboard first load after login (/dashboard): JS ${kib(bundle.dashboard.js.gzip)} gzip (budget ${kib(BUDGETS.dashboardJsGzipBytes)}) ${mark(bundle.dashboard.pass.js)}, ${kib(bundle.dashboard.js.br)} brotli as sent; ` +
      `CSS ${kib(bundle.dashboard.css.gzip)} gzip`,
  );
  writeSection('bundle', bundle);

  const startup = await measureStartup();
  log(
    `npm start on a built tree: ready in ${startup.medianMs} ms (median of ${startup.runsMs.join(', ')} ms; budget ${startup.budgetMs} ms) ${mark(startup.pass)}`,
  );
  writeSection('startup', startup);
  let suiteFailed = false;
  for (const file of SUITES) if ((await runSuite(file, QUICK)) !== 0) suiteFailed = true;
  log(`\nWrote ${path.relative(root, RESULTS_FILE)} and ${path.relative(root, writeReport())}`);

  const failed = !bundle.landingPage.pass.js || !bundle.landingPage.pass.css || !bundle.dashboard.pass.js || !startup.pass;
  if (suiteFailed || (strict && failed)) process.exitCode = 1;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((e) => {
    process.stderr.write(`bench: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
