import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { AGENT_EDITOR_FORM_DEFAULTS, editorFormToSavePayload } from '../../src/api/contract/agent/editor-form.js';
import { type FreeNumber, type PhoneNumber, prettyPhoneNumber } from '../../src/api/contract/phone.js';
import { runCli } from '../cli-runner.js';
import { expectOnlyLocalRequests, holdPageCode, openBrowser, type TestBrowser } from './browser.js';
import { type ApiUser, apiCall, createNumberViaApi, signedInPage, signUpViaApi } from './session.js';

/**
 * The Phone Numbers screen end to end on one signed-in page: request an available number,
 * 'Requested' survives a reload, an operator grants it with the admin command, it shows under
 * Assigned Numbers, an agent is assigned inbound and then outbound (the inbound one cleared, checked
 * through the API), the edit dialog refuses a too-short number with 'Invalid phone number' and saves a
 * nickname, and the number is deleted (back to the pool). Then the Available tab's error and empty states.
 */
let b: TestBrowser;
let page: Page;
let user: ApiUser;
let ava: string;
let bea: string;
/** the pool number this test requests (E.164) and how the screen shows it */
let phone: string;
let shown: string;

const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });
const notification = (p: Page, text: string) => p.getByRole('region', { name: 'Notifications' }).getByText(text, { exact: true });
const table = (p: Page, name: 'Assigned Numbers' | 'Available Numbers') => p.getByRole('table', { name });
const params = (p: Page) => Object.fromEntries(new URL(p.url()).searchParams);

async function createAgent(name: string): Promise<string> {
  const res = await apiCall<{ data: { agent: { _id: string } } }>(
    b.baseUrl,
    user,
    'POST',
    '/agent',
    editorFormToSavePayload({ ...AGENT_EDITOR_FORM_DEFAULTS, agentName: name, voice: 'Rachel', voiceId: 'voice-01' }),
  );
  expect(res.status).toBe(201);
  return res.body.data.agent._id;
}

async function myNumber(): Promise<PhoneNumber | undefined> {
  const res = await apiCall<{ data: { numbers: PhoneNumber[] } }>(b.baseUrl, user, 'GET', '/phone/assigned?limit=100');
  return res.body.data.numbers.find((n) => n.phone === phone);
}

async function openRowMenu(item: 'Assign Agent' | 'Edit' | 'Delete') {
  await table(page, 'Assigned Numbers')
    .getByRole('button', { name: `Actions for ${shown}` })
    .click();
  await page.getByRole('menuitem', { name: item }).click();
}

beforeAll(async () => {
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Nora Numbers');
  ava = await createAgent('Ava Reception');
  bea = await createAgent('Bea Reminders');
  // a number from the middle of the pool (another test file grants the last one)
  const free = await apiCall<{ data: { numbers: FreeNumber[] } }>(b.baseUrl, user, 'GET', '/phone/free?limit=10');
  phone = free.body.data.numbers[4]!.phone;
  shown = prettyPhoneNumber(phone);
  page = await signedInPage(b, user);
});

afterAll(async () => {
  await b?.close();
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state !== 'fail' || !page) return;
  const file = path.join(os.tmpdir(), `phone-numbers-e2e-${ctx.task.name.replace(/\W+/g, '-').slice(0, 60)}.png`);
  await page.screenshot({ path: file, fullPage: true }).catch(() => {});
  console.error(`screenshot of the failed step: ${file}`);
});

describe('the Phone Numbers screen in Chromium', () => {
  it('opens on Assigned Numbers, empty for a new company', async () => {
    await page.goto(b.url('/dashboard/phone-numbers'));
    await page.getByRole('heading', { name: 'Phone Numbers', level: 1 }).waitFor();
    expect(await page.getByRole('tab', { name: 'Assigned Numbers' }).getAttribute('aria-selected')).toBe('true');
    await page.getByRole('heading', { name: 'No phone numbers yet' }).waitFor();
    expect(params(page)).toEqual({});
    // a hand-edited URL falls back instead of breaking the screen
    await page.goto(b.url('/dashboard/phone-numbers?tab=bogus&page=-2'));
    await page.getByRole('heading', { name: 'No phone numbers yet' }).waitFor();
    expect(await page.getByRole('tab', { name: 'Assigned Numbers' }).getAttribute('aria-selected')).toBe('true');
  });

  it("asks for the first page of the tab on screen while the page's code loads (its route loader)", async () => {
    const p = await b.newPage();
    const release = await holdPageCode(p, 'src/routes/dashboard/phone-numbers.tsx');
    const before = b.requests.length;
    const requestsTo = (pathname: string) => b.requests.slice(before).filter((u) => new URL(u).pathname === pathname);
    await p.goto(b.url('/dashboard/phone-numbers?tab=available'), { waitUntil: 'commit' });
    await poll(() => requestsTo('/api/v1/phone/free').length).toBe(1);
    // the page's code is still held back: the request came from the loader, for the tab in the URL only
    expect(await p.getByRole('heading', { name: 'Phone Numbers', level: 1 }).count()).toBe(0);
    expect(requestsTo('/api/v1/phone/assigned')).toEqual([]);
    release();
    await table(p, 'Available Numbers').getByRole('button', { name: 'Request' }).first().waitFor();
    expect(requestsTo('/api/v1/phone/free')).toHaveLength(1);
    await p.close();
  });

  it("requests an available number: 'Request Sent', and the row reads 'Requested' after a reload", async () => {
    await page.getByRole('tab', { name: 'Available Numbers' }).click();
    await poll(() => params(page)).toEqual({ tab: 'available' });
    const available = table(page, 'Available Numbers');
    for (const name of ['Phone Number', 'Provider']) await available.getByRole('columnheader', { name }).waitFor();
    // the search matches the digits whatever the formatting
    await page.getByRole('searchbox', { name: 'Search available numbers' }).fill(shown);
    await poll(() => params(page)).toEqual({ tab: 'available', search: shown });
    await poll(() => available.getByRole('row').count()).toBe(2);
    const row = available.getByRole('row').filter({ hasText: shown });
    await row.getByRole('button', { name: `Request ${shown}` }).click();
    await notification(page, 'Request Sent').waitFor();
    await notification(page, `Request for phone number ${phone} has been sent.`).waitFor();
    await row.getByText('Requested', { exact: true }).waitFor();

    await page.reload();
    await table(page, 'Available Numbers')
      .getByRole('row')
      .filter({ hasText: shown })
      .getByText('Requested', { exact: true })
      .waitFor();
    expect(await page.getByRole('tab', { name: 'Available Numbers' }).getAttribute('aria-selected')).toBe('true');
    expect(await page.getByRole('button', { name: `Request ${shown}` }).count()).toBe(0);
  });

  it('the admin command grants it and it shows under Assigned Numbers', { timeout: 60_000 }, async () => {
    const admin = await runCli('admin', ['grant-number-requests', '--company', user.email], inject('dataDir'));
    expect(admin.code, admin.stderr).toBe(0);
    expect(admin.stdout).toContain(`Granted ${phone} to ${user.email}`);

    await page.getByRole('tab', { name: 'Assigned Numbers' }).click();
    await poll(() => params(page)).toEqual({});
    // Back returns to the Available tab as it was, Forward to Assigned
    await page.goBack();
    await poll(() => params(page)).toEqual({ tab: 'available', search: shown });
    expect(await page.getByRole('tab', { name: 'Available Numbers' }).getAttribute('aria-selected')).toBe('true');
    await page.goForward();
    await poll(() => params(page)).toEqual({});
    const row = table(page, 'Assigned Numbers').getByRole('row').filter({ hasText: shown });
    await row.getByText('No agent', { exact: true }).waitFor();
    await row
      .getByText('Twilio', { exact: true })
      .or(row.getByText('Plivo', { exact: true }))
      .waitFor();
  });

  it("assigns an agent inbound ('Please select an agent' first), then outbound, which clears inbound", async () => {
    await openRowMenu('Assign Agent');
    const dialog = page.getByRole('dialog', { name: 'Assign Agent to Phone Number' });
    await dialog.getByRole('radio', { name: 'Ava Reception' }).waitFor();
    // a number without agents starts inbound
    expect(await dialog.getByRole('radio', { name: 'Inbound' }).isChecked()).toBe(true);
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('Please select an agent', { exact: true }).waitFor();
    await dialog.getByRole('radio', { name: 'Ava Reception' }).check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await notification(page, 'Phone number agents updated').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    const row = table(page, 'Assigned Numbers').getByRole('row').filter({ hasText: shown });
    await row.getByText('Inbound: Ava Reception', { exact: true }).waitFor();
    expect(await myNumber()).toMatchObject({ inbound_agent_id: ava, outbound_agent_id: null });

    await openRowMenu('Assign Agent');
    await dialog.getByRole('radio', { name: 'Ava Reception' }).waitFor();
    // the dialog starts from the number: inbound, with its agent chosen
    expect(await dialog.getByRole('radio', { name: 'Ava Reception' }).isChecked()).toBe(true);
    await dialog.getByRole('searchbox', { name: 'Search agents' }).fill('bea');
    await poll(() => dialog.getByRole('radio', { name: 'Bea Reminders' }).count()).toBe(1);
    await dialog.getByRole('radio', { name: 'Bea Reminders' }).check();
    await dialog.getByRole('radio', { name: 'Outbound' }).check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await row.getByText('Outbound: Bea Reminders', { exact: true }).waitFor();
    expect(await myNumber()).toMatchObject({ inbound_agent_id: null, outbound_agent_id: bea });

    // opening again starts outbound, with that agent
    await openRowMenu('Assign Agent');
    await dialog.getByRole('radio', { name: 'Bea Reminders' }).waitFor();
    expect(await dialog.getByRole('radio', { name: 'Outbound' }).isChecked()).toBe(true);
    expect(await dialog.getByRole('radio', { name: 'Bea Reminders' }).isChecked()).toBe(true);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
  });

  it("the edit dialog refuses a too-short number with 'Invalid phone number', then saves a nickname", async () => {
    await openRowMenu('Edit');
    const dialog = page.getByRole('dialog', { name: 'Update Phone Number' });
    const number = dialog.getByRole('textbox', { name: 'Phone number', exact: true });
    await number.waitFor();
    expect(await number.inputValue()).toBe(phone);
    // accountId and companyId are shown read-only
    const account = dialog.getByRole('textbox', { name: 'Account ID' });
    expect(await account.inputValue()).toBe(user.accountId);
    expect(await account.getAttribute('readonly')).not.toBeNull();
    expect(await dialog.getByRole('textbox', { name: 'Company ID' }).inputValue()).toBe(user.companyId);

    await number.fill('415555');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.getByText('Invalid phone number', { exact: true }).waitFor();
    expect(await number.getAttribute('aria-invalid')).toBe('true');
    expect((await myNumber())?.phone_number).toBe(phone);

    await number.fill(phone);
    await dialog.getByRole('textbox', { name: 'Nickname' }).fill('Front desk');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await notification(page, 'Phone number updated').waitFor();
    await dialog.waitFor({ state: 'hidden' });
    const row = table(page, 'Assigned Numbers').getByRole('row').filter({ hasText: shown });
    await row.getByText('Front desk · Outbound: Bea Reminders', { exact: true }).waitFor();
    expect(await myNumber()).toMatchObject({ nickname: 'Front desk', outbound_agent_id: bea });
  });

  it("deletes it after 'Confirm Deletion': the number returns to the pool", async () => {
    await openRowMenu('Delete');
    const confirm = page.getByRole('alertdialog', { name: 'Confirm Deletion' });
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await notification(page, 'Phone number deleted').waitFor();
    await page.getByRole('heading', { name: 'No phone numbers yet' }).waitFor();
    expect(await myNumber()).toBeUndefined();
    const free = await apiCall<{ data: { numbers: FreeNumber[] } }>(
      b.baseUrl,
      user,
      'GET',
      `/phone/free?search=${phone.slice(2)}`,
    );
    expect(free.body.data.numbers).toMatchObject([{ phone, requested: false }]);
  });

  it("a failed load of the available numbers says so with 'Retry'; an empty pool says whom to contact", async () => {
    await page.route('**/api/v1/phone/free*', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: '{"success":false,"msg":"Database is down"}' }),
    );
    await page.goto(b.url('/dashboard/phone-numbers?tab=available'));
    const alert = table(page, 'Available Numbers').getByRole('alert');
    await alert.getByText('Error loading available phone numbers. Please try again.', { exact: true }).waitFor();
    await page.unroute('**/api/v1/phone/free*');
    await alert.getByRole('button', { name: 'Retry' }).click();
    await table(page, 'Available Numbers')
      .getByRole('button', { name: `Request ${shown}` })
      .waitFor();

    await page.route('**/api/v1/phone/free*', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: '{"success":true,"data":{"numbers":[],"total":0}}' }),
    );
    await page.reload();
    await page.getByRole('heading', { name: 'No available phone numbers found' }).waitFor();
    await page.getByText('Contact support to add more phone numbers to your account.', { exact: true }).waitFor();
    await page.unroute('**/api/v1/phone/free*');
    expectOnlyLocalRequests(b.requests);
    expect(b.pageErrors).toEqual([]);
  });
  it('after a change on a later page the list is fetched again from its first page', async () => {
    const other = await signUpViaApi(b.baseUrl, 'Paula Pages');
    for (let i = 0; i < 7; i++) await createNumberViaApi(b.baseUrl, other, `+1628555010${i}`);
    const p = await signedInPage(b, other);
    try {
      await p.goto(b.url('/dashboard/phone-numbers?page=1&size=5&sort=phone:asc'));
      const list = table(p, 'Assigned Numbers');
      const last = prettyPhoneNumber('+16285550106');
      await list.getByRole('button', { name: `Actions for ${last}` }).click();
      await p.getByRole('menuitem', { name: 'Edit' }).click();
      const dialog = p.getByRole('dialog', { name: 'Update Phone Number' });
      await dialog.getByRole('textbox', { name: 'Nickname' }).fill('Overflow line');
      await dialog.getByRole('button', { name: 'Save changes' }).click();
      await notification(p, 'Phone number updated').waitFor();
      await poll(() => params(p).page ?? '0').toBe('0');
      await list.getByText(prettyPhoneNumber('+16285550100'), { exact: true }).waitFor();
      expect(await list.getByText(last, { exact: true }).count()).toBe(0);
    } finally {
      await p.close();
    }
  });
});
