import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { outboxMails } from '../outbox.js';
import { openBrowser, type TestBrowser } from './browser.js';

/**
 * End to end, in order, on one signed-in-or-out browser: sign up with a photo, log out, a wrong
 * password, log in, reload, a silent refresh, the forgot/reset flow through the outbox, the route guard,
 * and two tabs sharing one session.
 */
let b: TestBrowser;
let page: Page;
const email = `ava.${Date.now()}@example.com`;
const PASSWORD = 'violet harbour 42';
const NEW_PASSWORD = 'amber lighthouse 17';
// 1x1 PNG
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

beforeAll(async () => {
  b = await openBrowser();
  page = await b.newPage();
});

afterAll(async () => {
  await b?.close();
});

const pathOf = (p: Page) => new URL(p.url()).pathname;
const authDialog = (p: Page) => p.getByRole('dialog', { name: 'Welcome to Parley' });
const notification = (p: Page, title: string) =>
  p.getByRole('region', { name: 'Notifications' }).getByText(title, { exact: true });
const userMenu = (p: Page) => p.getByRole('button', { name: 'Account menu: Ava Lee' });
const storedTokens = (p: Page) =>
  p.evaluate(() => (JSON.parse(localStorage.getItem('auth-store') ?? '{}') as { state?: Record<string, string> }).state ?? {});

async function logIn(p: Page, password: string) {
  const dialog = authDialog(p);
  await dialog.getByLabel('Email').fill(email);
  await dialog.getByLabel('Password').fill(password);
  await dialog.getByRole('button', { name: 'Log in' }).click();
}

/** The newest reset link in DATA_DIR/outbox. */
function resetLinkFromOutbox(): string | undefined {
  const links = outboxMails(inject('dataDir')).flatMap(
    (m) => m.match(/https?:\/\/[^\s"<>]+\/reset-password#token=[\w-]+/g) ?? [],
  );
  return links.at(-1);
}

describe('accounts and the session in Chromium', () => {
  it('visiting the dashboard signed out goes to / with the Unauthenticated toast', async () => {
    await page.goto(b.url('/dashboard/billing'));
    await expect.poll(() => pathOf(page)).toBe('/');
    await notification(page, 'Unauthenticated').waitFor();
    await notification(page, 'Please login to continue').waitFor();
  });

  it('validates the login form with the spec messages', async () => {
    await page.goto(b.url('/'));
    await page.getByRole('button', { name: 'Login / Sign up' }).click();
    const dialog = authDialog(page);
    await dialog.getByRole('button', { name: 'Log in' }).click();
    await dialog.getByText('Email is required').waitFor();
    await dialog.getByText('Password is required').waitFor();
    await dialog.getByLabel('Email').fill('not-an-email');
    await dialog.getByLabel('Password').fill('123');
    await dialog.getByRole('button', { name: 'Log in' }).click();
    await dialog.getByText('Invalid email', { exact: true }).waitFor();
    await dialog.getByText('Password must be at least 6 characters').waitFor();
  });

  it('signs up with a photo and lands on /dashboard with the user menu', async () => {
    const dialog = authDialog(page);
    await dialog.getByRole('tab', { name: 'Sign Up' }).click();
    await dialog.getByLabel('Name').fill('Ava Lee');
    await dialog.getByLabel('Email').fill(email);
    await dialog.getByLabel('Password').fill(PASSWORD);
    const picker = dialog.getByLabel('Profile photo (optional)');
    expect(await picker.getAttribute('accept')).toBe('image/*');
    await picker.setInputFiles({ name: 'me.gif', mimeType: 'image/gif', buffer: Buffer.from('GIF89a') });
    await dialog.getByText('Only JPG, PNG, or WEBP files are allowed').waitFor();
    await picker.setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: PNG });
    await dialog.getByRole('button', { name: 'Create account' }).click();
    await expect.poll(() => pathOf(page)).toMatch(/^\/dashboard/);
    await notification(page, 'Account created').waitFor();
    await notification(page, 'Welcome to Parley!').waitFor();
    await userMenu(page).waitFor();
    expect(await userMenu(page).locator('img').getAttribute('src')).toMatch(/^\/api\/v1\/files\//);
    expect(await page.evaluate(() => [localStorage.getItem('accountId'), localStorage.getItem('companyId')])).toEqual([
      expect.stringMatching(/^[0-9a-f]{24}$/),
      expect.stringMatching(/^[0-9a-f]{24}$/),
    ]);
  });

  it('logs out through the server and goes to /', async () => {
    await page.getByRole('button', { name: 'Logout' }).click();
    await expect.poll(() => pathOf(page)).toBe('/');
    expect(await storedTokens(page)).toEqual({ access_token: '', refresh_token: '' });
    expect(await page.evaluate(() => localStorage.getItem('accountId'))).toBeNull();
  });

  it("a wrong password shows 'Login failed'; the right one goes to /dashboard", async () => {
    await page.getByRole('button', { name: 'Login / Sign up' }).click();
    await logIn(page, 'not my password');
    await notification(page, 'Login failed').waitFor();
    expect(pathOf(page)).toBe('/');
    await logIn(page, PASSWORD);
    await expect.poll(() => pathOf(page)).toBe('/dashboard');
    await notification(page, 'Login successful').waitFor();
    await notification(page, 'Welcome back to Parley!').waitFor();
  });

  it('a reload keeps the session, and / sends a signed-in visitor to /dashboard', async () => {
    await page.reload();
    await userMenu(page).waitFor();
    expect(pathOf(page)).toBe('/dashboard');
    await page.goto(b.url('/'));
    await expect.poll(() => pathOf(page)).toBe('/dashboard');
  });

  it('an expired access token is refreshed silently and the call retried', async () => {
    const before = await storedTokens(page);
    await page.evaluate(() => {
      const store = JSON.parse(localStorage.getItem('auth-store') ?? '{}');
      store.state.access_token = 'expired.access.token';
      localStorage.setItem('auth-store', JSON.stringify(store));
    });
    const refreshes: number[] = [];
    page.on('response', (r) => {
      if (r.url().endsWith('/api/v1/auth/refresh')) refreshes.push(r.status());
    });
    await page.reload();
    await userMenu(page).waitFor();
    expect(refreshes).toEqual([200]);
    const after = await storedTokens(page);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(after.access_token).not.toBe('expired.access.token');
  });

  it('two tabs share the session: one refresh for both, and a logout in one signs the other out', async () => {
    const other = await b.newPage();
    await other.goto(b.url('/dashboard/providers'));
    await userMenu(other).waitFor();
    // the second tab leaves while the token is replaced: a document still open would see the change (a
    // storage event) and could start a refresh that its own reload then cuts off mid-flight (the server's
    // grace covers that, with a second refresh); both tabs then load at once with the expired token
    await other.goto('about:blank');
    await page.evaluate(() => {
      const store = JSON.parse(localStorage.getItem('auth-store') ?? '{}');
      store.state.access_token = 'expired.access.token';
      localStorage.setItem('auth-store', JSON.stringify(store));
    });
    const refreshes: string[] = [];
    b.context.on('response', (r) => {
      if (r.url().endsWith('/api/v1/auth/refresh')) refreshes.push(String(r.status()));
    });
    await Promise.all([page.reload(), other.goto(b.url('/dashboard/providers'))]);
    await Promise.all([userMenu(page).waitFor(), userMenu(other).waitFor()]);
    expect(refreshes).toEqual(['200']);
    await page.getByRole('button', { name: 'Logout' }).click();
    await expect.poll(() => pathOf(page)).toBe('/');
    await expect.poll(() => pathOf(other)).toBe('/');
    await other.close();
  });

  it('forgot password -> emailed link -> new password -> log in with it', async () => {
    await page.goto(b.url('/'));
    await page.getByRole('button', { name: 'Login / Sign up' }).click();
    await authDialog(page).getByRole('link', { name: 'Forgot password' }).click();
    const forgot = page.getByRole('dialog', { name: 'Forgot password' });
    await forgot.getByRole('button', { name: 'Send reset link' }).click();
    await forgot.getByText('Email is required').waitFor();
    await forgot.getByLabel('Email').fill('ava@');
    await forgot.getByRole('button', { name: 'Send reset link' }).click();
    await forgot.getByText('Invalid email format').waitFor();
    await forgot.getByLabel('Email').fill(email);
    await forgot.getByRole('button', { name: 'Send reset link' }).click();
    await forgot.getByText('Check your inbox').waitFor();
    await notification(page, 'Reset link sent').waitFor();
    await forgot.getByRole('button', { name: 'Got it' }).click();
    await forgot.waitFor({ state: 'hidden' });

    await expect.poll(resetLinkFromOutbox).toMatch(/#token=/);
    const link = resetLinkFromOutbox() as string;
    await page.goto(link);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Confirm new password').fill(`${NEW_PASSWORD}!`);
    await page.getByRole('button', { name: 'Reset password' }).click();
    await page.getByText('Passwords do not match').waitFor();
    await page.getByLabel('Confirm new password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Reset password' }).click();

    await expect.poll(() => pathOf(page)).toBe('/');
    await authDialog(page).waitFor();
    await logIn(page, PASSWORD);
    await notification(page, 'Login failed').waitFor();
    await logIn(page, NEW_PASSWORD);
    await expect.poll(() => pathOf(page)).toBe('/dashboard');
  });

  it('the contact dialog sends the message and closes', async () => {
    await page.getByRole('button', { name: 'Logout' }).click();
    await expect.poll(() => pathOf(page)).toBe('/');
    await page.getByRole('button', { name: 'Contact' }).click();
    const contact = page.getByRole('dialog', { name: 'Get in Touch' });
    await contact.getByPlaceholder('Your Name').fill('Ava Lee');
    await contact.getByPlaceholder('Your Email').fill('ava@example.com');
    const message = contact.getByPlaceholder('Your Message');
    expect(await message.getAttribute('rows')).toBe('4');
    await message.fill('Do you support Spanish-speaking patients?');
    await contact.getByRole('button', { name: 'Send Message' }).click();
    await contact.waitFor({ state: 'hidden' });
    await notification(page, 'Message sent').waitFor();
    expect(b.pageErrors).toEqual([]);
  });
});
