import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOnlyLocalRequests, openBrowser, type TestBrowser } from './browser.js';
import { insertCalls } from './seed-db.js';
import { type ApiUser, apiCall, createNumberViaApi, signedInPage, signUpViaApi } from './session.js';

/**
 * Billing in Chromium: this month's statement computed from the company's calls and number,
 * rows that expand, the printable invoice, usage with its chart and table, limits and the billing
 * contact round-tripping through the server.
 */
let b: TestBrowser;
let page: Page;
let user: ApiUser;
const now = new Date();
const monthTitle = now.toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
const month = now.toISOString().slice(0, 7);
const lastMonthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1, 1));
const lastMonthTitle = lastMonthStart.toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });

beforeAll(async () => {
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Bea Billing');
  const agents = await apiCall<{ data: { agents: { _id: string; agent_name: string }[] } }>(b.baseUrl, user, 'GET', '/agent');
  const agent = agents.body.data.agents[0];
  await createNumberViaApi(b.baseUrl, user, '+14155550161');
  const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1, 1));
  await insertCalls(user.companyId, '+14155550161', [
    { time: first, duration: 120, cost: 0.5, agentId: agent?._id },
    { time: first, duration: 60, cost: 0.25 },
    // last month: a closed statement
    { time: lastMonthStart, duration: 60, cost: 1 },
  ]);
  page = await signedInPage(b, user);
});

afterAll(async () => {
  await b?.close();
});

const notification = (p: Page, text: string) => p.getByRole('region', { name: 'Notifications' }).getByText(text, { exact: true });
const searchOf = (p: Page) => new URL(p.url()).searchParams;

describe('billing in Chromium', () => {
  it('shows this month’s statement from the server; its row expands to the items and collapses', async () => {
    await page.goto(b.url('/dashboard/billing'));
    await page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor();
    expect(await page.getByRole('tab', { name: 'Billing History' }).getAttribute('aria-selected')).toBe('true');
    const history = page.getByRole('table', { name: 'Billing history' });
    for (const column of ['Title', 'Amount', 'Details', 'Status', 'Invoice']) {
      await history.getByRole('columnheader', { name: column }).waitFor();
    }
    const row = history.getByRole('row').filter({ hasText: monthTitle });
    await row.getByText('$2.75').waitFor();
    await row.getByText('2 calls · 3 min · 1 number').waitFor();
    await row.getByText('Open').waitFor();
    await page.getByText('Earlier statements are available in the legacy dashboard.').waitFor();
    // a past month is 'Closed', never 'Paid': Parley takes no payments
    const past = history.getByRole('row').filter({ hasText: lastMonthTitle });
    await past.getByText('$1.00').waitFor();
    await past.getByText('Closed', { exact: true }).waitFor();
    expect(await history.getByText('Paid').count()).toBe(0);

    const toggle = history.getByRole('button', { name: monthTitle });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    const items: [string, string][] = [
      ['Phone Number', '$2.00'],
      ['Voice Engine', '$0.45'],
      ['LLM', '$0.30'],
    ];
    for (const [name, amount] of items) {
      await history.getByRole('row').filter({ hasText: name }).getByText(amount, { exact: true }).waitFor();
    }
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await history.getByRole('row').filter({ hasText: 'Voice Engine' }).waitFor({ state: 'detached' });
  });

  it('opens the printable invoice of the month in a new tab', async () => {
    const [invoice] = await Promise.all([
      b.context.waitForEvent('page'),
      page.getByRole('link', { name: `Invoice for ${monthTitle}` }).click(),
    ]);
    await invoice.waitForLoadState();
    expect(new URL(invoice.url()).pathname).toBe(`/dashboard/billing/invoice/${month}`);
    await invoice.getByRole('heading', { name: 'Invoice', level: 1 }).waitFor();
    const items = invoice.getByRole('table', { name: `Items of ${monthTitle}` });
    await items.getByRole('row', { name: /Voice Engine/ }).waitFor();
    await items.getByRole('row', { name: /Total/ }).getByText('$2.75').waitFor();
    await invoice.getByRole('article').getByText(user.email).waitFor();
    await invoice.getByRole('button', { name: 'Print' }).waitFor();
    await invoice.close();
  });

  it('shows usage per day (chart with a table alternative), totals and the breakdown by agent', async () => {
    await page.getByRole('tab', { name: 'Usage' }).click();
    await expect.poll(() => searchOf(page).get('tab')).toBe('usage');
    await page.getByRole('combobox', { name: 'Month' }).waitFor();
    const chart = page.getByRole('img', { name: `Minutes and cost per day, ${monthTitle}` });
    await chart.waitFor();
    await page.getByText('$0.75', { exact: true }).first().waitFor();
    // this month is open: its bars (each titled with its day) stop at today, not $0 days to the month's end
    const bars = await chart.locator('rect > title').allTextContents();
    const today = now.toISOString().slice(0, 10);
    expect(bars.map((t) => t.slice(0, 10)).at(-1)).toBe(today);
    expect(bars).toHaveLength(now.getUTCDate());
    // and the cost line has a point per drawn day
    expect((await chart.locator('path').getAttribute('d'))?.match(/[ML]/g)).toHaveLength(now.getUTCDate());
    await page.getByText('Show the numbers as a table').click();
    const perDay = page.getByRole('table', { name: `Usage per day, ${monthTitle}` });
    await perDay
      .getByRole('row', { name: new RegExp(`${month}-01`) })
      .getByText('3 min')
      .waitFor();
    const byAgent = page.getByRole('table', { name: 'Usage by agent' });
    await byAgent
      .getByRole('row', { name: /\(no agent\)/ })
      .getByText('$0.25')
      .waitFor();
    // the tab is in the URL: a reload comes back to it
    await page.reload();
    expect(await page.getByRole('tab', { name: 'Usage' }).getAttribute('aria-selected')).toBe('true');
  });

  it('validates, stores and reloads the limits', async () => {
    await page.getByRole('tab', { name: 'Limits' }).click();
    await expect.poll(() => searchOf(page).get('tab')).toBe('limits');
    const concurrency = page.getByRole('textbox', { name: 'Concurrency limit' });
    const spend = page.getByRole('textbox', { name: 'Monthly spend limit (USD)' });
    await expect.poll(() => concurrency.inputValue()).toBe('10');
    await page.getByText('Spent this month so far: $0.75.').waitFor();
    const countries = page.getByRole('textbox', { name: 'Countries outbound calls may go to' });
    expect(await countries.inputValue()).toBe('');
    await concurrency.fill('0');
    await spend.fill('12.345');
    await countries.fill('us, zz');
    await page.getByRole('button', { name: 'Save limits' }).click();
    await page.getByText('Concurrency limit must be a whole number from 1 to 100').waitFor();
    await page.getByText('Monthly spend limit must be an amount in dollars, like 250 or 99.50').waitFor();
    await page.getByText('ZZ is not a country code Parley can call').waitFor();
    await concurrency.fill('25');
    await spend.fill('250');
    await countries.fill('us, gb');
    await page.getByRole('button', { name: 'Save limits' }).click();
    await notification(page, 'Limits saved').waitFor();
    const stored = await apiCall<{ limits: unknown }>(b.baseUrl, user, 'GET', '/billing/limits');
    expect(stored.body.limits).toEqual({ concurrencyLimit: 25, monthlySpendLimit: 250, allowedCountries: ['GB', 'US'] });
    await page.reload();
    await expect.poll(() => page.getByRole('textbox', { name: 'Concurrency limit' }).inputValue()).toBe('25');
    expect(await page.getByRole('textbox', { name: 'Monthly spend limit (USD)' }).inputValue()).toBe('250.00');
    expect(await page.getByRole('textbox', { name: 'Countries outbound calls may go to' }).inputValue()).toBe('GB, US');
  });

  it('says how costs are paid behind “Change payment methods”, without the billing contact form', async () => {
    await page.getByRole('button', { name: 'Change payment methods' }).click();
    const payments = page.getByRole('dialog', { name: 'Payment methods' });
    await payments.getByText('Card payments are not available yet. Your billing contact is used on invoices.').waitFor();
    await payments.getByText(/billed to you by each provider/).waitFor();
    expect(await payments.getByRole('link', { name: 'Open Providers' }).getAttribute('href')).toBe('/dashboard/providers');
    expect(await payments.getByRole('textbox').count()).toBe(0);
    await payments.getByRole('button', { name: 'Done' }).click();
    await payments.waitFor({ state: 'detached' });
  });

  it('keeps the billing contact from the “Manage billing info” dialog', async () => {
    await page.getByRole('button', { name: 'Manage billing info' }).click();
    const dialog = page.getByRole('dialog', { name: 'Billing information' });
    await expect.poll(() => dialog.getByRole('textbox', { name: 'Email' }).inputValue()).toBe(user.email);
    // how costs are paid is the other button's dialog
    expect(await dialog.getByText('Card payments are not available yet.', { exact: false }).count()).toBe(0);
    await dialog.getByRole('textbox', { name: 'Name' }).fill('Sunrise Care');
    await dialog.getByRole('textbox', { name: 'Email' }).fill('not-an-email');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('Invalid email').waitFor();
    await dialog.getByRole('textbox', { name: 'Email' }).fill('billing@sunrise.example');
    await dialog.getByRole('textbox', { name: 'Address' }).fill('1 Main St\nSpringfield');
    await dialog.getByRole('textbox', { name: 'Tax ID' }).fill('US-123');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await notification(page, 'Billing information saved').waitFor();
    await dialog.waitFor({ state: 'detached' });
    const stored = await apiCall<{ contact: unknown }>(b.baseUrl, user, 'GET', '/billing/contact');
    expect(stored.body.contact).toEqual({
      name: 'Sunrise Care',
      email: 'billing@sunrise.example',
      address: '1 Main St\nSpringfield',
      taxId: 'US-123',
    });
    await page.getByRole('button', { name: 'Manage billing info' }).click();
    await expect
      .poll(() => page.getByRole('dialog', { name: 'Billing information' }).getByRole('textbox', { name: 'Tax ID' }).inputValue())
      .toBe('US-123');
    await page.keyboard.press('Escape');
    expect(b.pageErrors).toEqual([]);
    expectOnlyLocalRequests(b.requests);
  });
});
