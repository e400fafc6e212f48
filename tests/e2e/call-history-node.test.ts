import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { openDatabase } from '../../server/platform/db/index.js';
import { openBrowser, type TestBrowser } from './browser.js';
import { insertCalls } from './seed-db.js';
import { type ApiUser, createNumberViaApi, signedInPage, signUpViaApi } from './session.js';

/**
 * Call History narrowed to the calls that reached a conversation-flow node (`?node=`, as the flow's
 * path records it): the page says so above the table, lists only those calls, and 'Show all calls' lists
 * every call again.
 */
let b: TestBrowser;
let page: Page;
let user: ApiUser;
const LINE = '+14155550131';

const table = (p: Page) => p.getByRole('table', { name: 'Call history' });
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });
async function rowCount(p: Page) {
  await poll(() => table(p).getAttribute('aria-busy')).toBe('false');
  let n = 0;
  for (const row of await table(p).getByRole('row').all()) if ((await row.getByRole('cell').count()) > 1) n++;
  return n;
}

beforeAll(async () => {
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Nora Nodes');
  await createNumberViaApi(b.baseUrl, user, LINE);
  const now = Date.now();
  const ids = await insertCalls(
    user.companyId,
    LINE,
    [1, 2, 3].map((h) => ({ time: new Date(now - h * 3_600_000), duration: 30 * h, cost: 0.01, caller: '+12125550100' })),
  );
  // the first two calls reached the node `book` (what finishing a flow call writes with its path)
  const database = await openDatabase({ sqliteFile: path.join(inject('dataDir'), 'parley.sqlite'), migrate: false });
  try {
    await database.db
      .insertInto('call_flow_nodes')
      .values(ids.slice(0, 2).map((call_id) => ({ company_id: user.companyId, call_id, node_id: 'book' })))
      .execute();
  } finally {
    await database.close();
  }
  page = await signedInPage(b, user);
});

afterAll(async () => {
  await b?.close();
});

it('?node= lists only the calls that reached the node, says so, and Show all calls lists every call', async () => {
  await page.goto(b.url('/dashboard/call-history?node=book'));
  await poll(() => page.getByText('Calls that reached the flow node').isVisible()).toBe(true);
  await poll(() => rowCount(page)).toBe(2);
  await page.getByRole('button', { name: 'Show all calls' }).click();
  await poll(() => new URL(page.url()).searchParams.get('node')).toBeNull();
  await poll(() => rowCount(page)).toBe(3);
  await poll(() => page.getByText('Calls that reached the flow node').count()).toBe(0);
});
