import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { expectOnlyLocalRequests, openBrowser, type TestBrowser } from './browser.js';
import { type ApiUser, apiCall, createNumberViaApi, signedInPage, signUpViaApi } from './session.js';

/**
 * Batch calls in Chromium: the empty state, the full-screen form, refused files, a CSV of 1,000
 * recipients with 3 bad rows read in the worker (counts and reasons), save as draft, the list, then
 * schedule (refused until the number's carrier is connected) and cancel from the detail view.
 */
let b: TestBrowser;
let page: Page;
let user: ApiUser;
const FROM = '+14155550171';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-batch-e2e-'));

/** 1,000 data rows: 997 good ones, one invalid, one without a phone, one duplicate. */
function recipientsCsv(): string {
  const rows = ['phone_number,first_name'];
  for (let i = 0; i < 997; i++) rows.push(`+1415${String(6000000 + i)},Patient ${i}`);
  rows.splice(501, 0, '12345,Short');
  rows.splice(702, 0, ',Nobody');
  rows.push('(415) 600-0000,Again');
  return `${rows.join('\n')}\n`;
}

beforeAll(async () => {
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Bo Batch');
  await createNumberViaApi(b.baseUrl, user, FROM);
  page = await signedInPage(b, user);
});

afterAll(async () => {
  await b?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

const notification = (p: Page, text: string) => p.getByRole('region', { name: 'Notifications' }).getByText(text, { exact: true });
const form = (p: Page) => p.getByRole('dialog', { name: 'Create a batch call' });
const uploads = () => b.requests.filter((u) => /\/batch-call\/[^/]+\/recipients$/.test(new URL(u).pathname));

describe('batch calls in Chromium', () => {
  it('starts empty and opens the full-screen form', async () => {
    await page.goto(b.url('/dashboard/batch-call'));
    await page.getByRole('heading', { name: 'Batch Call', level: 1 }).waitFor();
    await page.getByRole('heading', { name: "You don't have any batch call" }).waitFor();
    await page.getByRole('button', { name: 'Create a batch call' }).click();
    const dialog = form(page);
    await dialog.waitFor();
    await dialog.getByText('Please add recipients first').waitFor();
    await dialog.getByText('Please upload recipients first').waitFor();
    await dialog.getByRole('link', { name: 'Download the template' }).waitFor();
    // the only assigned number is chosen already
    await expect.poll(() => dialog.getByRole('combobox', { name: 'From number' }).textContent()).toContain(FROM);
    await dialog.getByRole('radio', { name: 'Schedule' }).check();
    await dialog.getByText('Your time zone: UTC').waitFor();
    await dialog.getByRole('radio', { name: 'Send Now' }).check();
    await dialog.getByRole('button', { name: 'Send' }).click();
    await dialog.getByText('Batch call name is required').waitFor();
  });

  it('refuses a file that is not CSV or over 50 MB, uploading nothing', async () => {
    const dialog = form(page);
    const input = dialog.getByLabel('Recipients (CSV)');
    await input.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') });
    await dialog.getByText('Please upload a CSV file (text/csv)').waitFor();
    const big = path.join(tmp, 'big.csv');
    fs.writeFileSync(big, '');
    fs.truncateSync(big, 50 * 1024 * 1024 + 1);
    await input.setInputFiles(big);
    await dialog.getByText('The CSV file is larger than 50 MB').waitFor();
    expect(uploads()).toEqual([]);
  });

  it('reads 1,000 recipients in the worker and shows the counts and the reasons', async () => {
    const dialog = form(page);
    await dialog.getByLabel('Recipients (CSV)').setInputFiles({
      name: 'recipients.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(recipientsCsv()),
    });
    const pane = dialog.getByRole('region', { name: 'Recipients' });
    await pane.getByText('1,000 rows').waitFor();
    await pane.getByText('997 valid').waitFor();
    await pane.getByText('3 invalid').waitFor();
    const reasons = pane.getByRole('list', { name: 'Why rows will not be called' });
    for (const reason of ['Invalid phone number: 1', 'Missing phone number: 1', 'Duplicate phone number: 1']) {
      await reasons.getByText(reason).waitFor();
    }
    await pane.getByText('Dynamic variables for the agent: {{first_name}}').waitFor();
    await dialog.getByText('About 3 h 20 min for 997 recipients, 10 calls at a time.').waitFor();
    await dialog.getByText('Estimated cost $4.99 at $0.005 per dial.').waitFor();

    const rows = pane.getByRole('table', { name: 'Recipient rows' });
    expect(await rows.getAttribute('aria-rowcount')).toBe('1001');
    // virtualised: far fewer rows in the DOM than in the file; scrolling reaches the last one
    expect(await rows.getByRole('row').count()).toBeLessThan(100);
    await rows.evaluate((table) => {
      const scroller = table.parentElement as HTMLElement;
      scroller.scrollTop = scroller.scrollHeight;
    });
    await rows.getByRole('row', { name: /^1001 .*Duplicate phone number/ }).waitFor();

    await pane.getByRole('checkbox', { name: 'Only rows with problems' }).check();
    await expect.poll(() => rows.getAttribute('aria-rowcount')).toBe('4');
    await rows
      .getByRole('row', { name: /Invalid phone number/ })
      .getByText('12345')
      .waitFor();
    await rows.getByRole('row', { name: /Missing phone number/ }).waitFor();
    await rows
      .getByRole('row', { name: /Duplicate phone number/ })
      .getByText('Again')
      .waitFor();
    expect(uploads()).toEqual([]);
  });

  it('saves as draft; the batch appears in the list', async () => {
    const dialog = form(page);
    await dialog.getByRole('textbox', { name: 'Batch Call Name' }).fill('Flu shot reminders');
    await dialog.getByRole('button', { name: 'Save as draft' }).click();
    await notification(page, 'Batch call saved').waitFor();
    await dialog.waitFor({ state: 'detached' });
    expect(uploads()).toHaveLength(1);
    const list = page.getByRole('table', { name: 'Batch calls' });
    for (const column of ['Name', 'Status', 'Recipients', 'Sent', 'Created']) {
      await list.getByRole('columnheader', { name: column }).waitFor();
    }
    const row = list.getByRole('row', { name: /Flu shot reminders/ });
    await row.getByText('Draft').waitFor();
    await row.getByText('997').waitFor();
  });

  it('schedules the draft from its detail view, then cancels it', async () => {
    await page.getByRole('link', { name: 'Flu shot reminders' }).click();
    const detail = page.getByRole('dialog', { name: 'Flu shot reminders' });
    await detail.getByText('997 to call (2 invalid and 1 duplicate rows left out)').waitFor();
    await detail
      .getByRole('table', { name: 'Stored recipients' })
      .getByRole('row', { name: /first_name: Patient 0/ })
      .waitFor();

    await detail.getByRole('button', { name: 'Schedule' }).click();
    const when = detail.getByRole('textbox', { name: 'Date and time' });
    await when.fill('2001-01-01T09:00');
    await detail.getByRole('button', { name: 'Save schedule' }).click();
    await detail.getByText('Scheduled time must be in the future').waitFor();
    const next = new Date().getUTCFullYear() + 1;
    await when.fill(`${next}-03-01T09:30`);
    // Twilio (the number's carrier) is not connected: refused with the reason, the time kept, nothing scheduled
    await detail.getByRole('button', { name: 'Save schedule' }).click();
    await detail.getByText('Connect Twilio on the Providers page to call from this number.').waitFor();
    expect(await when.inputValue()).toBe(`${next}-03-01T09:30`);
    const draft = await apiCall<{ data: { batches: { status: string }[] } }>(b.baseUrl, user, 'GET', '/batch-call');
    expect(draft.body.data.batches).toMatchObject([{ status: 'draft' }]);
    const connected = await apiCall(b.baseUrl, user, 'POST', '/provider/values', {
      name: 'twilio',
      // the fake Twilio's account: Connect tries the key with Twilio (TWILIO_API_URL) first
      keys: [
        { name: 'Account SID', value: inject('fakeKeys').twilio.accountSid },
        { name: 'Auth Token', value: inject('fakeKeys').twilio.authToken },
      ],
    });
    expect(connected.status).toBe(201);
    await detail.getByRole('button', { name: 'Save schedule' }).click();
    await notification(page, 'Batch call scheduled.').waitFor();
    await detail.getByText(`Scheduled for ${next}-03-01 09:30 (UTC)`).waitFor();
    await page
      .getByRole('table', { name: 'Batch calls' })
      .getByRole('row', { name: /Flu shot reminders/ })
      .getByText('Scheduled')
      .waitFor();

    await detail.getByRole('button', { name: 'Cancel batch call' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Cancel this batch call?' });
    await confirm.getByRole('button', { name: 'Cancel batch call' }).click();
    await notification(page, 'Batch call canceled.').waitFor();
    await page
      .getByRole('table', { name: 'Batch calls' })
      .getByRole('row', { name: /Flu shot reminders/ })
      .getByText('Canceled')
      .waitFor();
    await detail.getByRole('button', { name: 'Cancel batch call' }).waitFor({ state: 'detached' });

    const stored = await apiCall<{ data: { batches: { status: string; recipients: number; scheduledAt: string }[] } }>(
      b.baseUrl,
      user,
      'GET',
      '/batch-call',
    );
    expect(stored.body.data.batches).toMatchObject([
      { status: 'canceled', recipients: 997, scheduledAt: `${next}-03-01T09:30:00.000Z` },
    ]);
    expect(b.pageErrors).toEqual([]);
    expectOnlyLocalRequests(b.requests);
  });
});
