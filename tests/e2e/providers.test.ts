import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { maskValue } from '../../src/api/contract/provider.js';
import { expectOnlyLocalRequests, openBrowser, type TestBrowser } from './browser.js';
import { type ApiUser, apiCall, signedInPage, signUpViaApi } from './session.js';

/** Planted credentials: they go to the server in request bodies and must never come back in a response. */
// Connect tries keys with the provider (the run's fakes: TWILIO_API_URL, ANTHROPIC_BASE_URL), so Twilio's and
// Anthropic's are the fakes' own (set in beforeAll); NEW_TOKEN is one the fake Twilio refuses
let SID = '';
let TOKEN = '';
const NEW_TOKEN = 'tw-auth-rotated-0a1b2c3d4e5f60718293a4b5';
let ANTHROPIC_KEY = '';
const OPENAI_KEY = 'sk-proj-e2e-9a8b7c6d5e4f3a2b1c0d';
const plain = () => [SID, TOKEN, NEW_TOKEN, ANTHROPIC_KEY, OPENAI_KEY];

let b: TestBrowser;
let page: Page;
let user: ApiUser;
/** every API response body the page received */
const bodies: { url: string; text: string }[] = [];
/** every API request the page made, with its body */
const sent: { method: string; path: string; body: string }[] = [];

beforeAll(async () => {
  ({ accountSid: SID, authToken: TOKEN } = inject('fakeKeys').twilio);
  ANTHROPIC_KEY = inject('fakeKeys').anthropic;
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Pat Providers');
  page = await signedInPage(b, user);
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/api/')) sent.push({ method: r.method(), path: url.pathname, body: r.postData() ?? '' });
  });
  page.on('response', async (r) => {
    if (!new URL(r.url()).pathname.startsWith('/api/')) return;
    try {
      bodies.push({ url: r.url(), text: await r.text() });
    } catch {
      // a response without a body (redirect, aborted)
    }
  });
});

afterAll(async () => {
  await b?.close();
});

const notification = (p: Page, text: string) => p.getByRole('region', { name: 'Notifications' }).getByText(text, { exact: true });
const card = (p: Page, label: string) => p.getByRole('article', { name: label });
const grid = (p: Page) => p.getByRole('list', { name: 'Providers' });
const searchBox = (p: Page) => p.getByRole('searchbox', { name: 'Search providers...' });
const searchParams = (p: Page) => Object.fromEntries(new URL(p.url()).searchParams);
const cardNames = (p: Page) => grid(p).getByRole('heading').allTextContents();
/** Waits for a value (vitest's default poll gives up after 1 s, too short on a busy machine). */
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 10_000 });
const posts = () => sent.filter((r) => r.method === 'POST' && r.path === '/api/v1/provider/values');

describe('providers screen in Chromium', () => {
  it('shows the heading, the text, the search box and the first 9 providers with page 1 of 2', async () => {
    await page.goto(b.url('/dashboard/providers'));
    await page.getByRole('heading', { name: 'Providers', level: 1 }).waitFor();
    await page.getByText('Add keys securely to connect your own Providers within your application.').waitFor();
    expect(await searchBox(page).getAttribute('placeholder')).toBe('Search providers...');
    await poll(() => grid(page).getByRole('listitem').count()).toBe(9);
    expect(await cardNames(page)).toEqual([
      'Deepgram',
      'ElevenLabs',
      'Cartesia',
      'OpenAI',
      'Anthropic',
      'Cal.com',
      'Calendly',
      'Twilio',
      'Plivo',
    ]);
    await page.getByText('Page 1 of 2').waitFor();
    expect(await page.getByRole('button', { name: 'Previous' }).isDisabled()).toBe(true);
    // the spec sends the status call with an empty name
    expect(sent.some((r) => r.method === 'GET' && r.path === '/api/v1/provider')).toBe(true);
    // brand marks from simple-icons where it has them, a lettered mark otherwise
    expect(await card(page, 'Deepgram').locator('[data-mark="brand"] svg path').count()).toBe(1);
    expect(await card(page, 'Anthropic').locator('[data-mark="brand"] svg path').count()).toBe(1);
    expect(await card(page, 'Twilio').locator('[data-mark="lettered"]').textContent()).toBe('T');
  });

  it('connecting Twilio with an empty field shows "Missing information" and makes no call', async () => {
    await card(page, 'Twilio').getByRole('button', { name: 'Connect' }).click();
    const dialog = page.getByRole('dialog', { name: 'Connect Twilio' });
    await dialog.getByLabel('Account SID', { exact: true }).fill(SID);
    expect(await dialog.getByLabel('Auth Token', { exact: true }).getAttribute('type')).toBe('password');
    expect(await dialog.getByLabel('Account SID', { exact: true }).getAttribute('required')).not.toBeNull();
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await notification(page, 'Missing information').waitFor();
    await notification(page, 'Please fill in the following fields: Auth Token').waitFor();
    expect(posts()).toEqual([]);
    // the dialog and what was typed stay
    expect(await dialog.getByLabel('Account SID', { exact: true }).inputValue()).toBe(SID);
  });

  it('connects with both values: the card turns "Connected" with Edit and Disconnect', async () => {
    const dialog = page.getByRole('dialog', { name: 'Connect Twilio' });
    await dialog.getByLabel('Auth Token', { exact: true }).fill(TOKEN);
    const toggle = dialog.getByRole('button', { name: 'Show Auth Token' });
    await toggle.click();
    expect(await dialog.getByLabel('Auth Token', { exact: true }).getAttribute('type')).toBe('text');
    expect(await toggle.getAttribute('aria-pressed')).toBe('true');
    await toggle.click();
    expect(await dialog.getByLabel('Auth Token', { exact: true }).getAttribute('type')).toBe('password');
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await notification(page, 'Twilio has been successfully connected.').waitFor();
    await dialog.waitFor({ state: 'detached' });
    expect(posts()).toHaveLength(1);
    const twilio = card(page, 'Twilio');
    await twilio.getByRole('button', { name: 'Edit' }).waitFor();
    await twilio.getByRole('button', { name: 'Disconnect' }).waitFor();
    expect(await twilio.textContent()).toContain('Connected');
    expect(await twilio.getByRole('button', { name: 'Connect Twilio', exact: true }).count()).toBe(0);
    // still connected after a reload (the status comes from the server)
    await page.reload();
    await card(page, 'Twilio').getByRole('button', { name: 'Edit' }).waitFor();
  });

  it('Edit shows masks, never the stored values; a token Twilio refuses is not saved; an untouched mask keeps its secret', async () => {
    await card(page, 'Twilio').getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: 'Update Twilio' });
    const sid = dialog.getByLabel('Account SID', { exact: true });
    const token = dialog.getByLabel('Auth Token', { exact: true });
    await poll(() => sid.inputValue()).toBe(maskValue(SID));
    expect(await token.inputValue()).toBe(maskValue(TOKEN));
    // a token the (fake) Twilio refuses: its reason in the toast and under the field, the dialog stays
    await token.fill(NEW_TOKEN);
    await dialog.getByRole('button', { name: 'Update' }).click();
    await notification(
      page,
      'Twilio refused the key: Twilio refused the Account SID and Auth Token (20003 Authenticate).',
    ).waitFor();
    expect(await token.getAttribute('aria-invalid')).toBe('true');
    // the token Twilio takes, with the SID's mask left as it is
    await token.fill(TOKEN);
    await dialog.getByRole('button', { name: 'Update' }).click();
    await notification(page, 'Twilio has been updated.').waitFor();
    await dialog.waitFor({ state: 'detached' });

    const fields = await apiCall<{ keys: { name: string; value: string }[] }>(
      b.baseUrl,
      user,
      'GET',
      '/provider/fields?name=twilio',
    );
    expect(fields.body.keys.map((k) => k.value)).toEqual([maskValue(SID), maskValue(TOKEN)]);
  });

  it('disconnects after a confirmation: the card offers "Connect" again', async () => {
    await card(page, 'Twilio').getByRole('button', { name: 'Disconnect' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Disconnect Twilio?' });
    await confirm.waitFor();
    // the card keeps showing 'Connected' behind its confirmation
    expect(await card(page, 'Twilio').textContent()).toContain('Connected');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    await card(page, 'Twilio').getByRole('button', { name: 'Disconnect' }).click();
    await confirm.getByRole('button', { name: 'Disconnect' }).click();
    await notification(page, 'Twilio has been disconnected.').waitFor();
    await card(page, 'Twilio').getByRole('button', { name: 'Connect' }).waitFor();
    expect(await card(page, 'Twilio').getByRole('button', { name: 'Edit' }).count()).toBe(0);
    const status = await apiCall<{ data: { name: string; connected: boolean }[] }>(
      b.baseUrl,
      user,
      'GET',
      '/provider?name=twilio',
    );
    expect(status.body.data).toEqual([{ name: 'twilio', connected: false }]);
  });

  it('connects Anthropic with its API key', async () => {
    await card(page, 'Anthropic').getByRole('button', { name: 'Connect' }).click();
    const dialog = page.getByRole('dialog', { name: 'Connect Anthropic' });
    await dialog.getByLabel('API Key', { exact: true }).fill(ANTHROPIC_KEY);
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await notification(page, 'Anthropic has been successfully connected.').waitFor();
    await card(page, 'Anthropic').getByRole('button', { name: 'Edit' }).waitFor();
  });

  it("every card's buttons name their provider for screen readers, and still show the spec's words", async () => {
    // accessible names (what a screen reader's list of buttons reads), from the grid's accessibility tree
    const names = [...(await grid(page).ariaSnapshot()).matchAll(/- button "([^"]+)"/g)].map((m) => m[1]);
    expect(names).toEqual(
      ['Deepgram', 'ElevenLabs', 'Cartesia', 'OpenAI']
        .map((p) => `Connect ${p}`)
        .concat(
          ['Disconnect Anthropic', 'Edit Anthropic'],
          ['Cal.com', 'Calendly', 'Twilio', 'Plivo'].map((p) => `Connect ${p}`),
        ),
    );
    const anthropic = card(page, 'Anthropic');
    /** The text a sighted user sees on a button: its text nodes that are not visually hidden. */
    const visibleText = (name: string) =>
      anthropic.getByRole('button', { name, exact: true }).evaluate((el) => {
        const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
        let text = '';
        for (let n = walk.nextNode(); n; n = walk.nextNode())
          if ((n.parentElement?.getBoundingClientRect().width ?? 0) > 1) text += n.textContent;
        return text.trim();
      });
    expect(await visibleText('Edit Anthropic')).toBe('Edit');
    expect(await visibleText('Disconnect Anthropic')).toBe('Disconnect');
    expect(await card(page, 'Twilio').getByRole('button', { name: 'Connect Twilio', exact: true }).count()).toBe(1);
  });

  it('the cards of the providers that make an agent talk say what they do in calls; tools and carriers do not', async () => {
    await card(page, 'Deepgram').getByText('Used for calls: speech recognition', { exact: true }).waitFor();
    await card(page, 'ElevenLabs').getByText('Used for calls: voice', { exact: true }).waitFor();
    await card(page, 'OpenAI').getByText('Used for calls: LLM / speech-to-speech', { exact: true }).waitFor();
    await card(page, 'Anthropic').getByText('Used for calls: LLM', { exact: true }).waitFor();
    for (const label of ['Cal.com', 'Calendly', 'Twilio', 'Plivo'])
      expect(
        await card(page, label)
          .getByText(/^Used for calls/)
          .count(),
      ).toBe(0);
  });

  it('OpenAI: the Base URL is optional; a private one is refused with the reason shown, a public one is saved', async () => {
    await card(page, 'OpenAI').getByRole('button', { name: 'Connect' }).click();
    const dialog = page.getByRole('dialog', { name: 'Connect OpenAI' });
    const key = dialog.getByLabel('API Key', { exact: true });
    const baseUrl = dialog.getByLabel('Base URL', { exact: true });
    expect(await key.getAttribute('required')).not.toBeNull();
    expect(await baseUrl.getAttribute('required')).toBeNull();
    await dialog.getByText('Optional. An OpenAI-compatible server of your own').waitFor();
    // only the required field is missing information
    await baseUrl.fill('http://169.254.169.254/latest');
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await notification(page, 'Please fill in the following fields: API Key').waitFor();
    const before = posts().length;
    await key.fill(OPENAI_KEY);
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await notification(
      page,
      'Base URL: 169.254.169.254 is a link-local address. Only public internet addresses are allowed here.',
    ).waitFor();
    expect(posts().length).toBe(before + 1);
    // nothing connected, the dialog keeps what was typed
    expect(await baseUrl.inputValue()).toBe('http://169.254.169.254/latest');
    expect(await card(page, 'OpenAI').getByRole('button', { name: 'Edit' }).count()).toBe(0);

    await baseUrl.fill('https://8.8.8.8/v1');
    await dialog.getByRole('button', { name: 'Connect' }).click();
    await notification(page, 'OpenAI has been successfully connected.').waitFor();
    // this machine reaches no provider: the key is saved unchecked, and the same toast says so
    await notification(page, 'Could not reach OpenAI to check the key; saved anyway.').waitFor();
    await dialog.waitFor({ state: 'detached' });
    const fields = await apiCall<{ keys: { name: string; value: string }[] }>(
      b.baseUrl,
      user,
      'GET',
      '/provider/fields?name=openai',
    );
    // stored without the /v1 the adapters add themselves, shown masked like every stored value
    expect(fields.body.keys.map((k) => [k.name, k.value])).toEqual([
      ['API Key', 'sk-…1c0d'],
      ['Base URL', '••••.8.8'],
    ]);
  });

  it('no response the page received carried a plain credential', () => {
    // the credentials did travel to the server...
    const written = sent.filter((r) => r.method === 'POST' || r.method === 'PUT').map((r) => r.body);
    expect(written.join('\n')).toContain(TOKEN);
    expect(written.join('\n')).toContain(NEW_TOKEN);
    // ...and never came back
    expect(bodies.length).toBeGreaterThan(10);
    expect(bodies.filter((r) => plain().some((secret) => r.text.includes(secret))).map((r) => r.url)).toEqual([]);
  });

  it('search narrows the grid after the debounce and goes back to page 1; no match shows the empty state', async () => {
    await page.getByRole('button', { name: 'Next' }).click();
    await poll(() => searchParams(page).page).toBe('2');
    await poll(() => cardNames(page)).toEqual(['Perplexity', 'Smallest', 'WhatsApp']);
    expect(await page.getByRole('button', { name: 'Next' }).isDisabled()).toBe(true);

    await searchBox(page).fill('cal');
    await poll(() => searchParams(page)).toEqual({ search: 'cal' });
    await poll(() => cardNames(page)).toEqual(['Cal.com', 'Calendly']);
    await page.getByText('Page 1 of 1').waitFor();

    await searchBox(page).fill('no-such-provider');
    await page.getByRole('heading', { name: 'No providers found' }).waitFor();
    await page.getByRole('button', { name: 'Clear search' }).click();
    await poll(() => grid(page).getByRole('listitem').count()).toBe(9);
    expect(await searchBox(page).inputValue()).toBe('');
    expect(searchParams(page)).toEqual({});
  });

  it('the per-page selector offers 9, 12 and 15 and returns to page 1', async () => {
    await page.getByRole('button', { name: 'Next' }).click();
    await poll(() => searchParams(page).page).toBe('2');
    const perPage = page.getByRole('combobox', { name: 'Per page' });
    await perPage.click();
    // the listbox mounts once its code is there (the select is a stand-in until first used)
    await page.getByRole('listbox').waitFor();
    expect(await page.getByRole('option').allTextContents()).toEqual(['9', '12', '15']);
    await page.getByRole('option', { name: '12' }).click();
    await poll(() => searchParams(page)).toEqual({ limit: '12' });
    await poll(() => grid(page).getByRole('listitem').count()).toBe(12);
    await page.getByText('Page 1 of 1').waitFor();
    // the URL keeps the choice across a reload
    await page.reload();
    await poll(() => grid(page).getByRole('listitem').count()).toBe(12);
    expect(await page.getByRole('combobox', { name: 'Per page' }).textContent()).toContain('12');
  });

  it('a page that fails to load shows the toast and the inline message', async () => {
    await page.route('**/api/v1/user/providers*', (route) => route.fulfill({ status: 500, body: '{}' }));
    await page.goto(b.url('/dashboard/providers?limit=15'));
    await notification(page, 'Failed to load providers. Please try again.').waitFor();
    await page.getByText('Failed to load providers. Please refresh the page and try again.').waitFor();
    await page.unroute('**/api/v1/user/providers*');
    await page.getByRole('button', { name: 'Retry' }).click();
    await poll(() => grid(page).getByRole('listitem').count()).toBe(12);
  });

  it('a failed status call toasts "Failed to load connection status" and the grid still shows', async () => {
    await page.route('**/api/v1/provider?name=', (route) => route.fulfill({ status: 500, body: '{}' }));
    await page.goto(b.url('/dashboard/providers'));
    await notification(page, 'Failed to load connection status').waitFor();
    await poll(() => grid(page).getByRole('listitem').count()).toBe(9);
    await page.unroute('**/api/v1/provider?name=');
  });

  it('a hand-edited URL falls back: a bad size becomes 9, a page past the end becomes the last page', async () => {
    await page.goto(b.url('/dashboard/providers?page=99&limit=7'));
    await poll(() => searchParams(page)).toEqual({ page: '2' });
    await poll(() => cardNames(page)).toEqual(['Perplexity', 'Smallest', 'WhatsApp']);
    await page.goto(b.url('/dashboard/providers?page=abc&search=%7B%7D'));
    await poll(() => grid(page).getByRole('listitem').count()).toBe(9);
  });

  it('no request left 127.0.0.1 and no page error', () => {
    expectOnlyLocalRequests(b.requests);
    expect(b.pageErrors).toEqual([]);
  });
});
