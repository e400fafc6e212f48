import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOnlyLocalRequests, openBrowser, type TestBrowser } from './browser.js';
import { signedInPage, signUpViaApi } from './session.js';

let b: TestBrowser;
let page: Page;

beforeAll(async () => {
  b = await openBrowser();
  page = await b.newPage();
});

afterAll(async () => {
  await b?.close();
});

const pathOf = (p: Page) => new URL(p.url()).pathname;

describe('foundation in Chromium', () => {
  it('the landing page renders its sections', async () => {
    await page.goto(b.url('/'));
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toMatch(/actionable insights/i);

    const topBar = page.getByRole('banner');
    await topBar.getByRole('button', { name: 'Login / Sign up' }).waitFor();
    await topBar.getByRole('button', { name: 'Contact' }).waitFor();
    expect(await topBar.getByRole('link', { name: 'Features' }).getAttribute('href')).toBe('#features');
    expect(await topBar.getByRole('link', { name: 'Pricing' }).getAttribute('href')).toBe('#pricing');

    await page.getByRole('button', { name: 'Get Started' }).first().waitFor();
    await page.getByRole('button', { name: 'Watch Demo' }).waitFor();

    const features = page.locator('#features');
    for (const title of ['Advanced voice processing', 'AI-powered analysis', 'Real-time processing', 'Time efficiency']) {
      await features.getByRole('heading', { name: title }).waitFor();
    }
    await expect.poll(() => page.getByRole('img', { name: 'Rated 5 out of 5' }).count()).toBe(3);
    await page.locator('#pricing').getByRole('heading', { level: 2 }).waitFor();
    expect(b.pageErrors).toEqual([]);
  });

  it('an unknown path shows the 404 page and "Return to Home" goes to /', async () => {
    await page.goto(b.url('/no-such-page'));
    await page.getByRole('heading', { name: 'Oops! Page not found' }).waitFor();
    await page.getByRole('link', { name: 'Return to Home' }).click();
    await expect.poll(() => pathOf(page)).toBe('/');
    await page.getByRole('button', { name: 'Login / Sign up' }).waitFor();
  });

  it('an unknown dashboard path sends a signed-out visitor to /', async () => {
    await page.goto(b.url('/dashboard/nope'));
    await expect.poll(() => pathOf(page)).toBe('/');
  });

  it('signed in, an unknown dashboard path redirects to /dashboard and the sidebar marks the current entry', async () => {
    const user = await signUpViaApi(b.baseUrl);
    const signed = await signedInPage(b, user);
    await signed.goto(b.url('/dashboard/nope'));
    await expect.poll(() => pathOf(signed)).toMatch(/^\/dashboard\/?$/);
    await signed.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();

    await signed.goto(b.url('/dashboard/phone-numbers'));
    const nav = signed.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Phone Numbers' }).waitFor();
    expect(await nav.getByRole('link', { name: 'Phone Numbers' }).getAttribute('aria-current')).toBe('page');
    expect(await signed.locator('[aria-current="page"]').count()).toBe(1);
    await nav.getByRole('link', { name: 'Billing' }).click();
    await expect.poll(() => pathOf(signed)).toBe('/dashboard/billing');
    expect(await nav.getByRole('link', { name: 'Billing' }).getAttribute('aria-current')).toBe('page');
    expect(await nav.getByRole('link', { name: 'Phone Numbers' }).getAttribute('aria-current')).toBeNull();
    await signed.close();
  });

  it('on a narrow screen the sidebar starts folded, folds after a choice, and leaves the wide screen its own', async () => {
    const user = await signUpViaApi(b.baseUrl);
    const phone = await signedInPage(b, user);
    try {
      await phone.setViewportSize({ width: 390, height: 844 });
      await phone.goto(b.url('/dashboard'));
      await phone.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
      const toggle = phone.getByRole('button', { name: 'Toggle sidebar' });
      // the page is not covered: the sidebar is an icon rail whose links keep their names
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      const nav = phone.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Call History' }).waitFor();
      await toggle.click();
      await expect.poll(() => toggle.getAttribute('aria-expanded')).toBe('true');
      await nav.getByRole('link', { name: 'Call History' }).click();
      await expect.poll(() => pathOf(phone)).toBe('/dashboard/call-history');
      await expect.poll(() => toggle.getAttribute('aria-expanded')).toBe('false');
      // the same browser on a wide screen: open, as it was never folded there
      await phone.setViewportSize({ width: 1280, height: 800 });
      await phone.reload();
      await phone.getByRole('heading', { name: 'Call History', level: 1 }).waitFor();
      expect(await toggle.getAttribute('aria-expanded')).toBe('true');
      // folded on the wide screen: remembered there, and the narrow screen still starts folded
      await toggle.click();
      await expect.poll(() => phone.evaluate(() => localStorage.getItem('parley.sidebar.open'))).toBe('false');
      await phone.reload();
      await phone.getByRole('heading', { name: 'Call History', level: 1 }).waitFor();
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    } finally {
      await phone.close();
    }
  });

  it('the real server (not only app.request) puts the security headers on GET and HEAD answers', async () => {
    for (const method of ['GET', 'HEAD']) {
      for (const pathname of ['/', '/dashboard/billing', '/api/v1/health', '/api/v1/nope']) {
        const res = await fetch(b.url(pathname), { method });
        const where = `${method} ${pathname}`;
        expect(res.headers.get('content-security-policy'), where).toContain("frame-ancestors 'none'");
        expect(res.headers.get('x-content-type-options'), where).toBe('nosniff');
        expect(res.headers.get('referrer-policy'), where).toBe('no-referrer');
      }
    }
  });

  it('no request left 127.0.0.1', () => {
    expectOnlyLocalRequests(b.requests);
    expect(b.requests.some((u) => u.includes('/assets/'))).toBe(true);
  });
});
