/**
 * An agent set to Metadata only in the editor, tried with Test LLM: the chat runs as usual (the agent hears
 * everything), and once it has ended its detail page shows no transcript and says why.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, inject, it } from 'vitest';
import { openBrowser, type TestBrowser } from './browser.js';
import { type ApiUser, apiCall, signedInPage, signUpViaApi } from './session.js';

let b: TestBrowser;
let user: ApiUser;
let page: Page;
let agentId = '';

beforeAll(async () => {
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Privacy Tester');
  const res = await apiCall(b.baseUrl, user, 'POST', '/provider/values', {
    name: 'openai',
    keys: [{ name: 'API Key', value: inject('fakeKeys').openai }],
  });
  expect([200, 201]).toContain(res.status);
  const list = await apiCall<{ data: { agents: { _id: string }[] } }>(b.baseUrl, user, 'GET', '/agent?page=1&limit=10');
  agentId = list.body.data.agents[0]?._id ?? '';
  page = await signedInPage(b, user);
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail') await page.screenshot({ path: '/tmp/privacy-e2e.png' }).catch(() => {});
});

afterAll(async () => {
  await b?.close();
});

it('Metadata only: a Test LLM chat keeps nothing that was said, and its detail says why', async () => {
  await page.goto(b.url(`/dashboard/agents/${agentId}`));
  const storage = page.getByRole('combobox', { name: 'Data storage' });
  await storage.waitFor({ timeout: 10_000 });
  // 'Redact recordings' is offered at Everything but personal data only
  expect(await page.getByRole('switch', { name: 'Redact recordings' }).count()).toBe(0);
  await storage.click();
  await page.getByRole('option', { name: /^Everything but personal data/ }).click();
  await page.getByRole('switch', { name: 'Redact recordings' }).waitFor();
  await storage.click();
  await page.getByRole('option', { name: /^Metadata only/ }).click();
  expect(await page.getByRole('switch', { name: 'Redact recordings' }).count()).toBe(0);
  await page.getByRole('switch', { name: 'Record calls' }).waitFor();
  await page.getByRole('textbox', { name: 'Recording notice' }).waitFor();

  await page.getByRole('button', { name: 'Test LLM', exact: true }).click();
  const chat = page.getByRole('region', { name: 'Test LLM' });
  const message = chat.getByRole('textbox', { name: 'Message' });
  await expect.poll(() => message.isEnabled(), { timeout: 10_000 }).toBe(true);
  await message.fill('My number is 555 123 4567');
  await chat.getByRole('button', { name: 'Send' }).click();
  // the live chat is unchanged: the agent heard it
  await chat
    .getByRole('log')
    .getByText(/You said: My number is 555 123 4567/)
    .waitFor({ timeout: 10_000 });
  await chat.getByRole('button', { name: 'Close chat' }).click();

  const ended = async () => {
    const res = await apiCall<{ data: { calls: { _id: string; status: string }[] } }>(b.baseUrl, user, 'GET', '/call?type=chat');
    return res.body.data.calls.find((c) => c.status === 'ended')?._id;
  };
  await expect.poll(ended, { timeout: 10_000 }).toBeTruthy();
  const callId = (await ended()) as string;
  await page.goto(b.url(`/dashboard/call-history/${callId}`));
  await page.getByText(/the agent's data storage was Metadata only when this call ran/).waitFor({ timeout: 10_000 });
  expect(await page.getByRole('list', { name: 'Transcript' }).count()).toBe(0);
  expect(await page.getByText('555 123 4567').count()).toBe(0);
});
