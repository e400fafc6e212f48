import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { insertCalls } from '../../server/modules/calls/call.repo.js';
import { createCallSession } from '../../server/modules/conversations/session.repo.js';
import { newId } from '../../server/platform/crypto/ids.js';
import { openDatabase } from '../../server/platform/db/index.js';
import { openBrowser, type TestBrowser } from './browser.js';
import { type ApiUser, apiCall, signedInPage, signUpViaApi } from './session.js';

/**
 * Data retention in Chromium: the Settings page (from the account menu) saves a retention period, and a
 * call's 'Delete content' on its detail asks first, then shows the content gone and when.
 */
let b: TestBrowser;
let page: Page;
let user: ApiUser;

const SPOKEN = 'My date of birth is 1984-07-19';

/** An ended call with a transcript, written into the running server's database as the engine leaves one. */
async function seedCall(companyId: string): Promise<string> {
  const database = await openDatabase({ sqliteFile: path.join(inject('dataDir'), 'parley.sqlite'), migrate: false });
  const id = newId();
  const now = new Date();
  try {
    await createCallSession(database.db, {
      id,
      companyId,
      accountId: null,
      agentId: null,
      agent: null,
      type: 'inbound',
      from: '+12125550123',
      to: '+16175550177',
      phoneNumber: '+16175550177',
      variables: {},
      transcript: [
        { role: 'agent', text: 'Hello, how can I help?', start_ms: 0, end_ms: 1500 },
        { role: 'user', text: SPOKEN, start_ms: 2000, end_ms: 4000 },
      ],
      now,
    });
    await database.db
      .updateTable('call_sessions')
      .set({ status: 'ended', started_at: new Date(now.getTime() - 5000).toISOString(), ended_at: now.toISOString() })
      .where('id', '=', id)
      .where('company_id', '=', companyId)
      .execute();
    await insertCalls(database.db, [
      {
        id,
        company_id: companyId,
        agent_id: null,
        time: now.toISOString(),
        from_number: '+12125550123',
        to_number: '+16175550177',
        phone_number: '+16175550177',
        duration: 5,
        type: 'inbound',
        cost: 0.01,
        disconnection_reason: 'user_hangup',
        status: 'ended',
        call_successful: 1,
      },
    ]);
  } finally {
    await database.close();
  }
  return id;
}

beforeAll(async () => {
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Rita Retention');
  page = await signedInPage(b, user);
});

afterAll(async () => {
  await b?.close();
});

describe('data retention', () => {
  it('sets the retention from Settings, reached from the account menu', async () => {
    await page.goto(`${b.baseUrl}/dashboard`);
    await page.getByRole('button', { name: /Account menu/ }).click();
    await page.getByRole('menuitem', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Company' }).waitFor();
    await page.getByRole('combobox', { name: 'Data retention' }).click();
    await page.getByRole('option', { name: '30 days' }).click();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Settings saved.' }).waitFor();
    const res = await apiCall<{ data: { retention_days: number | null } }>(b.baseUrl, user, 'GET', '/company/settings');
    expect(res.body.data.retention_days).toBe(30);
    // the change is in the audit log on the same page
    await page.reload();
    await page.getByRole('table', { name: 'Audit log' }).getByText('Retention changed').waitFor();
  });

  it("deletes a call's content from its detail after a confirmation", async () => {
    const id = await seedCall(user.companyId);
    await page.goto(`${b.baseUrl}/dashboard/call-history/${id}`);
    await page.getByRole('list', { name: 'Transcript' }).getByText(SPOKEN).waitFor();
    await page.getByRole('button', { name: 'Delete content' }).click();
    const dialog = page.getByRole('alertdialog', { name: "Delete this call's content?" });
    await dialog.waitFor();
    // Cancel first: nothing happens
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => page.getByText(SPOKEN).count()).toBe(1);
    await page.getByRole('button', { name: 'Delete content' }).click();
    await dialog.getByRole('button', { name: 'Delete content' }).click();
    await page.getByRole('status').filter({ hasText: 'The content of this call was deleted on' }).waitFor();
    await dialog.waitFor({ state: 'hidden' });
    expect(await page.getByText(SPOKEN).count()).toBe(0);
    await page.getByText('The transcript was deleted.').waitFor();
    expect(await page.getByRole('button', { name: 'Delete content' }).count()).toBe(0);
    const res = await apiCall<{ data: { content_deleted_at: string | null; transcript: unknown[] } }>(
      b.baseUrl,
      user,
      'GET',
      `/call/${id}`,
    );
    const data = res.body.data;
    expect(data.content_deleted_at).toEqual(expect.any(String));
    expect(data.transcript).toEqual([]);
  });
});
