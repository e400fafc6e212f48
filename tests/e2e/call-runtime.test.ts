/**
 * The three ways to try an agent from the editor in Chromium, against the provider fakes the e2e
 * server is pointed at (tests/e2e/provider-fakes.ts): Test LLM (a chat streamed from the OpenAI fake, end_call
 * ends it), Test Audio (the ElevenLabs fake's voice), and Test (a web call from a fake microphone that plays a
 * WAV this test writes: its bursts of sound are the caller's speech to the Deepgram fake). The call then
 * shows in Call History, and its detail page plays the recording with the turn being played highlighted.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { expectOnlyLocalRequests, openBrowser, type TestBrowser } from './browser.js';
import { CALLER_WORDS } from './provider-fakes.js';
import { type ApiUser, apiCall, signedInPage, signUpViaApi } from './session.js';

/** A mono 16 kHz PCM16 WAV: `speechMs` of a voice-like tone (harmonics, syllable envelope), then silence. */
function writeCallerWav(file: string, speechMs = 1400, silenceMs = 3600) {
  const rate = 16_000;
  const n = Math.round(((speechMs + silenceMs) / 1000) * rate);
  const speech = Math.round((speechMs / 1000) * rate);
  const data = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) {
    let s = 0;
    if (i < speech) {
      const t = i / rate;
      const envelope = 0.55 + 0.45 * Math.sin(2 * Math.PI * 4 * t);
      const f0 = 140 + 20 * Math.sin(2 * Math.PI * 1.3 * t);
      s =
        envelope *
        (0.5 * Math.sin(2 * Math.PI * f0 * t) + 0.3 * Math.sin(4 * Math.PI * f0 * t) + 0.2 * Math.sin(6 * Math.PI * f0 * t));
    }
    data.writeInt16LE(Math.round(s * 0.6 * 32767), i * 2);
  }
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  fs.writeFileSync(file, Buffer.concat([header, data]));
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-caller-'));
const wav = path.join(dir, 'caller.wav');

let b: TestBrowser;
let user: ApiUser;
let page: Page;
let agentId = '';
let callId = '';

async function connect(name: string, key: string) {
  const res = await apiCall(b.baseUrl, user, 'POST', '/provider/values', { name, keys: [{ name: 'API Key', value: key }] });
  expect([200, 201]).toContain(res.status);
}

beforeAll(async () => {
  writeCallerWav(wav);
  b = await openBrowser([
    '--use-fake-ui-for-media-stream',
    '--use-fake-device-for-media-stream',
    `--use-file-for-fake-audio-capture=${wav}`,
    '--autoplay-policy=no-user-gesture-required',
  ]);
  user = await signUpViaApi(b.baseUrl, 'Call Tester');
  const keys = inject('fakeKeys');
  await connect('deepgram', keys.deepgram);
  await connect('openai', keys.openai);
  await connect('elevenlabs', keys.elevenlabs);
  // the company's sample agent, with end_call among its functions
  const list = await apiCall<{ data: { agents: { _id: string }[] } }>(b.baseUrl, user, 'GET', '/agent?page=1&limit=10');
  agentId = list.body.data.agents[0]?._id ?? '';
  const one = await apiCall<{ data: { agent: Record<string, unknown> & { version: number; editor: Record<string, unknown> } } }>(
    b.baseUrl,
    user,
    'GET',
    `/agent/${agentId}`,
  );
  const a = one.body.data.agent;
  const saved = await apiCall(b.baseUrl, user, 'PUT', `/agent/${agentId}`, {
    name: a.name,
    prompt: a.prompt,
    message: a.message,
    settings: a.settings,
    editor: { ...a.editor, functions: [{ id: 1, name: 'end_call', type: 'end_call' }] },
    version: a.version,
  });
  expect(saved.status).toBe(200);
  page = await signedInPage(b, user);
  await page.goto(b.url(`/dashboard/agents/${agentId}`));
  await page.getByRole('button', { name: 'Test LLM', exact: true }).waitFor();
});

afterEach(async (ctx) => {
  if (ctx.task.result?.state === 'fail')
    await page.screenshot({ path: `/tmp/call-runtime-${ctx.task.name.slice(0, 30)}.png` }).catch(() => {});
});

afterAll(async () => {
  await b?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('trying an agent from the editor', () => {
  it('Test LLM: the welcome message, a reply streamed from the LLM, and end_call ends the chat', async () => {
    await page.getByRole('button', { name: 'Test LLM', exact: true }).click();
    const chat = page.getByRole('region', { name: 'Test LLM' });
    const log = chat.getByRole('log', { name: 'Chat with the agent' });
    const message = chat.getByRole('textbox', { name: 'Message' });
    await expect.poll(() => message.isEnabled(), { timeout: 10_000 }).toBe(true);
    // the sample agent greets first
    await expect.poll(() => log.getByText('Agent', { exact: true }).count()).toBeGreaterThan(0);
    await message.fill('Do you open on Saturdays?');
    await chat.getByRole('button', { name: 'Send' }).click();
    await log.getByText('Happy to help. You said: Do you open on Saturdays.').waitFor({ timeout: 10_000 });
    await message.fill('Thanks, goodbye');
    await chat.getByRole('button', { name: 'Send' }).click();
    await log.getByText(/^Function called: end_call/).waitFor({ timeout: 10_000 });
    await log.getByText('The agent ended the chat.').waitFor();
    expect(await message.isDisabled()).toBe(true);
    await chat.getByRole('button', { name: 'Close chat' }).click();
  });

  it('Test LLM runs the unsaved prompt with the Dynamic Variables filled in', async () => {
    const prompt = page.getByRole('textbox', { name: 'Prompt' });
    await prompt.fill(`${await prompt.inputValue()}\nCaller name: {{name}}.`);
    await page.getByRole('button', { name: 'Dynamic Variables', exact: true }).click();
    const vars = page.getByRole('dialog', { name: 'Dynamic Variables' });
    await vars.getByRole('textbox', { name: 'Variable name 1' }).fill('name');
    await vars.getByRole('textbox', { name: 'Test value 1' }).fill('Ada Lovelace');
    await vars.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('button', { name: 'Test LLM', exact: true }).click();
    const chat = page.getByRole('region', { name: 'Test LLM' });
    const message = chat.getByRole('textbox', { name: 'Message' });
    await expect.poll(() => message.isEnabled(), { timeout: 10_000 }).toBe(true);
    await message.fill('What is my name?');
    await chat.getByRole('button', { name: 'Send' }).click();
    await chat.getByRole('log').getByText('Your name is Ada Lovelace.').waitFor({ timeout: 10_000 });
    await chat.getByRole('button', { name: 'Close chat' }).click();
    // closing ends the chat at once: Call History has it ended by the user (the first chat: by the agent)
    const reasons = async () => {
      const res = await apiCall<{ data: { calls: { disconnectionReason: string }[] } }>(
        b.baseUrl,
        user,
        'GET',
        '/call?type=chat',
      );
      return res.body.data.calls.map((c) => c.disconnectionReason).sort();
    };
    await expect.poll(reasons, { timeout: 10_000 }).toEqual(['agent_hangup', 'user_hangup']);
  });

  it('Test Audio: the welcome message in the agent’s voice, with a spinner while it loads and Stop while it plays', async () => {
    await page.getByRole('button', { name: 'Test Audio', exact: true }).click();
    const section = page.getByRole('region', { name: 'Test Audio' });
    await section.getByRole('textbox', { name: 'Sentence to speak' }).fill('Hello from the clinic.');
    const answer = page.waitForResponse((r) => r.url().endsWith('/api/v1/voices/preview'));
    await section.getByRole('button', { name: 'Play' }).click();
    const res = await answer;
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toBe('audio/wav');
    // playing: Stop is offered; the clip plays to its end (decoded and heard), then Play is back
    await section.getByText('Playing…').waitFor({ timeout: 10_000 });
    await section.getByRole('button', { name: 'Play' }).waitFor({ timeout: 10_000 });
    expect(await section.getByRole('alert').count()).toBe(0);
    // the welcome message this time, stopped while it plays
    await section.getByRole('textbox', { name: 'Sentence to speak' }).fill('');
    await section.getByRole('button', { name: 'Play' }).click();
    await section.getByText('Playing…').waitFor({ timeout: 10_000 });
    await section.getByRole('button', { name: 'Stop' }).click();
    await section.getByRole('button', { name: 'Play' }).waitFor();
    expect(await section.getByText('Playing…').count()).toBe(0);
    expect(await section.getByRole('alert').count()).toBe(0);
  });

  it('Test: a web call from the microphone, the live transcript and state, hang up', async () => {
    await page.getByRole('button', { name: 'Test', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Test call' });
    await dialog.getByRole('button', { name: 'Start' }).click();
    const status = dialog.getByRole('status', { name: 'Call status' });
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toMatch(/^Agent is (listening|thinking|speaking)$/);
    const transcript = dialog.getByRole('log', { name: 'Live transcript' });
    await transcript.getByText(CALLER_WORDS, { exact: false }).first().waitFor({ timeout: 20_000 });
    await transcript.getByText(`Happy to help. You said: ${CALLER_WORDS}`).first().waitFor({ timeout: 20_000 });
    // the meters move: the fake microphone is heard, and the agent's frames are played
    for (const name of ['Your microphone level', 'Agent voice level']) {
      const meter = dialog.getByRole('meter', { name });
      await expect
        .poll(() => meter.evaluate((el: HTMLMeterElement) => el.value), { timeout: 15_000, interval: 50 })
        .toBeGreaterThan(0);
    }
    // mute is a toggle
    const mute = dialog.getByRole('button', { name: 'Mute' });
    await mute.click();
    expect(await dialog.getByRole('button', { name: 'Unmute' }).getAttribute('aria-pressed')).toBe('true');
    await dialog.getByRole('button', { name: 'Unmute' }).click();
    await dialog.getByRole('button', { name: 'Hang up' }).click();
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toMatch(/^Call ended\. You hung up\.$/);
    const link = dialog.getByRole('link', { name: 'Open this call in Call History' });
    callId = decodeURIComponent((await link.getAttribute('href'))?.split('/').pop() ?? '');
    expect(callId).not.toBe('');
    await dialog.getByRole('button', { name: 'Close' }).click();
  });

  it('the call is in Call History; its detail shows the transcript, latency and cost, and plays the recording', async () => {
    await page.goto(b.url('/dashboard/call-history'));
    const table = page.getByRole('table', { name: 'Call history' });
    const open = table.locator(`a[href="/dashboard/call-history/${callId}"]`);
    await open.waitFor({ timeout: 10_000 });
    await open.click();
    await page.getByRole('heading', { level: 1, name: /^Web call with / }).waitFor();
    const turns = page.getByRole('list', { name: 'Transcript' });
    await turns.getByText(`Happy to help. You said: ${CALLER_WORDS}`).first().waitFor();
    expect(await page.getByRole('table', { name: 'Cost breakdown' }).getByRole('row').count()).toBe(5);
    const latency = page.getByRole('table').filter({ has: page.getByRole('columnheader', { name: 'LLM first token' }) });
    expect(await latency.getByRole('row').count()).toBeGreaterThan(1);
    // the recording plays; the turn being heard is highlighted
    const audio = page.getByLabel('Call recording');
    await expect.poll(() => audio.evaluate((el: HTMLAudioElement) => el.duration), { timeout: 10_000 }).toBeGreaterThan(1);
    await turns.getByRole('button').first().click();
    await expect.poll(() => audio.evaluate((el: HTMLAudioElement) => el.currentTime), { timeout: 10_000 }).toBeGreaterThan(0.3);
    await expect.poll(() => turns.locator('li[aria-current="true"]').count()).toBe(1);
    expect(b.pageErrors).toEqual([]);
    expectOnlyLocalRequests(b.requests);
  });
});

describe('call detail states', () => {
  it('an unknown call says so, with the way back', async () => {
    await page.goto(b.url('/dashboard/call-history/no-such-call'));
    await page.getByRole('heading', { name: 'Call not found' }).waitFor();
    expect(await page.getByRole('link', { name: 'Back to Call History' }).count()).toBeGreaterThan(0);
  });
});

describe('a microphone that is refused', () => {
  it('says so clearly and nothing is left in progress', async () => {
    const denied = await openBrowser(['--use-fake-device-for-media-stream']);
    try {
      const p = await signedInPage(denied, user);
      await p.goto(denied.url(`/dashboard/agents/${agentId}`));
      await p.getByRole('button', { name: 'Test', exact: true }).click();
      const dialog = p.getByRole('dialog', { name: 'Test call' });
      await dialog.getByRole('button', { name: 'Start' }).click();
      await expect
        .poll(() => dialog.getByRole('alert').textContent(), { timeout: 10_000 })
        .toBe(
          'Parley cannot use your microphone. Allow microphone access for this site in your browser, then start the call again.',
        );
      await dialog.getByRole('button', { name: 'Call again' }).waitFor();
      expect(await dialog.getByRole('button', { name: 'Hang up' }).count()).toBe(0);
    } finally {
      await denied.close();
    }
  });
});
