import os from 'node:os';
import path from 'node:path';
import { addMonths, format, setDate, startOfMonth } from 'date-fns';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { holdPageCode, openBrowser, type TestBrowser } from './browser.js';
import { type E2eCall, insertCalls } from './seed-db.js';
import { type ApiUser, createNumberViaApi, signedInPage, signUpViaApi } from './session.js';

/**
 * Call History in Chromium: a company with two lines and calls seeded through the calls
 * repository. Pick a date range in the two-month picker, filter by status and number in 'Filter Call
 * History', see 'Filters Applied', reload and get the same view from the URL, sort by duration (the
 * rows' order checked), 'Customize Field' hides and moves columns, remembered after a reload, and the
 * search finds calls by the start or the end of the caller's number.
 */
let b: TestBrowser;
let page: Page;
let user: ApiUser;

const LINE_A = '+14155550101';
const LINE_B = '+13125550102';
const CALLER = '+12125550123';
/** the month before this one: the left month of the picker when it opens */
const month = startOfMonth(addMonths(new Date(), -1));
const dayOf = (d: number) => setDate(month, d);
const at = (d: number, hour: number) => new Date(Date.UTC(month.getFullYear(), month.getMonth(), d, hour));
const dayButton = (d: number) => format(dayOf(d), 'EEEE, MMMM d, yyyy');
const param = (d: number) => format(dayOf(d), 'yyyy-MM-dd');

const failed = (day: number, duration: number): E2eCall => ({
  time: at(day, 9),
  duration,
  cost: duration * 0.001,
  caller: CALLER,
  status: 'failed',
  disconnectionReason: 'dial_failed',
  successful: false,
});

const table = (p: Page) => p.getByRole('table', { name: 'Call history' });
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });
const params = (p: Page) => Object.fromEntries(new URL(p.url()).searchParams);
const footer = (p: Page, text: string) => p.getByText(text, { exact: true });

/** The text of every data row's cells, in order. */
async function rows(p: Page): Promise<string[][]> {
  const out: string[][] = [];
  for (const row of await table(p).getByRole('row').all()) {
    const cells = row.getByRole('cell');
    if ((await cells.count()) > 1) out.push((await cells.allTextContents()).map((t) => t.trim()));
  }
  return out;
}
const focusedLabel = (p: Page) => p.evaluate(() => document.activeElement?.getAttribute('aria-label'));
const headers = async (p: Page) => (await table(p).getByRole('columnheader').allTextContents()).map((t) => t.trim());
async function settled(p: Page) {
  await poll(() => table(p).getAttribute('aria-busy')).toBe('false');
}

beforeAll(async () => {
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Cora Calls');
  await createNumberViaApi(b.baseUrl, user, LINE_A);
  await createNumberViaApi(b.baseUrl, user, LINE_B);
  await insertCalls(user.companyId, LINE_A, [
    // in the range, failed, on line A: the filtered view (durations out of order)
    failed(12, 42),
    failed(15, 5),
    failed(18, 17),
    // in the range but another status or line
    { time: at(14, 10), duration: 185, cost: 0.25, caller: CALLER, status: 'completed', disconnectionReason: 'agent_hangup' },
    { time: at(16, 11), duration: 65, cost: 0.09, status: 'ended', successful: false },
    // outside the range
    failed(5, 30),
    failed(25, 12),
  ]);
  await insertCalls(user.companyId, LINE_B, [failed(13, 50), failed(17, 8)]);
  page = await signedInPage(b, user);
});

afterAll(async () => {
  await b?.close();
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state !== 'fail' || !page) return;
  const file = path.join(os.tmpdir(), `call-history-e2e-${ctx.task.name.replace(/\W+/g, '-').slice(0, 60)}.png`);
  await page.screenshot({ path: file, fullPage: true }).catch(() => {});
  console.error(`screenshot of the failed step: ${file}`);
});

describe('Call History in Chromium', () => {
  it('lists every call newest first with the columns and formats of the spec', async () => {
    await page.goto(b.url('/dashboard/call-history'));
    await page.getByRole('heading', { name: 'Call History', level: 1 }).waitFor();
    await footer(page, 'Showing 1-9 of 9 records').waitFor();
    expect(await headers(page)).toEqual([
      'Time',
      'Phone Number',
      'Call Duration',
      'Type',
      'Cost',
      'Disconnection Reason',
      'Call Status',
      'Successful',
    ]);
    const first = (await rows(page))[0]!;
    // the newest call: failed on the 25th at 09:00 UTC, from the caller
    expect(first.slice(0, 7)).toEqual([
      `${param(25)} 09:00`,
      '(212) 555-0123',
      '0m 12s',
      'Inbound',
      '$0.01',
      'Dial failed',
      'Failed',
    ]);
    expect(await table(page).getByRole('img', { name: 'Not successful' }).count()).toBeGreaterThan(0);
    expect(await table(page).getByRole('img', { name: 'Successful', exact: true }).count()).toBe(1);
    await page.getByRole('button', { name: 'Pick a date' }).waitFor();
    await page.getByRole('button', { name: 'Filter', exact: true }).waitFor();
  });

  it("asks for the first page while the page's code loads (its route loader), and only once", async () => {
    const p = await b.newPage();
    const release = await holdPageCode(p, 'src/routes/dashboard/call-history.tsx');
    const before = b.requests.length;
    const listRequests = () => b.requests.slice(before).filter((u) => new URL(u).pathname === '/api/v1/call/');
    await p.goto(b.url('/dashboard/call-history'), { waitUntil: 'commit' });
    await poll(() => listRequests().length).toBe(1);
    // the page's code is still held back: the request came from the loader, not from the page
    expect(await p.getByRole('heading', { name: 'Call History', level: 1 }).count()).toBe(0);
    release();
    await footer(p, 'Showing 1-9 of 9 records').waitFor();
    expect(listRequests()).toHaveLength(1);
    await p.close();
  });

  it('picks a date range in a two-month, keyboard-operable picker', async () => {
    await page.getByRole('button', { name: 'Pick a date' }).click();
    const picker = page.getByRole('dialog', { name: 'Choose a date range' });
    await picker.waitFor();
    // the focus starts on today's day (no range yet)
    await poll(() => focusedLabel(page)).toBe(format(new Date(), 'EEEE, MMMM d, yyyy'));
    const grids = picker.getByRole('grid');
    expect(await grids.count()).toBe(2);
    await picker.getByRole('grid', { name: format(month, 'MMMM yyyy') }).waitFor();
    await picker.getByRole('grid', { name: format(addMonths(month, 1), 'MMMM yyyy') }).waitFor();
    expect(await grids.first().getByRole('columnheader').count()).toBe(7);
    await grids.first().getByRole('columnheader', { name: 'Sunday' }).waitFor();

    // the keyboard moves the day: the 10th, then one day right is the 11th
    const tenth = picker.getByRole('button', { name: dayButton(10) });
    await tenth.focus();
    await page.keyboard.press('ArrowRight');
    await poll(() => focusedLabel(page)).toBe(dayButton(11));
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Enter');
    await picker.getByText(`From ${dayButton(10)}: choose the last day`).waitFor();
    await picker.getByRole('button', { name: dayButton(20) }).click();

    await poll(() => params(page)).toEqual({ dateFrom: param(10), dateTo: param(20) });
    const label = `${format(dayOf(10), 'LLL dd, y')} - ${format(dayOf(20), 'LLL dd, y')}`;
    await page.getByRole('button', { name: label }).waitFor();
    await page.getByRole('button', { name: 'Filters Applied' }).waitFor();
    await footer(page, 'Showing 1-7 of 7 records').waitFor();
  });

  it("filters by status and number in 'Filter Call History'", async () => {
    await page.getByRole('button', { name: 'Filters Applied' }).click();
    const dialog = page.getByRole('dialog', { name: 'Filter Call History' });
    await dialog.waitFor();
    await dialog.getByRole('combobox', { name: 'Phone Number' }).click();
    // the company's numbers, loaded when the dialog opened
    await page.getByRole('option', { name: '(312) 555-0102' }).waitFor();
    await page.getByRole('option', { name: '(415) 555-0101' }).click();
    await dialog.getByRole('combobox', { name: 'Call Status' }).click();
    await page.getByRole('option', { name: 'Failed' }).click();
    await dialog.getByRole('button', { name: 'Apply' }).click();
    await dialog.waitFor({ state: 'hidden' });

    await poll(() => params(page)).toEqual({ dateFrom: param(10), dateTo: param(20), phoneNumber: LINE_A, status: 'failed' });
    await footer(page, 'Showing 1-3 of 3 records').waitFor();
    await settled(page);
    const shown = await rows(page);
    expect(shown.map((r) => r[0])).toEqual([`${param(18)} 09:00`, `${param(15)} 09:00`, `${param(12)} 09:00`]);
    expect(shown.every((r) => r[6] === 'Failed')).toBe(true);
    await page.getByRole('button', { name: 'Filters Applied' }).waitFor();
  });

  it('sorts by duration both ways (the rows change order)', async () => {
    const duration = table(page).getByRole('button', { name: 'Call Duration' });
    await duration.click();
    await poll(() => params(page).sort).toBe('duration:asc');
    await settled(page);
    await poll(async () => (await rows(page)).map((r) => r[2])).toEqual(['0m 05s', '0m 17s', '0m 42s']);
    await duration.click();
    await poll(() => params(page).sort).toBe('duration:desc');
    await settled(page);
    await poll(async () => (await rows(page)).map((r) => r[2])).toEqual(['0m 42s', '0m 17s', '0m 05s']);
    expect(await table(page).getByRole('columnheader', { name: 'Call Duration' }).getAttribute('aria-sort')).toBe('descending');
  });

  it('a reload reproduces the view from the URL', async () => {
    const before = page.url();
    await page.reload();
    await page.getByRole('heading', { name: 'Call History', level: 1 }).waitFor();
    await footer(page, 'Showing 1-3 of 3 records').waitFor();
    await settled(page);
    expect(page.url()).toBe(before);
    expect((await rows(page)).map((r) => r[2])).toEqual(['0m 42s', '0m 17s', '0m 05s']);
    await page.getByRole('button', { name: 'Filters Applied' }).waitFor();
    await page.getByRole('button', { name: `${format(dayOf(10), 'LLL dd, y')} - ${format(dayOf(20), 'LLL dd, y')}` }).waitFor();
    // the dialog opens with the filters of the URL
    await page.getByRole('button', { name: 'Filters Applied' }).click();
    const dialog = page.getByRole('dialog', { name: 'Filter Call History' });
    await poll(() => dialog.getByRole('combobox', { name: 'Call Status' }).textContent()).toContain('Failed');
    await poll(() => dialog.getByRole('combobox', { name: 'Phone Number' }).textContent()).toContain('(415) 555-0101');
    // Clear removes number, type and status; the date range stays
    await dialog.getByRole('button', { name: 'Clear' }).click();
    await poll(() => params(page)).toEqual({ dateFrom: param(10), dateTo: param(20), sort: 'duration:desc' });
    await footer(page, 'Showing 1-7 of 7 records').waitFor();
  });

  it("'Customize Field' hides and moves columns, remembered for the account", async () => {
    await page.getByRole('button', { name: 'Customize Field' }).click();
    const dialog = page.getByRole('dialog', { name: 'Customize Field' });
    await dialog.getByRole('checkbox', { name: 'Cost' }).uncheck();
    await dialog.getByRole('button', { name: 'Move Call Status up' }).click();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const expected = ['Time', 'Phone Number', 'Call Duration', 'Type', 'Call Status', 'Disconnection Reason', 'Successful'];
    await poll(() => headers(page)).toEqual(expected);
    await page.reload();
    await footer(page, 'Showing 1-7 of 7 records').waitFor();
    expect(await headers(page)).toEqual(expected);
    // and the date range can be cleared from the picker
    await page.getByRole('button', { name: `${format(dayOf(10), 'LLL dd, y')} - ${format(dayOf(20), 'LLL dd, y')}` }).click();
    // reopened, the focus starts on the first day of the range
    await poll(() => focusedLabel(page)).toBe(dayButton(10));
    await page.getByRole('button', { name: 'Clear dates' }).click();
    await page.getByRole('button', { name: 'Pick a date' }).waitFor();
    await page.getByRole('button', { name: 'Filter', exact: true }).waitFor();
    await poll(() => params(page)).toEqual({ sort: 'duration:desc' });
  });

  it('searches by the start or the end of the caller number, formatting ignored', async () => {
    await page.goto(b.url('/dashboard/call-history'));
    await footer(page, 'Showing 1-9 of 9 records').waitFor();
    const box = page.getByRole('searchbox', { name: 'Search calls by phone number' });
    // the caller's last digits: its 8 calls
    await box.fill('0123');
    await poll(() => params(page).search).toBe('0123');
    await footer(page, 'Showing 1-8 of 8 records').waitFor();
    await settled(page);
    expect(new Set((await rows(page)).map((r) => r[1]))).toEqual(new Set(['(212) 555-0123']));
    // line A's local number: its one outbound call
    await box.fill('555-0101');
    await footer(page, 'Showing 1-1 of 1 records').waitFor();
    await settled(page);
    expect((await rows(page)).map((r) => r[1])).toEqual(['(415) 555-0101']);
    // the start of a number, as before
    await box.fill('(212) 555');
    await footer(page, 'Showing 1-8 of 8 records').waitFor();
    await box.fill('');
    await footer(page, 'Showing 1-9 of 9 records').waitFor();
    expect(params(page).search).toBeUndefined();
  });

  it('shows the empty, no-match and error states', async () => {
    // a filter nothing matches: say so, with a way out
    await page.goto(b.url('/dashboard/call-history?status=registered'));
    await page.getByRole('heading', { name: 'No calls match these filters' }).waitFor();
    await page.getByRole('button', { name: 'Filters Applied' }).waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await poll(() => params(page)).toEqual({});
    await footer(page, 'Showing 1-9 of 9 records').waitFor();

    // a hand-edited number the server refuses: its message and Retry
    await page.goto(b.url('/dashboard/call-history?phoneNumber=%2B10000000'));
    const alert = table(page).getByRole('alert');
    await poll(() => alert.textContent()).toContain("Invalid query parameter 'phoneNumber': expected a phone number");
    await alert.getByRole('button', { name: 'Retry' }).waitFor();

    // a company without calls
    const other = await signUpViaApi(b.baseUrl, 'Nell Nocalls');
    const fresh = await signedInPage(b, other);
    try {
      await fresh.goto(b.url('/dashboard/call-history'));
      await fresh.getByRole('heading', { name: 'No calls yet' }).waitFor();
      await fresh.getByRole('button', { name: 'Pick a date' }).waitFor();
      // one empty state, for a company with no calls: no overview card asking for another date range
      await fresh.getByText('Try an agent from your browser with Test in its editor', { exact: false }).waitFor();
      expect(await fresh.getByRole('heading', { name: 'Overview' }).count()).toBe(0);
      expect(await fresh.getByText('No calls in this range').count()).toBe(0);
      expect(await fresh.getByText('another date range', { exact: false }).count()).toBe(0);
      // it points at the agents (where Test is) and at phone numbers
      await fresh.getByRole('main').getByRole('link', { name: 'Phone Numbers', exact: true }).click();
      await poll(() => new URL(fresh.url()).pathname).toBe('/dashboard/phone-numbers');
      await fresh.goBack();
      await fresh.getByRole('main').getByRole('link', { name: 'Open your agents' }).click();
      await poll(() => new URL(fresh.url()).pathname).toBe('/dashboard');
    } finally {
      await fresh.close();
    }
  });
});
