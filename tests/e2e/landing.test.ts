// The landing page is prerendered HTML (dist/client/landing.html, sent for `/`); the app starts on the
// first interaction (src/landing/boot.ts). These tests hold the app's chunks back to prove a click
// made before the app is up is replayed once, and that focus survives the app replacing the markup.
import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBrowser, type TestBrowser } from './browser.js';
import { signedInPage, signUpViaApi } from './session.js';

let b: TestBrowser;

beforeAll(async () => {
  b = await openBrowser();
});

afterAll(async () => {
  await b?.close();
});

/** The app's code (vite.config.ts groups it in `vendor` and `app` chunks); the boot script has its own. */
const APP_CHUNKS = /\/assets\/(app|vendor)-[\w-]+\.js$/;
const appIsUp = (page: Page) => page.evaluate(() => !document.getElementById('root')?.hasAttribute('data-prerendered'));

/** Holds every request for the app's chunks until `release()` (prefetches included). */
async function holdAppChunks(page: Page) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const held: string[] = [];
  await page.route(APP_CHUNKS, async (route: Route) => {
    held.push(route.request().url());
    await gate;
    await route.continue();
  });
  return { release, held };
}

describe('the prerendered landing page', () => {
  it('is in the HTML sent for / with the boot script instead of the app entry; /dashboard preloads its page; other paths get the SPA shell', async () => {
    const landing = await (await fetch(b.url('/'))).text();
    expect(landing).toContain('<div id="root" data-prerendered>');
    expect(landing).toMatch(/<h1[^>]*>Turn voice data into <span[^>]*>actionable insights<\/span><\/h1>/);
    expect(landing).toMatch(/<script type="module" crossorigin src="\/assets\/boot-[\w-]+\.js"><\/script>/);
    expect(landing).not.toMatch(/<script[^>]+src="\/assets\/(index|app|vendor)-/);
    expect(landing).not.toMatch(/rel="modulepreload" crossorigin href="\/assets\/(app|vendor)-/);

    const shell = await (await fetch(b.url('/privacy'))).text();
    expect(shell).toContain('<div id="root"></div>');
    expect(shell).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js"><\/script>/);
    expect(shell).not.toContain('href="/assets/dashboard-');

    // /dashboard (where a login lands) also preloads the Agents page's chunk and links its stylesheet
    for (const path of ['/dashboard', '/dashboard/']) {
      const dashboard = await (await fetch(b.url(path))).text();
      expect(dashboard).toContain('<div id="root"></div>');
      expect(dashboard).toMatch(/<link rel="modulepreload" crossorigin href="\/assets\/dashboard-[\w-]+\.js">/);
      expect(dashboard).toMatch(/<link rel="stylesheet" crossorigin href="\/assets\/dashboard-[\w-]+\.css">/);
      // the early requests' script comes before the app's entry (module scripts run in document order)
      expect(dashboard).toMatch(
        /<script type="module" crossorigin src="\/assets\/early-[\w-]+\.js"><\/script>\s*<script type="module" crossorigin src="\/assets\/index-/,
      );
    }
  });

  it('the built files reach Chromium brotli-compressed; a client taking only gzip gets the same bytes gzipped', async () => {
    const page = await b.newPage();
    const encodings = new Map<string, string>();
    page.on('response', async (res) => {
      const url = new URL(res.url());
      if (url.pathname.startsWith('/assets/')) encodings.set(url.pathname, (await res.allHeaders())['content-encoding'] ?? '');
    });
    await page.goto(b.url('/privacy'));
    await page.getByRole('heading', { level: 1 }).waitFor();
    const scripts = [...encodings.keys()].filter((p) => p.endsWith('.js'));
    expect(scripts.some((p) => /^\/assets\/vendor-/.test(p))).toBe(true);
    for (const p of scripts) expect(encodings.get(p), p).toBe('br');
    await page.close();

    const vendor = scripts.find((p) => /^\/assets\/vendor-/.test(p)) as string;
    const plain = await fetch(b.url(vendor), { headers: { 'Accept-Encoding': 'identity' } });
    const gzipped = await fetch(b.url(vendor), { headers: { 'Accept-Encoding': 'gzip' } });
    const brotli = await fetch(b.url(vendor), { headers: { 'Accept-Encoding': 'br, gzip' } });
    expect([plain, gzipped, brotli].map((r) => r.headers.get('content-encoding'))).toEqual([null, 'gzip', 'br']);
    const body = await plain.text();
    expect(body.length).toBeGreaterThan(10_000);
    expect(await gzipped.text()).toBe(body);
    expect(await brotli.text()).toBe(body);
  });

  it("/dashboard asks for the page's first data while the app downloads, and the app uses those answers", async () => {
    const user = await signUpViaApi(b.baseUrl, 'Early Bird');
    const count = (page: Page) => {
      const asked: string[] = [];
      page.on('request', (r) => {
        if (r.url().includes('/api/v1/')) asked.push(new URL(r.url()).pathname + new URL(r.url()).search);
      });
      return asked;
    };
    const page = await signedInPage(b, user);
    try {
      const asked = count(page);
      // with the app's code held back, the page's data is asked for all the same
      const gate = await holdAppChunks(page);
      await page.goto(b.url('/dashboard'), { waitUntil: 'commit' });
      await expect.poll(() => asked.slice().sort()).toEqual(['/api/v1/account/me', '/api/v1/agent?page=1&limit=10']);
      expect(gate.held.length).toBeGreaterThan(0);
      gate.release();
      await page.getByRole('cell', { name: 'Health Receptionist' }).first().waitFor();
      await page.getByRole('button', { name: /Early Bird/ }).waitFor();
      // the app took the early answers: no second request for either
      expect(asked.filter((u) => u === '/api/v1/agent?page=1&limit=10')).toHaveLength(1);
      expect(asked.filter((u) => u === '/api/v1/account/me')).toHaveLength(1);

      // another view of the page (a query in the URL): left to the app, asked for once
      asked.length = 0;
      await page.goto(b.url('/dashboard?search=recep'));
      await page.getByRole('cell', { name: 'Health Receptionist' }).first().waitFor();
      expect(asked.filter((u) => u.startsWith('/api/v1/agent?'))).toEqual(['/api/v1/agent?page=1&limit=10&search=recep']);
    } finally {
      // the browser's other pages are signed out (the landing page's tests)
      await page.evaluate(() => localStorage.clear()).catch(() => undefined);
      await page.close();
    }
  });

  it('shows the page without the app, and a click made before the app is up opens the dialog once the app is', async () => {
    const page = await b.newPage();
    const gate = await holdAppChunks(page);
    await page.goto(b.url('/'));
    await page.getByRole('heading', { level: 1, name: /actionable insights/i }).waitFor();
    expect(await appIsUp(page)).toBe(false);

    await page.getByRole('banner').getByRole('button', { name: 'Login / Sign up' }).click();
    await expect.poll(() => gate.held.length).toBeGreaterThan(0);
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await appIsUp(page)).toBe(false);

    gate.release();
    await page.getByRole('dialog').waitFor();
    expect(await page.getByRole('dialog').count()).toBe(1);
    expect(await appIsUp(page)).toBe(true);
    expect(b.pageErrors).toEqual([]);
    await page.close();
  });

  it('keeps the keyboard focus when the app takes over, and Enter then works on the focused button', async () => {
    const page = await b.newPage();
    const gate = await holdAppChunks(page);
    await page.goto(b.url('/'));
    await page.getByRole('heading', { level: 1 }).waitFor();
    // Tab past the brand link and the three section links to the Contact button
    for (let i = 0; i < 5; i++) await page.keyboard.press('Tab');
    const focusedName = () => page.evaluate(() => document.activeElement?.textContent ?? '');
    expect(await focusedName()).toBe('Contact');

    gate.release();
    await expect.poll(() => appIsUp(page)).toBe(true);
    expect(await focusedName()).toBe('Contact');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').getByRole('heading', { name: 'Get in Touch' }).waitFor();
    expect(b.pageErrors).toEqual([]);
    await page.close();
  });

  it('links the Terms of Service and Privacy Policy from the footer, in the prerendered page and in the app', async () => {
    const page = await b.newPage();
    await page.goto(b.url('/'));
    const legal = page.getByRole('contentinfo').getByRole('navigation', { name: 'Legal' });
    // in the prerendered page already: a plain link works without the app
    await legal.getByRole('link', { name: 'Terms of Service' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/terms');
    await page.getByRole('heading', { level: 1, name: 'Terms of Service' }).waitFor();
    await page.getByRole('link', { name: 'Back to Parley' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/');
    await legal.getByRole('link', { name: 'Privacy Policy' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe('/privacy');
    await page.getByRole('heading', { level: 1, name: 'Privacy Policy' }).waitFor();
    expect(b.pageErrors).toEqual([]);
    await page.close();
  });

  it('offline, the page stays static and usable by its links; back online, the next click starts the app', async () => {
    const page = await b.newPage();
    let aborted = 0;
    await page.route(APP_CHUNKS, (route) => {
      aborted += 1;
      return route.abort('internetdisconnected');
    });
    await page.goto(b.url('/'));
    const login = page.getByRole('banner').getByRole('button', { name: 'Login / Sign up' });
    await login.click();
    await expect.poll(() => aborted).toBeGreaterThan(0);
    expect(await page.getByRole('dialog').count()).toBe(0);
    expect(await appIsUp(page)).toBe(false);
    expect(await page.getByRole('link', { name: 'Pricing' }).getAttribute('href')).toBe('#pricing');

    await page.unroute(APP_CHUNKS);
    await login.click();
    await page.getByRole('dialog').waitFor();
    expect(await appIsUp(page)).toBe(true);
    await page.close();
  });
});
