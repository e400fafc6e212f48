import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBrowser, type TestBrowser } from './browser.js';
import { insertAnalysis, insertCalls } from './seed-db.js';
import { type ApiUser, apiCall, createNumberViaApi, signedInPage, signUpViaApi } from './session.js';

/**
 * The call analytics in Chromium: calls seeded through the calls repository on two recent days;
 * the Call History overview shows the totals and the per-day charts (each with its numbers under 'Show as
 * table') for the URL's date range and filters, says 'No calls in this range' for an empty one, and the
 * Agents page's row menu opens the agent's 'Analytics'.
 */
let b: TestBrowser;
let page: Page;
let user: ApiUser;
let agent: { _id: string; agent_name: string };

const LINE = '+16175550142';
const CALLER = '+12125550123';
/** yyyy-MM-dd of the UTC day `n` days before today */
const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
const at = (n: number, hour: number) => new Date(`${day(n)}T${String(hour).padStart(2, '0')}:00:00.000Z`);
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });
const overview = (p: Page) => p.getByRole('region', { name: 'Overview' });

beforeAll(async () => {
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Ana Lytics');
  await createNumberViaApi(b.baseUrl, user, LINE);
  const agents = await apiCall<{ data: { agents: { _id: string; agent_name: string }[] } }>(b.baseUrl, user, 'GET', '/agent');
  agent = agents.body.data.agents[0]!;
  await insertCalls(user.companyId, LINE, [
    // five days ago: two completed calls of the agent and a failed one without an agent
    { time: at(5, 9), duration: 60, cost: 0.1, agentId: agent._id, status: 'completed', successful: true, latencyMs: 800 },
    { time: at(5, 10), duration: 60, cost: 0.1, agentId: agent._id, status: 'completed', successful: true, latencyMs: 810 },
    {
      time: at(5, 11),
      duration: 0,
      cost: 0,
      caller: CALLER,
      status: 'failed',
      disconnectionReason: 'dial_failed',
      successful: false,
    },
    // three days ago: an ended call of the agent and a failed one
    { time: at(3, 9), duration: 120, cost: 0.2, agentId: agent._id, status: 'ended', successful: false, latencyMs: 1200 },
    {
      time: at(3, 12),
      duration: 0,
      cost: 0,
      agentId: agent._id,
      status: 'failed',
      disconnectionReason: 'dial_failed',
      successful: false,
    },
  ]);
  page = await signedInPage(b, user);
});

/** the detail page's 'Post Call Analysis' section */
const analysisSection = (p: Page) => p.getByRole('region', { name: 'Post Call Analysis' });

afterAll(async () => {
  await b?.close();
});

describe('Call analytics', () => {
  it('the overview shows the totals and the per-day charts for the date range, with their tables', async () => {
    await page.goto(`${b.baseUrl}/dashboard/call-history?dateFrom=${day(6)}&dateTo=${day(2)}`);
    const o = overview(page);
    const totals = o.getByLabel('Totals');
    await poll(() => totals.textContent()).toContain('Calls5');
    const text = await totals.textContent();
    expect(text).toContain('Success rate40.0%');
    expect(text).toContain('Average duration0m 48s');
    expect(text).toContain('Cost$0.40');
    expect(text).toContain('Latency p50');

    for (const name of [
      /^Calls per day by status, from .* 5 calls, at most 3 on /,
      /^Success rate per day, .*: 40\.0% of all calls were successful$/,
      /^Average duration per day/,
      /^Cost per day, .*: \$0\.40 in total/,
      /^Response latency per day, .*: p50 [\d,]+ ms and p95 [\d,]+ ms/,
    ])
      expect(await o.getByRole('img', { name }).count()).toBe(1);

    // the numbers as a table: one row per day of the range, the statuses as columns
    const figure = o.getByRole('figure', { name: 'Calls per day by status' });
    await figure.getByText('Show as table').click();
    const table = figure.getByRole('table', { name: 'Calls per day by status' });
    expect((await table.getByRole('columnheader').allTextContents()).map((t) => t.trim())).toEqual([
      'Day',
      'Ended',
      'Completed',
      'Failed',
      'Calls',
    ]);
    const rows: string[][] = [];
    for (const row of await table.getByRole('row').all()) {
      const cells = (await row.getByRole('cell').allTextContents()).map((t) => t.trim());
      if (cells.length) rows.push([(await row.getByRole('rowheader').textContent())?.trim() ?? '', ...cells]);
    }
    expect(rows).toEqual([
      [day(6), '0', '0', '0', '0'],
      [day(5), '0', '2', '1', '3'],
      [day(4), '0', '0', '0', '0'],
      [day(3), '1', '0', '1', '2'],
      [day(2), '0', '0', '0', '0'],
    ]);
  });

  it('follows the filters and dates (the search narrows the table only), and says when a range has no calls', async () => {
    await page.goto(`${b.baseUrl}/dashboard/call-history?dateFrom=${day(6)}&dateTo=${day(2)}&status=failed`);
    await poll(() => overview(page).getByLabel('Totals').textContent()).toContain('Calls2');
    expect(
      await overview(page)
        .getByRole('img', { name: /by status, .* 2 calls, at most 1 on / })
        .count(),
    ).toBe(1);

    // the search box narrows the table (the one inbound call), not the overview, which says so
    await page.goto(`${b.baseUrl}/dashboard/call-history?dateFrom=${day(6)}&dateTo=${day(2)}`);
    await poll(() => overview(page).getByLabel('Totals').textContent()).toContain('Calls5');
    await page.getByRole('searchbox', { name: 'Search calls by phone number' }).fill('212 555');
    await poll(() => page.getByRole('table', { name: 'Call history' }).getByRole('row').count()).toBe(2);
    await overview(page).getByRole('note').getByText('the search narrows the table below', { exact: false }).waitFor();
    expect(await overview(page).getByLabel('Totals').textContent()).toContain('Calls5');
    await page.getByRole('searchbox', { name: 'Search calls by phone number' }).fill('');
    await poll(() => overview(page).getByRole('note').count()).toBe(0);
    // back to a view seen before (another status): its cached answer at once, then the server's
    await page.goto(`${b.baseUrl}/dashboard/call-history?dateFrom=${day(6)}&dateTo=${day(2)}&status=failed`);
    await poll(() => overview(page).getByLabel('Totals').textContent()).toContain('Calls2');
    // charts of zeros (failed calls: no duration, cost or latency) still label their axis with distinct values
    for (const [name, top] of [
      ['Average duration per day', '0m 02s'],
      ['Cost per day', '$0.02'],
      ['Latency per day (p50 and p95)', '2 ms'],
    ]) {
      const labels = await overview(page).getByRole('figure', { name }).locator('svg > g > text').allTextContents();
      expect(labels, name).toHaveLength(3);
      expect(new Set(labels).size, labels.join(', ')).toBe(3);
      expect(labels[2], name).toBe(top);
    }
    await page.goBack();
    await poll(() => overview(page).getByLabel('Totals').textContent()).toContain('Calls5');

    await page.goto(`${b.baseUrl}/dashboard/call-history?dateFrom=${day(60)}&dateTo=${day(50)}`);
    await poll(() => overview(page).getByText('No calls in this range').count()).toBe(1);
  });

  it('the call detail shows the post-call analysis, or that it failed', async () => {
    const [done, failed] = await insertCalls(user.companyId, LINE, [
      { time: at(40, 9), duration: 30, cost: 0.05, status: 'ended' },
      { time: at(40, 10), duration: 20, cost: 0.03, status: 'ended' },
    ]);
    await insertAnalysis(user.companyId, done!, {
      status: 'done',
      result: {
        summary: 'The caller booked a table for two on Friday.',
        sentiment: 'positive',
        successful: true,
        custom: { party_size: 2, wants_parking: false, dish: null },
      },
    });
    await insertAnalysis(user.companyId, failed!, { status: 'failed', error: 'The model answered no JSON' });

    await page.goto(`${b.baseUrl}/dashboard/call-history/${done}`);
    const shown = analysisSection(page);
    await poll(() => shown.textContent()).toContain('The caller booked a table for two on Friday.');
    const text = await shown.textContent();
    for (const part of ['SentimentPositive', 'SuccessfulYes', 'party_size2', 'wants_parkingNo', 'dish—'])
      expect(text).toContain(part);

    await page.goto(`${b.baseUrl}/dashboard/call-history/${failed}`);
    await poll(() => analysisSection(page).getByRole('alert').textContent()).toContain(
      'Analysis failed: The model answered no JSON',
    );
  });

  it("the agent's row menu opens its analytics for the last 30 days", async () => {
    await page.goto(`${b.baseUrl}/dashboard`);
    await page.getByRole('button', { name: `Actions for ${agent.agent_name}` }).click();
    await page.getByRole('menuitem', { name: 'Analytics' }).click();
    const dialog = page.getByRole('dialog', { name: `Analytics: ${agent.agent_name}` });
    const figures = dialog.getByLabel(`Analytics of ${agent.agent_name}`);
    await poll(() => figures.textContent()).toContain('Calls4');
    const text = await figures.textContent();
    expect(text).toContain('Success rate50.0%');
    expect(text).toContain('Average duration1m 00s');
    expect(text).toContain('Cost$0.40');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await poll(() => page.getByRole('dialog').count()).toBe(0);
  });
});
