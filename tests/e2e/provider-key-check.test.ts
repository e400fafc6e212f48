import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openBrowser, type TestBrowser } from './browser.js';
import { type ApiUser, signedInPage, signUpViaApi } from './session.js';

/**
 * The key check in Chromium, against the real server and the fake Deepgram (tests/fakes/deepgram.ts, reached
 * through DEEPGRAM_API_URL; provider-fakes.ts): Connect tries the key with Deepgram before saving. A wrong
 * key shows Deepgram's reason under the API Key field with the spec's error toast, and nothing is saved; an
 * empty field says so under it as well as in 'Missing information'; the button reads 'Checking…' while the
 * server asks; the right key connects.
 */
let b: TestBrowser;
let page: Page;
let user: ApiUser;

beforeAll(async () => {
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Kim Keys');
  page = await signedInPage(b, user);
});

afterAll(async () => {
  await b?.close();
});

const notification = (p: Page, text: string) => p.getByRole('region', { name: 'Notifications' }).getByText(text, { exact: true });
const card = (p: Page, label: string) => p.getByRole('article', { name: label });

/** The error text tied to `input` (its aria-describedby), '' when none. */
async function errorUnder(input: Locator): Promise<string> {
  if ((await input.getAttribute('aria-invalid')) !== 'true') return '';
  const ids = (await input.getAttribute('aria-describedby'))?.split(' ').filter((id) => id.endsWith('-error')) ?? [];
  const texts = await Promise.all(ids.map((id) => page.locator(`[id="${id}"]`).textContent()));
  return texts.join(' ').trim();
}

describe('the key check on the Providers page', () => {
  it('a wrong Deepgram key: the reason under the field, the toast, nothing saved; the right key connects', async () => {
    await page.goto(b.url('/dashboard/providers'));
    await card(page, 'Deepgram').getByRole('button', { name: 'Connect' }).click();
    const dialog = page.getByRole('dialog', { name: 'Connect Deepgram' });
    const key = dialog.getByLabel('API Key', { exact: true });
    await key.waitFor();

    // empty: the spec's toast, and the error under the field
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await notification(page, 'Please fill in the following fields: API Key').waitFor();
    await expect.poll(() => errorUnder(key), { timeout: 10_000 }).toBe('A value is required');

    // a wrong key, slowed down so the checking state shows
    await page.route('**/api/v1/provider/values', async (route) => {
      await new Promise((r) => setTimeout(r, 800));
      await route.continue();
    });
    await key.fill('dg-wrong-key-e2e');
    expect(await errorUnder(key)).toBe('');
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await dialog.getByRole('button', { name: 'Checking…' }).waitFor();
    await notification(page, 'Deepgram refused the key: Invalid credentials.').waitFor();
    await expect.poll(() => errorUnder(key), { timeout: 10_000 }).toBe('Invalid credentials.');
    // the dialog and the input stay; the card is not connected
    expect(await key.inputValue()).toBe('dg-wrong-key-e2e');
    expect(await dialog.getByRole('button', { name: 'Connect' }).isEnabled()).toBe(true);
    await page.unroute('**/api/v1/provider/values');

    // the fake's key: connected
    await key.fill(inject('fakeKeys').deepgram);
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await notification(page, 'Deepgram has been successfully connected.').waitFor();
    await dialog.waitFor({ state: 'detached' });
    await card(page, 'Deepgram').getByRole('button', { name: 'Edit' }).waitFor();
  });
});
