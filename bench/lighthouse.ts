/**
 * Lighthouse 12 benchmark: the landing page and the dashboard after login, on the built app
 * started like `npm start`, in Debian's Chromium (headless, the flags of tests/e2e/browser.ts, a fresh
 * profile per run), Lighthouse's default mobile setting with simulated throttling; each page 5 times,
 * the median run (Lighthouse's own computeMedianRun) reported.
 *
 * The dashboard run signs a user up through the API, then stores the session the way the SPA stores it
 * (localStorage `auth-store`, `accountId`, `companyId`: src/session/storage.ts) from a page of the same
 * origin before Lighthouse navigates: a returning user whose session is held and whose cache is cold
 * (Lighthouse's storage reset empties the HTTP cache and keeps localStorage). Until 2026-11-24 the session
 * was injected into every new document instead, which ran the harness's script inside the measured page's
 * navigation.
 *
 * Budgets: landing performance at least 98, LCP under 1.8 s, TBT under 100 ms; dashboard performance at
 * least 95. `/privacy` (static text rendered by the app, no data) is measured too, as the stack's floor.
 *
 *   npx tsx bench/lighthouse.ts            5 runs a page; writes the `lighthouse` section of bench/results.json
 *   npx tsx bench/lighthouse.ts --quick    1 run a page (bench/results.quick.json)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import { computeMedianRun } from 'lighthouse/core/lib/median-run.js';
import puppeteer from 'puppeteer-core';
import { buildAll } from '../scripts/build.mjs';
import { startServer } from '../scripts/lib/server.mjs';
import { buildIsStale } from '../scripts/lib/stale.mjs';
import { AUTH_STORE_KEY } from '../src/session/storage.js';
import { CHROMIUM_ARGS } from '../tests/e2e/browser.js';
import { CHROMIUM_PATH } from '../tests/e2e/chromium.js';
import { QUICK } from './lib.js';

export const RUNS = QUICK ? 1 : 5;
export const BUDGETS = {
  landing: { performance: 98, lcpMs: 1800, tbtMs: 100 },
  dashboard: { performance: 95 },
};

interface Session {
  token: string;
  refresh_token: string;
  account: { _id: string; companyId: string };
}

type Lhr = NonNullable<Awaited<ReturnType<typeof lighthouse>>>['lhr'];

const METRICS = {
  fcpMs: 'first-contentful-paint',
  lcpMs: 'largest-contentful-paint',
  tbtMs: 'total-blocking-time',
  cls: 'cumulative-layout-shift',
  speedIndexMs: 'speed-index',
  ttiMs: 'interactive',
} as const;

const round = (n: number, digits = 0) => Math.round(n * 10 ** digits) / 10 ** digits;

/** The figures of one run. */
function figuresOf(lhr: Lhr) {
  const metric = (id: string) => lhr.audits[id]?.numericValue ?? Number.NaN;
  return {
    performance: Math.round((lhr.categories.performance?.score ?? 0) * 100),
    ...Object.fromEntries(Object.entries(METRICS).map(([k, id]) => [k, round(metric(id), k === 'cls' ? 3 : 0)])),
    finalUrl: lhr.finalDisplayedUrl,
    // where the main thread's time went (ms), the first clue when the score drops
    mainThreadMs: round(lhr.audits['mainthread-work-breakdown']?.numericValue ?? 0),
    bootupMs: round(lhr.audits['bootup-time']?.numericValue ?? 0),
    transferBytes: round(lhr.audits['total-byte-weight']?.numericValue ?? 0),
    // the LCP's phases (TTFB, load delay, load time, render delay) and the scripts that cost most CPU
    lcpPhases: lcpPhases(lhr),
    lcpElement: lcpElement(lhr),
    topScripts: topScripts(lhr),
    benchmarkIndex: round(lhr.environment.benchmarkIndex),
    runWarnings: lhr.runWarnings,
  } as {
    performance: number;
    fcpMs: number;
    lcpMs: number;
    tbtMs: number;
    cls: number;
    speedIndexMs: number;
    ttiMs: number;
    finalUrl: string;
    mainThreadMs: number;
    bootupMs: number;
    transferBytes: number;
    lcpPhases: Record<string, number>;
    lcpElement: string;
    topScripts: { url: string; totalMs: number; scriptingMs: number }[];
    benchmarkIndex: number;
    runWarnings: string[];
  };
}

interface TableItem {
  [key: string]: unknown;
}
const itemsOf = (lhr: Lhr, id: string): TableItem[] =>
  ((lhr.audits[id]?.details as { items?: TableItem[] } | undefined)?.items ?? []) as TableItem[];

function lcpPhases(lhr: Lhr): Record<string, number> {
  // largest-contentful-paint-element: [element table, phases table]
  const phases = (
    itemsOf(lhr, 'largest-contentful-paint-element')[1] as { items?: { phase: string; timing: number }[] } | undefined
  )?.items;
  return Object.fromEntries((phases ?? []).map((p) => [p.phase, round(p.timing)]));
}

/** The LCP element as Lighthouse saw it (its HTML snippet). */
function lcpElement(lhr: Lhr): string {
  const table = itemsOf(lhr, 'largest-contentful-paint-element')[0] as { items?: { node?: { snippet?: string } }[] } | undefined;
  return table?.items?.[0]?.node?.snippet ?? '';
}

function topScripts(lhr: Lhr) {
  return itemsOf(lhr, 'bootup-time')
    .slice(0, 4)
    .map((i) => ({
      url: String(i.url).replace(/^https?:\/\/[^/]+/, ''),
      totalMs: round(Number(i.total)),
      scriptingMs: round(Number(i.scripting)),
    }));
}

/** One Lighthouse run in a freshly launched Chromium with a fresh profile; `session` is stored first when given. */
export async function runOnce(url: string, session?: Session): Promise<Lhr> {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-lh-'));
  const chrome = await chromeLauncher.launch({
    chromePath: CHROMIUM_PATH,
    chromeFlags: ['--headless=new', ...CHROMIUM_ARGS, `--user-data-dir=${userDataDir}`],
    userDataDir: false,
    logLevel: 'error',
  });
  try {
    const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}`, defaultViewport: null });
    const page = await browser.newPage();
    if (session) {
      // a returning user: the session is stored before the measured navigation, on a page of the same
      // origin that loads nothing (Lighthouse's storage reset clears the HTTP cache, service workers and
      // Cache Storage, not localStorage: its default clearStorageTypes), so the measured document runs no
      // script of the harness's
      await page.goto(new URL('/api/v1/health', url).href);
      await page.evaluate(
        (key: string, s: Session) => {
          localStorage.setItem(
            key,
            JSON.stringify({ state: { access_token: s.token, refresh_token: s.refresh_token }, version: 0 }),
          );
          localStorage.setItem('accountId', s.account._id);
          localStorage.setItem('companyId', s.account.companyId);
        },
        AUTH_STORE_KEY,
        session,
      );
    }
    const result = await lighthouse(
      url,
      { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance'] },
      undefined,
      page,
    );
    if (!result) throw new Error(`Lighthouse gave no result for ${url}`);
    // LH_TRACE_DIR=dir keeps each run's trace (for tools/profiling: open it in DevTools' Performance panel)
    if (process.env.LH_TRACE_DIR) {
      fs.mkdirSync(process.env.LH_TRACE_DIR, { recursive: true });
      const name = `${new URL(url).pathname.replace(/\W+/g, '_') || 'root'}-${Date.now()}.json`;
      fs.writeFileSync(path.join(process.env.LH_TRACE_DIR, name), JSON.stringify(result.artifacts.Trace));
    }
    await browser.disconnect();
    return result.lhr;
  } finally {
    await chrome.kill();
    fs.rmSync(userDataDir, { recursive: true, force: true });
  }
}

async function measure(label: string, url: string, session?: Session) {
  const runs: Lhr[] = [];
  for (let i = 0; i < RUNS; i++) {
    const lhr = await runOnce(url, session);
    if (lhr.runtimeError) throw new Error(`${label}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
    runs.push(lhr);
    const f = figuresOf(lhr);
    process.stderr.write(`  ${label} run ${i + 1}/${RUNS}: performance ${f.performance}, LCP ${f.lcpMs} ms, TBT ${f.tbtMs} ms\n`);
  }
  const median = figuresOf(computeMedianRun(runs));
  return { median, runs: runs.map((r) => figuresOf(r).performance) };
}

export async function run() {
  if (buildIsStale()) await buildAll({ quiet: true });
  const server = await startServer({ env: { DEMO: 'off' } });
  try {
    const form = new FormData();
    form.set('name', 'Bench Lighthouse');
    form.set('email', `lighthouse-${Date.now()}@example.com`);
    form.set('password', 'amber harbor 2291');
    const res = await fetch(`${server.baseUrl}/api/v1/account/register`, { method: 'POST', body: form });
    const session = (await res.json()) as Session;
    if (res.status !== 201) throw new Error(`sign-up failed: ${res.status} ${JSON.stringify(session)}`);

    const landing = await measure('landing', `${server.baseUrl}/`);
    const dashboard = await measure('dashboard', `${server.baseUrl}/dashboard`, session);
    if (!new URL(dashboard.median.finalUrl).pathname.startsWith('/dashboard'))
      throw new Error(`the dashboard run ended on ${dashboard.median.finalUrl}: the session was not picked up`);
    // the stack's floor, for the dashboard's budget: a page of static text rendered by the same app (the
    // entry, the router and a small route chunk; no data, no Ariakit, no table)
    const floor = await measure('floor /privacy', `${server.baseUrl}/privacy`);
    const b = BUDGETS;
    return {
      quick: QUICK,
      runs: RUNS,
      setting: 'Lighthouse 12, default mobile (Moto G Power, simulated slow 4G and 4x CPU slowdown), headless Debian Chromium',
      chromium: CHROMIUM_PATH,
      landing: {
        ...landing,
        budgets: b.landing,
        pass: {
          performance: landing.median.performance >= b.landing.performance,
          lcp: landing.median.lcpMs < b.landing.lcpMs,
          tbt: landing.median.tbtMs < b.landing.tbtMs,
        },
      },
      dashboard: {
        ...dashboard,
        budgets: b.dashboard,
        pass: { performance: dashboard.median.performance >= b.dashboard.performance },
      },
      floor: { ...floor, what: "/privacy: static text rendered by the app's entry and router (no data, no Ariakit)" },
      load_average: os.loadavg().map((l) => round(l, 2)),
    };
  } finally {
    await server.stop();
  }
}

export type LighthouseBench = Awaited<ReturnType<typeof run>>;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await run();
  const mark = (ok: boolean) => (ok ? 'PASS' : 'FAIL');
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const line = (name: string, m: LighthouseBench['landing']['median'], runs: number[]) =>
    `${name}: performance ${m.performance} (runs ${runs.join(', ')}), FCP ${m.fcpMs} ms, LCP ${m.lcpMs} ms, TBT ${m.tbtMs} ms, CLS ${m.cls}, SI ${m.speedIndexMs} ms`;
  out(`Lighthouse (${result.setting}; median of ${result.runs})`);
  const l = result.landing;
  out(`  ${line('landing', l.median, l.runs)}`);
  out(
    `    budgets: performance >= ${l.budgets.performance} ${mark(l.pass.performance)}, LCP < ${l.budgets.lcpMs} ms ${mark(l.pass.lcp)}, TBT < ${l.budgets.tbtMs} ms ${mark(l.pass.tbt)}`,
  );
  const d = result.dashboard;
  out(`  ${line('dashboard', d.median, d.runs)}`);
  out(
    `    budget: performance >= ${d.budgets.performance} ${mark(d.pass.performance)}; load average ${result.load_average.join(' ')}`,
  );
  out(`  ${line('floor /privacy', result.floor.median, result.floor.runs)}`);
  const { writeSection } = await import('./results.mjs');
  writeSection('lighthouse', result);
}
