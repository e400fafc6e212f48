import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBrowser, type TestBrowser } from './browser.js';
import { type E2eCall, insertCalls } from './seed-db.js';
import { type ApiUser, signedInPage, signUpViaApi } from './session.js';

/** 'Export' in Call History downloads the calls the filters show, as CSV. */
let b: TestBrowser;
let page: Page;
let user: ApiUser;
const LINE = '+14155550111';

beforeAll(async () => {
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Exa Port');
  page = await signedInPage(b, user);
  const day = Date.UTC(2026, 9, 5, 12);
  const calls: E2eCall[] = [
    ...Array.from({ length: 4 }, (_, i) => ({ time: new Date(day + i * 60_000), duration: 30 + i, cost: 0.02 })),
    ...Array.from({ length: 3 }, (_, i) => ({
      time: new Date(day + (10 + i) * 60_000),
      duration: 0,
      cost: 0,
      status: 'failed' as const,
      disconnectionReason: 'dial_failed',
    })),
  ];
  await insertCalls(user.companyId, LINE, calls);
});

afterAll(async () => {
  await b?.close();
});

async function exportCsv(p: Page): Promise<string[]> {
  const [download] = await Promise.all([p.waitForEvent('download'), p.getByRole('button', { name: 'Export' }).click()]);
  expect(download.suggestedFilename()).toMatch(/^calls-\d{4}-\d{2}-\d{2}\.csv$/);
  const file = await download.path();
  return fs.readFileSync(file, 'utf8').trimEnd().split('\r\n');
}

describe('Call History export in Chromium', () => {
  it('downloads every call, then only the filtered ones', async () => {
    await page.goto(b.url('/dashboard/call-history'));
    await page.getByRole('table', { name: 'Call history' }).waitFor();
    const all = await exportCsv(page);
    expect(all[0]?.startsWith('Call ID,Time,Agent,From,To,Phone Number,Call Duration,Type,Cost,')).toBe(true);
    expect(all).toHaveLength(8);

    await page.goto(b.url('/dashboard/call-history?status=failed'));
    await page.getByRole('button', { name: 'Filters Applied' }).waitFor();
    const failed = await exportCsv(page);
    expect(failed).toHaveLength(4);
    expect(failed.slice(1).every((line) => line.includes(',dial_failed,failed,'))).toBe(true);
  });
});
