import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { enqueueDeliveries } from '../../server/modules/webhooks/outbox.js';
import { openDatabase } from '../../server/platform/db/index.js';
import { openBrowser, type TestBrowser } from './browser.js';
import { type ApiUser, signedInPage, signUpViaApi } from './session.js';

let b: TestBrowser;
let page: Page;
let user: ApiUser;
const bodies: string[] = [];

beforeAll(async () => {
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Wes Webhooks');
  page = await signedInPage(b, user);
  page.on('response', async (r) => {
    if (!new URL(r.url()).pathname.startsWith('/api/')) return;
    try {
      bodies.push(await r.text());
    } catch {
      // no body
    }
  });
});

afterAll(async () => {
  await b?.close();
});

const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 10_000 });
const section = (p: Page) => p.getByRole('region', { name: 'Webhooks' });

/** A delivery queued in the running server's database (events come from calls, which e2e does not dial). */
async function queueDelivery(url: string) {
  const database = await openDatabase({ sqliteFile: path.join(inject('dataDir'), 'parley.sqlite'), migrate: false });
  try {
    const deps = { db: database, clock: { now: () => new Date() } } as unknown as Parameters<typeof enqueueDeliveries>[0];
    const [id] = await enqueueDeliveries(deps, [
      {
        companyId: user.companyId,
        target: 'company',
        agentId: null,
        url,
        event: 'batch_completed',
        callId: null,
        payload: JSON.stringify({ event: 'batch_completed', batch: { batch_id: 'e2e' } }),
      },
    ]);
    return id as string;
  } finally {
    await database.close();
  }
}

describe('Webhooks section of the Providers screen in Chromium', () => {
  it('refuses a private URL, saves a public one, shows the signing secret once, then only its end', async () => {
    await page.goto(b.url('/dashboard/providers'));
    const s = section(page);
    await s.getByRole('heading', { name: 'Webhooks' }).waitFor();
    const url = s.getByRole('textbox', { name: 'Webhook URL' });
    await url.fill('http://169.254.169.254/latest');
    await s.getByRole('button', { name: 'Save webhook' }).click();
    await s
      .getByText('Webhook URL: 169.254.169.254 is a link-local address. Only public internet addresses are allowed here.')
      .waitFor();
    await url.fill('https://hooks.example.com/parley');
    await s.getByRole('button', { name: 'Save webhook' }).click();
    await page.getByRole('region', { name: 'Notifications' }).getByText('Webhook saved.').waitFor();

    await s.getByText('No signing secret yet.').waitFor();
    await s.getByRole('button', { name: 'Create signing secret' }).click();
    const dialog = page.getByRole('dialog', { name: 'Signing secret' });
    const secret = await dialog.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await s.getByText(`Signing secret: ending in ${secret.slice(-4)}`).waitFor();
    await s.getByRole('button', { name: 'Rotate signing secret' }).waitFor();
    // after the one answer that made it, no response carries the secret again
    await page.reload();
    await section(page)
      .getByText(`Signing secret: ending in ${secret.slice(-4)}`)
      .waitFor();
    expect(bodies.filter((t) => t.includes(secret))).toHaveLength(1);
    expect(await section(page).getByRole('textbox', { name: 'Webhook URL' }).inputValue()).toBe(
      'https://hooks.example.com/parley',
    );
  });

  it('lists deliveries in the log, shows their bodies, and Resend queues one again', async () => {
    // the server's worker tries it and refuses the loopback address
    const id = await queueDelivery('http://127.0.0.1:9/hook');
    await page.goto(b.url('/dashboard/providers'));
    const s = section(page);
    const log = s.getByRole('table', { name: 'Delivery log' });
    await poll(async () => {
      await s.getByRole('button', { name: 'Refresh' }).click();
      return log.getByRole('row').count();
    }).toBe(2);
    await poll(async () => {
      await s.getByRole('button', { name: 'Refresh' }).click();
      return log.getByRole('cell', { name: '1', exact: true }).count();
    }).toBeGreaterThan(0);
    expect(await log.getByRole('cell', { name: 'batch_completed' }).count()).toBe(1);
    expect(await log.getByRole('cell', { name: 'Company webhook' }).count()).toBe(1);
    // the log of one webhook
    await s.getByRole('combobox', { name: 'Webhook' }).click();
    await page.getByRole('option', { name: 'Company webhook' }).click();
    await poll(() => log.getByRole('row').count()).toBe(2);

    await log.getByRole('button', { name: `View delivery ${id}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Delivery' });
    await dialog.getByText('127.0.0.1 is a loopback address.', { exact: false }).waitFor();
    expect(await dialog.getByRole('region', { name: 'Request body' }).textContent()).toContain('"batch_id":"e2e"');
    await dialog.getByRole('button', { name: 'Close' }).first().click();

    await log.getByRole('button', { name: `Resend delivery ${id}` }).click();
    await page.getByRole('region', { name: 'Notifications' }).getByText('The delivery was queued again.').waitFor();
    await poll(() => log.getByRole('row').count()).toBe(3);
  });
});
