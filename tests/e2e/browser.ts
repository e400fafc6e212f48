/**
 * One headless Debian Chromium per test file, with a fresh profile. Every request the pages make is
 * recorded; requests to any host but this machine are aborted (and still recorded, so
 * `expectOnlyLocalRequests` names them).
 *
 *   const b = await openBrowser();            // in beforeAll
 *   const page = await b.newPage();
 *   await page.goto(b.url('/'));
 *   expectOnlyLocalRequests(b.requests);
 *   await b.close();                          // in afterAll
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { expect, inject } from 'vitest';
import { assertChromium, CHROMIUM_PATH } from './chromium.js';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

export const isLocalUrl = (url: string): boolean => {
  if (/^(data|blob|about|chrome-error):/.test(url)) return true;
  try {
    return LOCAL_HOSTS.has(new URL(url).hostname);
  } catch {
    return false;
  }
};

export interface TestBrowser {
  context: BrowserContext;
  /** every request URL any page of this browser made, in order */
  requests: string[];
  /** uncaught errors thrown in any page */
  pageErrors: string[];
  baseUrl: string;
  url(pathname: string): string;
  newPage(): Promise<Page>;
  close(): Promise<void>;
}

/** `extraArgs`: more Chromium switches (e.g. the fake microphone of the web call test). */
export async function openBrowser(extraArgs: readonly string[] = []): Promise<TestBrowser> {
  assertChromium();
  const baseUrl = inject('baseUrl');
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, ...extraArgs],
    viewport: { width: 1280, height: 800 },
    locale: 'en-US',
    timezoneId: 'UTC',
  });
  const requests: string[] = [];
  const pageErrors: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    requests.push(url);
    return isLocalUrl(url) ? route.continue() : route.abort('blockedbyclient');
  });
  const watch = (page: Page) => page.on('pageerror', (e) => pageErrors.push(`${e.name}: ${e.message}`));
  context.pages().forEach(watch);
  context.on('page', watch);
  return {
    context,
    requests,
    pageErrors,
    baseUrl,
    url: (pathname) => new URL(pathname, baseUrl).href,
    newPage: () => context.newPage(),
    close: async () => {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Fails naming every request that went anywhere but this machine. */
export function expectOnlyLocalRequests(requests: readonly string[]): void {
  expect(requests.length, 'no request was recorded at all').toBeGreaterThan(0);
  expect(requests.filter((u) => !isLocalUrl(u))).toEqual([]);
}

/**
 * Holds back the code of a route's page (the router's `?tsr-split=component` chunk of `routeFile`, e.g.
 * 'src/routes/dashboard/call-history.tsx', found in the build's manifest) until `release()`: shows what a
 * page asks for before its code has arrived (a route loader's request).
 */
export async function holdPageCode(page: Page, routeFile: string): Promise<() => void> {
  const manifestFile = path.resolve(import.meta.dirname, '../../dist/client/.vite/manifest.json');
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Record<string, { file: string }>;
  const file = manifest[`${routeFile}?tsr-split=component`]?.file;
  if (!file) throw new Error(`no page chunk for ${routeFile} in ${manifestFile}`);
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(`**/${file}`, async (route) => {
    await released;
    await route.fallback();
  });
  return release;
}
