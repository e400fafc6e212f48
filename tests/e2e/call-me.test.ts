/**
 * Call me in Chromium, end to end over Twilio's protocols: the editor's right column places a
 * phone call with the agent being edited. The e2e server's Twilio is the fake of tests/fakes/twilio.ts
 * (TWILIO_API_URL): it checks the REST call's Basic auth and parameters, posts signed status callbacks,
 * opens a signed media stream to the TwiML's <Stream> URL, and the callee says something after the greeting
 * and hangs up (tests/e2e/provider-fakes.ts). What the callee said reaches the Deepgram fake as mu-law 8 kHz,
 * the agent answers through the OpenAI and ElevenLabs fakes, and the call lands in Call History with its
 * transcript.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { expectOnlyLocalRequests, openBrowser, type TestBrowser } from './browser.js';
import { CALLER_WORDS } from './provider-fakes.js';
import { type ApiUser, apiCall, signedInPage, signUpViaApi } from './session.js';

const FROM = '+13125550142';
const TO = '+14155550123';

let b: TestBrowser;
let user: ApiUser;
let page: Page;
let agentId = '';

async function connect(name: string, keys: { name: string; value: string }[]) {
  const res = await apiCall(b.baseUrl, user, 'POST', '/provider/values', { name, keys });
  expect([200, 201]).toContain(res.status);
}

beforeAll(async () => {
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Phone Tester');
  const keys = inject('fakeKeys');
  await connect('deepgram', [{ name: 'API Key', value: keys.deepgram }]);
  await connect('openai', [{ name: 'API Key', value: keys.openai }]);
  await connect('elevenlabs', [{ name: 'API Key', value: keys.elevenlabs }]);
  await connect('twilio', [
    { name: 'Account SID', value: keys.twilio.accountSid },
    { name: 'Auth Token', value: keys.twilio.authToken },
  ]);
  const list = await apiCall<{ data: { agents: { _id: string }[] } }>(b.baseUrl, user, 'GET', '/agent?page=1&limit=10');
  agentId = list.body.data.agents[0]?._id ?? '';
  expect(agentId).not.toBe('');
  // the company's own Twilio number, placing outbound calls with the sample agent
  const number = await apiCall(b.baseUrl, user, 'POST', '/number/create', {
    phone_number: FROM,
    provider: 'twilio',
    phone_number_type: 'local',
    phone_number_pretty: '(312) 555-0142',
    termination_uri: 'parley-voice.pstn.twilio.com',
    outbound_agent_id: agentId,
  });
  expect(number.status, JSON.stringify(number.body)).toBe(201);
  page = await signedInPage(b, user);
  await page.goto(b.url(`/dashboard/agents/${agentId}`));
  await page.getByRole('form', { name: 'Call me' }).waitFor();
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail')
    await page.screenshot({ path: `/tmp/call-me-${ctx.task.name.slice(0, 30)}.png` }).catch(() => {});
});

afterAll(async () => {
  await b?.close();
});

describe('Call me', () => {
  it('refuses a number that is not E.164 and keeps what was typed', async () => {
    const form = page.getByRole('form', { name: 'Call me' });
    const field = form.getByRole('textbox', { name: 'Phone number' });
    await field.fill('415 555');
    await form.getByRole('button', { name: 'Call me' }).click();
    await form.getByText('Enter a phone number in E.164 format, like +14155550123').waitFor();
    expect(await field.inputValue()).toBe('415 555');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
  });

  it('places the call through Twilio; the callee talks with the agent and the call is in Call History', async () => {
    const form = page.getByRole('form', { name: 'Call me' });
    await form.getByRole('textbox', { name: 'Phone number' }).fill(TO);
    await form.getByRole('button', { name: 'Call me' }).click();
    await page.getByText(`Calling ${TO}…`).waitFor({ timeout: 10_000 });

    // the call row follows Twilio's signed status callbacks; the conversation happened on the media stream
    const calls = async () =>
      (
        await apiCall<{ data: { calls: { _id: string; to: string; status: string; type: string }[] } }>(
          b.baseUrl,
          user,
          'GET',
          '/call/',
        )
      ).body.data.calls;
    await expect.poll(async () => (await calls()).find((c) => c.to === TO)?.status, { timeout: 30_000 }).toBe('ended');
    const call = (await calls()).find((c) => c.to === TO);
    expect(call?.type).toBe('outbound');

    await page.goto(b.url('/dashboard/call-history'));
    const open = page.getByRole('table', { name: 'Call history' }).locator(`a[href="/dashboard/call-history/${call?._id}"]`);
    await open.waitFor({ timeout: 10_000 });
    await open.click();
    const turns = page.getByRole('list', { name: 'Transcript' });
    // what the callee said on the phone (mu-law from the Twilio stream, transcribed), and the agent's answer
    await turns.getByText(CALLER_WORDS).first().waitFor({ timeout: 10_000 });
    await turns.getByText(`Happy to help. You said: ${CALLER_WORDS}`).first().waitFor();
    expect(b.pageErrors).toEqual([]);
    expectOnlyLocalRequests(b.requests);
  });
});
