import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOnlyLocalRequests, openBrowser, type TestBrowser } from './browser.js';
import { type ApiUser, apiCall, createNumberViaApi, signedInPage, signUpViaApi } from './session.js';

/**
 * A batch's dialling rules in Chromium: the detail shows them ('Any time', '2 attempts, 120 s
 * apart'), 'Edit dialling rules' sets a weekday window in a zone with 3 attempts (PATCH /batch-call/:id),
 * the summary changes and the values are still there after a reload; a window that ends before it starts
 * is refused with the contract's message and the input kept, and the server's refusal is shown in the form.
 */
let b: TestBrowser;
let page: Page;
let user: ApiUser;
let batchId = '';
const FROM = '+14155550191';
const NAME = 'Renewal reminders';
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];

interface Rules {
  callingWindow: { days: number[]; start: string; end: string } | null;
  timeZone: string;
  maxAttempts: number;
  retryDelaySeconds: number;
}

beforeAll(async () => {
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Rhea Rules');
  await createNumberViaApi(b.baseUrl, user, FROM);
  const created = await fetch(new URL('/api/v1/batch-call', b.baseUrl), {
    method: 'POST',
    headers: { Authorization: `Bearer ${user.token}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'e2e-rules' },
    body: JSON.stringify({ name: NAME, fromNumber: FROM, sendMode: 'now' }),
  });
  expect(created.status).toBe(201);
  batchId = ((await created.json()) as { batch: { _id: string } }).batch._id;
  page = await signedInPage(b, user);
});

afterAll(async () => {
  await b?.close();
});

const detail = (p: Page) => p.getByRole('dialog', { name: NAME });
const form = (p: Page) => p.getByRole('dialog', { name: 'Edit dialling rules' });
const notification = (p: Page, text: string) => p.getByRole('region', { name: 'Notifications' }).getByText(text, { exact: true });
const rulesNow = async () =>
  (await apiCall<{ batch: Rules }>(b.baseUrl, user, 'GET', `/batch-call/${batchId}`)).body.batch satisfies Rules;

describe('dialling rules in the batch detail', () => {
  it('shows the rules and saves a weekday window in a zone with 3 attempts', async () => {
    await page.goto(b.url(`/dashboard/batch-call?batch=${batchId}`));
    const rules = detail(page).getByRole('definition');
    await detail(page).getByRole('heading', { name: 'Dialling rules' }).waitFor();
    await rules.getByText('Any time', { exact: true }).waitFor();
    await rules.getByText('2 attempts, 120 s apart', { exact: true }).waitFor();

    await detail(page).getByRole('button', { name: 'Edit dialling rules' }).click();
    await form(page).waitFor();
    // no window yet: the day checkboxes wait for the switch
    expect(await form(page).getByRole('checkbox', { name: 'Monday' }).count()).toBe(0);
    await form(page)
      .getByRole('switch', { name: /Only call inside a calling window/ })
      .check();
    for (const day of WEEKDAYS) await form(page).getByRole('checkbox', { name: day }).check();
    expect(await form(page).getByRole('checkbox', { name: 'Saturday' }).isChecked()).toBe(false);
    expect(await form(page).getByRole('checkbox', { name: 'Sunday' }).isChecked()).toBe(false);
    await form(page).getByLabel('From').fill('09:00');
    await form(page).getByLabel('Until').fill('17:00');
    await form(page)
      .getByText('Recipients whose number tells their time zone are called in their own zone', { exact: false })
      .waitFor();
    await form(page).getByRole('combobox', { name: 'Time zone' }).click();
    await page.getByRole('option', { name: 'America/New_York', exact: true }).click();
    await form(page).getByLabel('Attempts').fill('3');
    await form(page).getByRole('button', { name: 'Save' }).click();

    await notification(page, 'Dialling rules saved').waitFor();
    await form(page).waitFor({ state: 'detached' });
    await rules.getByText('Mon–Fri 09:00–17:00 (America/New_York)', { exact: true }).waitFor();
    await rules.getByText('3 attempts, 120 s apart', { exact: true }).waitFor();
    expect(await rulesNow()).toMatchObject({
      callingWindow: { days: [1, 2, 3, 4, 5], start: '09:00', end: '17:00' },
      timeZone: 'America/New_York',
      maxAttempts: 3,
      retryDelaySeconds: 120,
    });

    // persisted: after a reload the summary and the form still say so
    await page.reload();
    await rules.getByText('Mon–Fri 09:00–17:00 (America/New_York)', { exact: true }).waitFor();
    await rules.getByText('3 attempts, 120 s apart', { exact: true }).waitFor();
    await detail(page).getByRole('button', { name: 'Edit dialling rules' }).click();
    for (const day of WEEKDAYS) expect(await form(page).getByRole('checkbox', { name: day }).isChecked()).toBe(true);
    expect(await form(page).getByLabel('From').inputValue()).toBe('09:00');
    expect(await form(page).getByLabel('Until').inputValue()).toBe('17:00');
    expect(await form(page).getByRole('combobox', { name: 'Time zone' }).textContent()).toContain('America/New_York');
    expect(await form(page).getByLabel('Attempts').inputValue()).toBe('3');
    expect(await form(page).getByLabel('Retry delay (seconds)').inputValue()).toBe('120');
    await form(page).getByRole('button', { name: 'Cancel' }).click();
    await form(page).waitFor({ state: 'detached' });
  });

  it("refuses a window that ends before it starts with the contract's message and keeps the input", async () => {
    const before = b.requests.filter((u) => new URL(u).pathname === `/api/v1/batch-call/${batchId}`).length;
    await detail(page).getByRole('button', { name: 'Edit dialling rules' }).click();
    await form(page).getByLabel('From').fill('18:00');
    await form(page).getByLabel('Until').fill('08:00');
    await form(page).getByLabel('Attempts').fill('4');
    await form(page).getByRole('button', { name: 'Save' }).click();
    await form(page).getByText('The calling window must end after it starts', { exact: true }).waitFor();
    expect(await form(page).getByLabel('Until').getAttribute('aria-invalid')).toBe('true');
    expect(await form(page).getByLabel('From').inputValue()).toBe('18:00');
    expect(await form(page).getByLabel('Until').inputValue()).toBe('08:00');
    expect(await form(page).getByLabel('Attempts').inputValue()).toBe('4');
    // nothing was sent: the batch keeps its rules
    expect(b.requests.filter((u) => new URL(u).pathname === `/api/v1/batch-call/${batchId}`).length).toBe(before);
    expect((await rulesNow()).callingWindow).toEqual({ days: [1, 2, 3, 4, 5], start: '09:00', end: '17:00' });
  });

  it("shows the server's refusal in the form and keeps the input", async () => {
    // the batch is canceled elsewhere while the form is open
    const canceled = await apiCall(b.baseUrl, user, 'POST', `/batch-call/${batchId}/cancel`);
    expect(canceled.status).toBe(200);
    await form(page).getByLabel('Until').fill('20:00');
    await form(page).getByRole('button', { name: 'Save' }).click();
    await form(page).getByRole('alert').filter({ hasText: 'A canceled batch call can no longer be changed' }).waitFor();
    expect(await form(page).getByLabel('From').inputValue()).toBe('18:00');
    expect(await form(page).getByLabel('Until').inputValue()).toBe('20:00');
    expect(await form(page).getByLabel('Attempts').inputValue()).toBe('4');
    expect((await rulesNow()).maxAttempts).toBe(3);

    expect(b.pageErrors).toEqual([]);
    expectOnlyLocalRequests(b.requests);
  });
});
