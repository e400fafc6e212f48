import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { insertCalls } from '../../server/modules/calls/call.repo.js';
import { createCallSession } from '../../server/modules/conversations/session.repo.js';
import { verifySignature } from '../../server/modules/webhooks/sign.js';
import { newId } from '../../server/platform/crypto/ids.js';
import { openDatabase } from '../../server/platform/db/index.js';
import type { TranscriptTurn } from '../../src/api/contract/call-runtime.js';
import { openBrowser, type TestBrowser } from './browser.js';
import { type ApiUser, apiCall, createNumberViaApi, signedInPage, signUpViaApi } from './session.js';

/**
 * Function calls on the call detail, in Chromium: a call whose stored transcript has function calls of
 * every status is written into the running server's database (the session row the engine keeps, and its
 * Call History row), and the detail shows each call as a group named 'Function call <name>' with its
 * arguments, its status in words, its duration in ms, and its result behind 'Show result'.
 *
 * Test LLM live: an agent with a custom function `check_availability` pointed at a customer API this test
 * runs on 127.0.0.1 (it checks the X-Parley-Signature with the company's signing secret, like a customer
 * would); the fake OpenAI (provider-fakes.ts) calls the function when asked to 'check availability', and the
 * chat shows the call with its status, duration and result, then the agent's answer from it, and the chat's
 * detail in Call History shows the same call as stored.
 */
let b: TestBrowser;
let page: Page;
let user: ApiUser;

const LINE = '+16175550177';
const CALLER = '+12125550123';

const SLOTS = '{"slots":["2026-12-08T09:00:00Z","2026-12-08T10:30:00Z"]}';
const TRANSCRIPT: TranscriptTurn[] = [
  { role: 'agent', text: 'Hello, Bright Smile Dental. How can I help?', start_ms: 0, end_ms: 2000 },
  { role: 'user', text: 'Is Monday at nine free? And text me the address.', start_ms: 2500, end_ms: 5000 },
  {
    role: 'agent',
    text: 'Let me check.',
    start_ms: 5600,
    end_ms: 9000,
    tool_calls: [
      {
        name: 'check_availability',
        type: 'check_availability_cal',
        arguments: { start: '2026-12-08', end: '2026-12-09' },
        status: 'ok',
        result: SLOTS,
        ms: 412,
      },
      {
        name: 'lookup_patient',
        type: 'custom',
        arguments: { phone: CALLER },
        status: 'timeout',
        result: 'The function timed out after 8000 ms.',
        ms: 8000,
      },
      {
        name: 'book_appointment',
        type: 'book_appointment_cal',
        arguments: { start: 'Monday' },
        status: 'invalid_arguments',
        result: 'Invalid arguments: start must be an ISO 8601 date-time; name is required',
        ms: 0,
      },
      { name: 'send_sms', type: 'send_sms', arguments: { text: '1 Main St' }, status: 'cancelled', result: '', ms: 950 },
      {
        name: 'crm_note',
        type: 'custom',
        arguments: { note: 'asked for Monday' },
        status: 'error',
        result: 'HTTP 500: Internal Server Error',
        ms: 73,
      },
    ],
  },
  {
    role: 'agent',
    text: 'Monday at nine is free. Goodbye!',
    start_ms: 9500,
    end_ms: 12_000,
    tool_calls: [{ name: 'end_call', arguments: { reason: 'done' } }],
  },
];

/** Writes an ended web call with `transcript` into the server's SQLite file, as the engine leaves one. */
async function seedCall(companyId: string, transcript: TranscriptTurn[]): Promise<string> {
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
      from: CALLER,
      to: LINE,
      phoneNumber: LINE,
      variables: {},
      transcript,
      now,
    });
    await database.db
      .updateTable('call_sessions')
      .set({
        status: 'ended',
        started_at: new Date(now.getTime() - 12_000).toISOString(),
        ended_at: now.toISOString(),
        disconnection_reason: 'agent_hangup',
      })
      .where('id', '=', id)
      .where('company_id', '=', companyId)
      .execute();
    await insertCalls(database.db, [
      {
        id,
        company_id: companyId,
        agent_id: null,
        time: now.toISOString(),
        from_number: CALLER,
        to_number: LINE,
        phone_number: LINE,
        duration: 12,
        type: 'inbound',
        cost: 0.02,
        disconnection_reason: 'agent_hangup',
        status: 'ended',
        call_successful: 1,
      },
    ]);
  } finally {
    await database.close();
  }
  return id;
}

const call = (p: Page, name: string) => p.getByRole('group', { name: `Function call ${name}` });

beforeAll(async () => {
  b = await openBrowser();
  user = await signUpViaApi(b.baseUrl, 'Fay Functions');
  await createNumberViaApi(b.baseUrl, user, LINE);
  page = await signedInPage(b, user);
});

afterAll(async () => {
  await b?.close();
});

describe('function calls on the call detail', () => {
  it('each call shows its arguments, status, duration and a result that expands', async () => {
    const id = await seedCall(user.companyId, TRANSCRIPT);
    await page.goto(`${b.baseUrl}/dashboard/call-history/${id}`);
    const transcript = page.getByRole('list', { name: 'Transcript' });
    await transcript.getByText('Let me check.').waitFor();

    const expected = [
      { name: 'check_availability', args: '{"start":"2026-12-08","end":"2026-12-09"}', status: 'OK', ms: '412 ms' },
      { name: 'lookup_patient', args: `{"phone":"${CALLER}"}`, status: 'Timed out', ms: '8000 ms' },
      { name: 'book_appointment', args: '{"start":"Monday"}', status: 'Invalid arguments', ms: '0 ms' },
      { name: 'send_sms', args: '{"text":"1 Main St"}', status: 'Cancelled', ms: '950 ms' },
      { name: 'crm_note', args: '{"note":"asked for Monday"}', status: 'Error', ms: '73 ms' },
    ];
    for (const e of expected) {
      const group = transcript.getByRole('group', { name: `Function call ${e.name}` });
      await expect.poll(() => group.count()).toBe(1);
      const text = await group.textContent();
      expect(text).toContain(`Function called: ${e.name}`);
      expect(text).toContain(`Arguments: ${e.args}`);
      expect(text).toContain(`Status: ${e.status}`);
      expect(text).toContain(`Duration: ${e.ms}`);
      expect(await group.getByRole('button', { name: 'Show result' }).getAttribute('aria-expanded')).toBe('false');
    }

    // the result is collapsed until asked for, and collapses again
    const slots = call(page, 'check_availability');
    await expect.poll(() => slots.getByText(SLOTS).isVisible()).toBe(false);
    await slots.getByRole('button', { name: 'Show result' }).click();
    await expect.poll(() => slots.getByText(SLOTS).isVisible()).toBe(true);
    const hide = slots.getByRole('button', { name: 'Hide result' });
    expect(await hide.getAttribute('aria-expanded')).toBe('true');
    // only the call asked about opened
    await expect.poll(() => call(page, 'crm_note').getByText('HTTP 500: Internal Server Error').isVisible()).toBe(false);
    await hide.click();
    await expect.poll(() => slots.getByText(SLOTS).isVisible()).toBe(false);

    const invalid = call(page, 'book_appointment');
    await invalid.getByRole('button', { name: 'Show result' }).click();
    await expect
      .poll(() => invalid.getByText('Invalid arguments: start must be an ISO 8601 date-time; name is required').isVisible())
      .toBe(true);

    // end_call has no outcome: its name and arguments only
    const end = call(page, 'end_call');
    await expect.poll(() => end.textContent()).toBe('Function called: end_callArguments: {"reason":"done"}');
    expect(await end.getByRole('button').count()).toBe(0);
  });
});

/** The customer's API behind the custom function: refuses a request its signature does not verify. */
class CustomerApi {
  secret = '';
  requests: { verified: boolean; body: { name?: string; args?: Record<string, unknown> } }[] = [];
  private constructor(
    private server: Server,
    readonly url: string,
  ) {}
  static async start(answer: string): Promise<CustomerApi> {
    let api: CustomerApi | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const header = String(req.headers['x-parley-signature'] ?? '');
        const verified = !!api?.secret && verifySignature(api.secret, header, raw, Date.now());
        api?.requests.push({ verified, body: raw ? (JSON.parse(raw) as CustomerApi['requests'][number]['body']) : {} });
        if (!verified || req.method !== 'POST') {
          res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"error":"bad signature"}');
          return;
        }
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(answer);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    api = new CustomerApi(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/availability`);
    return api;
  }
  close() {
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

describe('function calls live in Test LLM', () => {
  let api: CustomerApi;
  let live: ApiUser;
  let livePage: Page;

  beforeAll(async () => {
    api = await CustomerApi.start(SLOTS);
    live = await signUpViaApi(b.baseUrl, 'Lee Live');
    const keys = inject('fakeKeys');
    for (const [name, key] of [
      ['deepgram', keys.deepgram],
      ['openai', keys.openai],
      ['elevenlabs', keys.elevenlabs],
    ] as const) {
      const res = await apiCall(b.baseUrl, live, 'POST', '/provider/values', { name, keys: [{ name: 'API Key', value: key }] });
      expect([200, 201]).toContain(res.status);
    }
    const secret = await apiCall<{ data: { secret: string } }>(b.baseUrl, live, 'POST', '/webhook/secret');
    api.secret = secret.body.data.secret;
    const list = await apiCall<{ data: { agents: { _id: string }[] } }>(b.baseUrl, live, 'GET', '/agent?page=1&limit=10');
    const agentId = list.body.data.agents[0]?._id ?? '';
    const one = await apiCall<{
      data: { agent: Record<string, unknown> & { version: number; editor: Record<string, unknown> } };
    }>(b.baseUrl, live, 'GET', `/agent/${agentId}`);
    const a = one.body.data.agent;
    const saved = await apiCall(b.baseUrl, live, 'PUT', `/agent/${agentId}`, {
      name: a.name,
      prompt: a.prompt,
      message: a.message,
      settings: a.settings,
      editor: {
        ...a.editor,
        functions: [
          { id: 1, name: 'end_call', type: 'end_call' },
          {
            id: 2,
            name: 'check_availability',
            type: 'custom',
            description: 'Free slots on a day',
            url: api.url,
            method: 'POST',
            headers: [],
            parameters: { type: 'object', properties: { date: { type: 'string' } }, required: ['date'] },
            timeout_ms: 8000,
            speak_during: '',
          },
        ],
      },
      version: a.version,
    });
    expect(saved.status).toBe(200);
    livePage = await signedInPage(b, live);
    await livePage.goto(b.url(`/dashboard/agents/${agentId}`));
  });

  afterAll(async () => {
    await api?.close();
  });

  it('the chat shows the function call with its status, duration and result, then the answer from it', async () => {
    await livePage.getByRole('button', { name: 'Test LLM', exact: true }).click();
    const chat = livePage.getByRole('region', { name: 'Test LLM' });
    const log = chat.getByRole('log', { name: 'Chat with the agent' });
    const message = chat.getByRole('textbox', { name: 'Message' });
    await expect.poll(() => message.isEnabled()).toBe(true);
    await message.fill('Please check availability for Monday');
    await chat.getByRole('button', { name: 'Send' }).click();

    const fn = log.getByRole('group', { name: 'Function call check_availability' });
    await expect.poll(() => fn.textContent()).toContain('Status: OK');
    const text = await fn.textContent();
    expect(text).toContain('Arguments: {"date":"2026-12-08"}');
    expect(text).toMatch(/Duration: \d+ ms/);
    await fn.getByRole('button', { name: 'Show result' }).click();
    await expect.poll(() => fn.getByText(SLOTS).isVisible()).toBe(true);
    await log.getByText(`The function answered: ${SLOTS}`).waitFor();
    // the customer's API got one signed request with the model's arguments
    expect(api.requests).toEqual([
      { verified: true, body: expect.objectContaining({ name: 'check_availability', args: { date: '2026-12-08' } }) },
    ]);
    await chat.getByRole('button', { name: 'Close chat' }).click();

    // the chat's detail shows the same call, its status and result as stored
    const calls = async () =>
      (await apiCall<{ data: { calls: { _id: string }[] } }>(b.baseUrl, live, 'GET', '/call?type=chat')).body.data.calls;
    await expect.poll(async () => (await calls()).length).toBe(1);
    const [stored] = await calls();
    await livePage.goto(b.url(`/dashboard/call-history/${stored?._id}`));
    const detail = livePage
      .getByRole('list', { name: 'Transcript' })
      .getByRole('group', { name: 'Function call check_availability' });
    await expect.poll(() => detail.textContent()).toContain('Status: OK');
  });
});
