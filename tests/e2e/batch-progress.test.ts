import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { expectOnlyLocalRequests, openBrowser, type TestBrowser } from './browser.js';
import { type E2eRecipientOutcome, seedBatchOutcomes } from './seed-db.js';
import { type ApiUser, apiCall, createNumberViaApi, signedInPage, signUpViaApi } from './session.js';

/**
 * A batch that dials, in Chromium: the detail view's counts per state, its progress bar, the
 * calls linking to their detail view, a live refresh while sending, Pause / Resume, and 'Export recipients'.
 * The recipients' outcomes are written as the dispatcher would have left them (tests/e2e/seed-db.ts).
 */
let b: TestBrowser;
let page: Page;
let user: ApiUser;
let batchId = '';
const FROM = '+14155550185';
const NAME = 'Dental recalls';
const PHONES = Array.from({ length: 8 }, (_, i) => `+1415555030${i}`);
const CALL = (i: number) => `call_e2e_batch_${i}`;

const ended = (duration: number, status: 'ended' | 'error', disconnectionReason: string) => ({
  duration,
  status,
  disconnectionReason,
});
/** Row by row: completed x2, busy, no answer, failed, voicemail, calling, queued. */
const OUTCOMES: E2eRecipientOutcome[] = [
  { state: 'completed', attempts: 1, callId: CALL(0), ended: ended(65, 'ended', 'user_hangup') },
  { state: 'completed', attempts: 1, callId: CALL(1), ended: ended(42, 'ended', 'agent_hangup') },
  { state: 'busy', attempts: 2, callId: CALL(2), ended: ended(0, 'ended', 'dial_busy') },
  { state: 'no_answer', attempts: 2, callId: CALL(3), ended: ended(0, 'ended', 'dial_no_answer') },
  { state: 'failed', attempts: 1, callId: CALL(4), ended: ended(0, 'error', 'dial_failed') },
  { state: 'voicemail', attempts: 1, callId: CALL(5), ended: ended(12, 'ended', 'voicemail_reached') },
  { state: 'calling', attempts: 1, callId: CALL(6) },
  { state: 'queued', attempts: 0 },
];

beforeAll(async () => {
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Pia Progress');
  await createNumberViaApi(b.baseUrl, user, FROM);
  const created = await fetch(new URL('/api/v1/batch-call', b.baseUrl), {
    method: 'POST',
    headers: { Authorization: `Bearer ${user.token}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'e2e-progress' },
    body: JSON.stringify({ name: NAME, fromNumber: FROM, sendMode: 'now' }),
  });
  expect(created.status).toBe(201);
  batchId = ((await created.json()) as { batch: { _id: string } }).batch._id;
  const csv = ['phone_number,first_name', ...PHONES.map((p, i) => `${p},${i === 1 ? '=cmd()' : `Patient ${i}`}`)].join('\n');
  const uploaded = await fetch(new URL(`/api/v1/batch-call/${batchId}/recipients`, b.baseUrl), {
    method: 'POST',
    headers: { Authorization: `Bearer ${user.token}`, 'Content-Type': 'text/csv' },
    body: csv,
  });
  expect(uploaded.status).toBe(200);
  await seedBatchOutcomes(user.companyId, batchId, FROM, 'sending', OUTCOMES);
  page = await signedInPage(b, user);
});

afterAll(async () => {
  await b?.close();
});

const notification = (p: Page, text: string) => p.getByRole('region', { name: 'Notifications' }).getByText(text, { exact: true });
const detail = (p: Page) => p.getByRole('dialog', { name: NAME });
const counts = (p: Page) => detail(p).getByRole('definition');
/** The number shown under a state's label. */
const countOf = (p: Page, label: string) =>
  detail(p)
    .getByRole('term')
    .filter({ hasText: new RegExp(`^${label}$`) })
    .locator('xpath=following-sibling::dd[1]')
    .textContent();

describe('a dialling batch in Chromium', () => {
  it('shows counts per state, the progress bar and the calls as rows linking to their detail', async () => {
    await page.goto(b.url(`/dashboard/batch-call?batch=${batchId}`));
    await detail(page).waitFor();
    await counts(page).first().waitFor();
    const expected: Record<string, string> = {
      Queued: '1',
      Calling: '1',
      Completed: '2',
      Busy: '1',
      'No answer': '1',
      Failed: '1',
      Voicemail: '1',
    };
    for (const [label, n] of Object.entries(expected)) expect(await countOf(page, label)).toBe(n);
    const bar = detail(page).getByRole('progressbar', { name: 'Recipients finished' });
    expect(await bar.getAttribute('aria-valuenow')).toBe('6');
    expect(await bar.getAttribute('aria-valuemax')).toBe('8');
    await detail(page).getByText('6 of 8 recipients finished (75%)').waitFor();

    const table = detail(page).getByRole('table', { name: 'Calls of this batch' });
    // the queued recipient has not been dialled: seven calls
    expect(await table.getByRole('row').count()).toBe(8);
    await table.getByRole('row', { name: /\+14155550302 Busy 2 ended/ }).waitFor();
    await table.getByRole('row', { name: /\+14155550303 No answer 2/ }).waitFor();
    await table.getByRole('row', { name: /\+14155550306 Calling 1/ }).waitFor();
    const link = table.getByRole('link', { name: PHONES[0] as string });
    expect(await link.getAttribute('href')).toBe(`/dashboard/call-history/${CALL(0)}`);
    await detail(page).getByRole('button', { name: 'Pause' }).waitFor();
    await detail(page).getByRole('button', { name: 'Resume' }).waitFor({ state: 'detached' });
  });

  it('refreshes by itself while the batch is sending', async () => {
    const next: E2eRecipientOutcome[] = OUTCOMES.map(({ ended: _, ...o }) => o);
    next[6] = { state: 'completed', attempts: 1, callId: 'call_e2e_batch_6b', ended: ended(30, 'ended', 'user_hangup') };
    await seedBatchOutcomes(user.companyId, batchId, FROM, 'sending', next);
    await expect.poll(() => countOf(page, 'Completed'), { timeout: 10_000 }).toBe('3');
    expect(await countOf(page, 'Calling')).toBe('0');
    const bar = detail(page).getByRole('progressbar', { name: 'Recipients finished' });
    expect(await bar.getAttribute('aria-valuenow')).toBe('7');
  });

  it('pauses and resumes', async () => {
    await detail(page).getByRole('button', { name: 'Pause' }).click();
    await notification(page, 'Batch call paused. Calls in progress finish; no new calls are placed.').waitFor();
    await detail(page).getByRole('button', { name: 'Resume' }).waitFor();
    await detail(page).getByRole('button', { name: 'Pause' }).waitFor({ state: 'detached' });
    const paused = await apiCall<{ batch: { status: string } }>(b.baseUrl, user, 'GET', `/batch-call/${batchId}`);
    expect(paused.body.batch.status).toBe('paused');
    // not sending: the detail stops asking again
    const reads = () => b.requests.filter((u) => new URL(u).pathname === `/api/v1/batch-call/${batchId}`).length;
    const before = reads();
    expect(before).toBeGreaterThan(1);
    await page.waitForTimeout(3500);
    expect(reads()).toBe(before);

    await detail(page).getByRole('button', { name: 'Resume' }).click();
    await notification(page, 'Batch call resumed.').waitFor();
    await detail(page).getByRole('button', { name: 'Pause' }).waitFor();
    const resumed = await apiCall<{ batch: { status: string } }>(b.baseUrl, user, 'GET', `/batch-call/${batchId}`);
    expect(resumed.body.batch.status).toBe('sending');
    await detail(page).getByRole('button', { name: 'Cancel batch call' }).waitFor();
  });

  it('exports every recipient with its outcome as CSV', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      detail(page).getByRole('button', { name: 'Export recipients' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`batch-call-${batchId}-recipients.csv`);
    const lines = fs
      .readFileSync(await download.path(), 'utf8')
      .trimEnd()
      .split('\r\n');
    expect(lines[0]).toBe(
      'Row,Phone Number,first_name,State,Attempts,Call ID,Call Status,Duration,Disconnection Reason,Failure Reason',
    );
    expect(lines).toHaveLength(9);
    expect(lines[1]).toBe(`2,'+14155550300,Patient 0,Completed,1,${CALL(0)},ended,65,user_hangup,`);
    // a formula in the upload comes back neutralised
    expect(lines[2]).toBe(`3,'+14155550301,'=cmd(),Completed,1,${CALL(1)},ended,42,agent_hangup,`);
    expect(lines[8]).toBe(`9,'+14155550307,Patient 7,Queued,0,,,,,`);

    expect(b.pageErrors).toEqual([]);
    expectOnlyLocalRequests(b.requests);
  });

  it('Phone Numbers warns once Twilio is connected, as PUBLIC_URL is on localhost here', async () => {
    await page.goto(b.url('/dashboard/phone-numbers'));
    await page.getByRole('table', { name: 'Assigned Numbers' }).waitFor();
    const warning = page.getByRole('alert').filter({ hasText: 'inbound calls cannot reach this server' });
    expect(await warning.count()).toBe(0);
    const connected = await apiCall(b.baseUrl, user, 'POST', '/provider/values', {
      name: 'twilio',
      // the fake Twilio's account: Connect tries the key with Twilio (TWILIO_API_URL) first
      keys: [
        { name: 'Account SID', value: inject('fakeKeys').twilio.accountSid },
        { name: 'Auth Token', value: inject('fakeKeys').twilio.authToken },
      ],
    });
    expect(connected.status, JSON.stringify(connected.body)).toBe(201);
    await page.reload();
    await warning.waitFor();
    expect(await warning.textContent()).toContain('PUBLIC_URL is on localhost');
  });

  it('opens a call of the batch in the call detail view', async () => {
    await page.goto(b.url(`/dashboard/batch-call?batch=${batchId}`));
    await detail(page)
      .getByRole('table', { name: 'Calls of this batch' })
      .getByRole('link', { name: PHONES[0] as string })
      .click();
    await page.waitForURL(`**/dashboard/call-history/${CALL(0)}`);
  });
});
