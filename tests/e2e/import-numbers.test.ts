/**
 * Phone Numbers > 'Import from Twilio' in Chromium against the e2e server and its fake Twilio
 * (tests/e2e/provider-fakes.ts, whose account holds TWILIO_ACCOUNT_NUMBERS): without the Twilio card the
 * dialog says to connect it, with the Providers link; connected, it lists the account's numbers (one that
 * cannot take calls cannot be ticked), imports the one ticked, and the Assigned Numbers table shows it; the
 * number is then pointed at Parley (checked through the import listing, which marks it as on the platform).
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, inject, it } from 'vitest';
import { prettyPhoneNumber } from '../../src/api/contract/phone.js';
import { expectOnlyLocalRequests, openBrowser, type TestBrowser } from './browser.js';
import { TWILIO_ACCOUNT_NUMBERS } from './provider-fakes.js';
import { type ApiUser, apiCall, signedInPage, signUpViaApi } from './session.js';

let b: TestBrowser;
let user: ApiUser;
let page: Page;

const [frontDesk, fax] = TWILIO_ACCOUNT_NUMBERS;

beforeAll(async () => {
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Import Tester');
  page = await signedInPage(b, user);
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail')
    await page.screenshot({ path: `/tmp/import-${ctx.task.name.slice(0, 30)}.png` }).catch(() => {});
});

afterAll(async () => {
  expectOnlyLocalRequests(b.requests);
  await b?.close();
});

it('without the Twilio card the dialog says which card to connect, with the Providers link', async () => {
  await page.goto(b.url('/dashboard/phone-numbers'));
  await page.getByRole('button', { name: 'Import from Twilio' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import numbers from Twilio' });
  await expect
    .poll(() => dialog.getByRole('alert').textContent())
    .toContain('Connect Twilio on the Providers page to import its numbers.');
  await expect.poll(() => dialog.getByRole('link', { name: 'Open Providers' }).getAttribute('href')).toBe('/dashboard/providers');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect.poll(() => dialog.count()).toBe(0);
});

it("lists the account's numbers, imports the ticked one, and the table shows it", async () => {
  const keys = inject('fakeKeys');
  const res = await apiCall(b.baseUrl, user, 'POST', '/provider/values', {
    name: 'twilio',
    keys: [
      { name: 'Account SID', value: keys.twilio.accountSid },
      { name: 'Auth Token', value: keys.twilio.authToken },
    ],
  });
  expect([200, 201]).toContain(res.status);
  await page.goto(b.url('/dashboard/phone-numbers'));
  await page.getByRole('button', { name: 'Import from Twilio' }).click();
  const dialog = page.getByRole('dialog', { name: 'Import numbers from Twilio' });
  const list = dialog.getByRole('group', { name: 'Numbers on your Twilio account' });
  const front = list.getByRole('checkbox', { name: prettyPhoneNumber(frontDesk.phone) });
  await front.waitFor();
  // the fax line cannot take calls: it cannot be ticked; nothing ticked, nothing to import
  expect(await list.getByRole('checkbox', { name: prettyPhoneNumber(fax.phone) }).isDisabled()).toBe(true);
  expect(await dialog.getByRole('button', { name: 'Import selected' }).isDisabled()).toBe(true);
  await front.check();
  await dialog.getByRole('button', { name: 'Import selected' }).click();
  await page.getByRole('region', { name: 'Notifications' }).getByText('1 number imported.', { exact: true }).waitFor();
  await expect.poll(() => dialog.count()).toBe(0);
  await page.getByRole('table', { name: 'Assigned Numbers' }).getByText(prettyPhoneNumber(frontDesk.phone)).first().waitFor();
  // the carrier's listing now marks it as on the platform
  const listed = await apiCall<{ data: { numbers: { phone_number: string; in_parley: boolean }[] } }>(
    b.baseUrl,
    user,
    'GET',
    '/number/import/twilio',
  );
  expect(listed.body.data.numbers.find((n) => n.phone_number === frontDesk.phone)?.in_parley).toBe(true);
  // opened again: the imported number shows 'Already in Parley' and cannot be ticked
  await page.getByRole('button', { name: 'Import from Twilio' }).click();
  await expect.poll(() => list.getByRole('checkbox', { name: prettyPhoneNumber(frontDesk.phone) }).isDisabled()).toBe(true);
  await list.getByText('Already in Parley').waitFor();
});
