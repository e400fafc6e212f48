import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { afterEach, beforeEach, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CALL_RUNTIME_MESSAGES } from '../../../src/api/contract/call-runtime.js';
import { TELEPHONY_MESSAGES } from '../../../src/api/contract/telephony.js';
import type { TwilioFake } from '../../fakes/twilio.js';
import { signUp } from '../auth-helpers.js';
import { describeEachDb } from '../helpers.js';
import { insertCalls, insertNumber } from '../seed.js';
import { type PhoneWorld, startTwilioWorld } from '../telephony/phone-world.js';
import { type BrowserSocket, type CallServer, openBrowser, sampleAgent, savePayload, waitFor } from './harness.js';

/**
 * The company's limits on web calls and chats, and the life of call sockets (docs/call-runtime.md 'Limits'):
 * a web call is admitted like a phone call (monthly spend 402, concurrency 429 under the company lock), a chat
 * is refused over the spend limit, a socket whose peer stops answering pings is dropped and its call stored,
 * and a company holds at most its cap of call sockets on one server. Real sockets, the protocol fakes of
 * tests/fakes (Deepgram, OpenAI, ElevenLabs, Twilio).
 */
describeEachDb('limits of web calls, chats and call sockets', (kind) => {
  let world: PhoneWorld<TwilioFake>;
  let s: CallServer;
  const NUMBER = '+14155550100';

  beforeEach(async () => {
    world = await startTwilioWorld(kind);
    s = world.s;
    world.eleven.msPerChar = 4;
  });
  afterEach(() => world.close());

  /** The company's limits, as Billing > Limits saves them. */
  async function limits(concurrencyLimit: number, monthlySpendLimit: number) {
    const res = await s.t.req('PUT', '/api/v1/billing/limits', {
      token: s.user.token,
      body: { concurrencyLimit, monthlySpendLimit },
    });
    expect(res.status).toBe(200);
  }

  /** The sample agent, with no silence or duration limit (a call ends only when a side hangs up). */
  async function endlessAgent() {
    const agent = await sampleAgent(s);
    return {
      agent_id: agent._id,
      agent: savePayload(agent, {
        message: '',
        editor: { ...(agent.editor as object), endCallOnSilence: 0, maxCallDuration: 0 },
      }),
    };
  }

  async function startWeb(body: Record<string, unknown>, token = s.user.token) {
    const res = await s.t.req('POST', '/api/v1/call/web', { token, body });
    return { status: res.status, body: (await res.json()) as { msg?: string; data: { call_id: string; access_token: string } } };
  }

  const statusOf = async (callId: string) =>
    (await s.t.deps.db.db.selectFrom('call_sessions').select('status').where('id', '=', callId).executeTakeFirst())?.status;

  const stored = (callId: string) =>
    waitFor(async () => {
      const row = await s.t.deps.db.db
        .selectFrom('call_sessions')
        .select(['status', 'disconnection_reason'])
        .where('id', '=', callId)
        .executeTakeFirst();
      return row && row.status !== 'ongoing' && row.status !== 'registered' ? row : undefined;
    }, 'the call stored');

  /** A Twilio number of the company, answering and dialling with `agentId`. */
  async function numberWithAgent(agentId: string) {
    const id = await insertNumber(s.t, s.user.companyId, NUMBER);
    await s.t.deps.db.db
      .updateTable('phone_numbers')
      .set({ inbound_agent_id: agentId, outbound_agent_id: agentId })
      .where('id', '=', id)
      .execute();
  }

  const dial = () =>
    s.t.req('POST', '/api/v1/call/create', { token: s.user.token, body: { from_number: NUMBER, to_number: '+14155550123' } });

  it('100 web calls at a concurrency limit of 1: one is taken, 99 answered 429 like a phone call; dialling works once it ends', async () => {
    await limits(1, 1000);
    const body = await endlessAgent();
    await numberWithAgent(body.agent_id);
    const answers = await Promise.all(Array.from({ length: 100 }, () => startWeb(body)));
    const taken = answers.filter((a) => a.status === 201);
    expect(taken).toHaveLength(1);
    const refused = answers.filter((a) => a.status !== 201);
    expect(refused).toHaveLength(99);
    for (const r of refused)
      expect(r).toEqual({ status: 429, body: { success: false, msg: TELEPHONY_MESSAGES.concurrencyLimit(1) } });
    expect(await s.t.deps.db.db.selectFrom('call_sessions').select('id').where('type', '=', 'web').execute()).toHaveLength(1);

    // the line is the web call's: a phone call is refused with the same answer while it lasts
    const web = taken[0]?.body.data as { call_id: string; access_token: string };
    const browser = openBrowser(s, web.call_id, web.access_token);
    await browser.opened;
    const busy = await dial();
    expect(busy.status).toBe(429);
    expect(await busy.json()).toEqual({ success: false, msg: TELEPHONY_MESSAGES.concurrencyLimit(1) });

    browser.ws.send(JSON.stringify({ type: 'hangup' }));
    await browser.closed;
    expect((await stored(web.call_id)).disconnection_reason).toBe('user_hangup');
    const placed = await dial();
    expect(placed.status, await placed.clone().text()).toBe(201);
    const callId = ((await placed.json()) as { data: { call_id: string } }).data.call_id;
    // the phone call holds the line now: a web call waits its turn
    expect((await startWeb(body)).status).toBe(429);
    const call = await waitFor(() => world.carrier.calls.find((c) => c.stream), 'the phone stream');
    await call.stream?.opened;
    world.carrier.hangUpCaller(call);
    await stored(callId);
  });

  it('over the monthly spend limit a web call, a new chat and a chat message are refused 402 like a phone call', async () => {
    await limits(10, 1);
    const body = await endlessAgent();
    await numberWithAgent(body.agent_id);
    const chat = await s.t.req('POST', '/api/v1/chat', { token: s.user.token, body });
    expect(chat.status).toBe(201);
    const chatId = ((await chat.json()) as { data: { chat_id: string } }).data.chat_id;
    // this month's calls cost $1.50: past the $1 limit
    await insertCalls(s.t, s.user.companyId, [{ time: s.t.clock.now().toISOString(), duration: 60, cost: 1.5 }]);

    const refusal = { success: false, msg: TELEPHONY_MESSAGES.spendLimit };
    const phone = await dial();
    expect([phone.status, await phone.json()]).toEqual([402, refusal]);
    const web = await startWeb(body);
    expect([web.status, web.body]).toEqual([402, refusal]);
    const newChat = await s.t.req('POST', '/api/v1/chat', { token: s.user.token, body });
    expect([newChat.status, await newChat.json()]).toEqual([402, refusal]);
    const message = await s.t.req('POST', `/api/v1/chat/${chatId}/message`, { token: s.user.token, body: { content: 'Hi' } });
    expect([message.status, await message.json()]).toEqual([402, refusal]);
    expect(world.openai.chatRequests).toHaveLength(0);
    expect(await s.t.deps.db.db.selectFrom('call_sessions').select('id').where('type', '=', 'web').execute()).toHaveLength(0);
  });

  /**
   * A browser that completes the upgrade and then never reads again (a frozen tab, a peer gone without a
   * FIN): raw TCP, so nothing answers the server's pings.
   */
  async function frozenBrowser(callId: string, token: string): Promise<net.Socket> {
    const port = Number(new URL(s.baseUrl).port);
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => {});
    const key = randomBytes(16).toString('base64');
    socket.write(
      `GET /api/v1/call/web/${callId}/stream?token=${encodeURIComponent(token)} HTTP/1.1\r\n` +
        `Host: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
    const head = await new Promise<string>((resolve) => {
      let text = '';
      const onData = (d: Buffer) => {
        text += d.toString('latin1');
        if (text.includes('\r\n\r\n')) {
          socket.off('data', onData);
          socket.pause();
          resolve(text);
        }
      };
      socket.on('data', onData);
    });
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 101 Switching Protocols');
    return socket;
  }

  it('a socket that stops answering pings is dropped and its call stored; a browser that answers stays on', async () => {
    s.t.deps.config.callPingMs = 100;
    const body = await endlessAgent();
    const frozen = await startWeb(body);
    const live = await startWeb(body);
    expect([frozen.status, live.status]).toEqual([201, 201]);
    const tcp = await frozenBrowser(frozen.body.data.call_id, frozen.body.data.access_token);
    const browser = openBrowser(s, live.body.data.call_id, live.body.data.access_token);
    let pings = 0;
    browser.ws.on('ping', () => pings++);
    await browser.opened;
    expect(await statusOf(frozen.body.data.call_id)).toBe('ongoing');

    // the caller's side went away: stored like a hang-up
    expect(await stored(frozen.body.data.call_id)).toEqual({ status: 'ended', disconnection_reason: 'user_hangup' });
    expect(s.rt.live.has(frozen.body.data.call_id)).toBe(false);
    // the answering browser has been pinged past the point the frozen one was dropped, and is still on
    await waitFor(() => pings >= 4, 'pings answered');
    expect(await statusOf(live.body.data.call_id)).toBe('ongoing');
    expect(browser.ws.readyState).toBe(WebSocket.OPEN);
    tcp.destroy();
    browser.ws.send(JSON.stringify({ type: 'hangup' }));
    await browser.closed;
  });

  it("a company holds at most its cap of call sockets on a server; the next is refused 429 and stored, another company's is not", async () => {
    s.t.deps.config.callSocketsPerCompany = 2;
    const body = await endlessAgent();
    const open: BrowserSocket[] = [];
    for (let i = 0; i < 2; i++) {
      const web = await startWeb(body);
      const b = openBrowser(s, web.body.data.call_id, web.body.data.access_token);
      await b.opened;
      open.push(b);
    }
    const third = await startWeb(body);
    expect(third.status).toBe(201);
    const refused = new WebSocket(
      `${s.wsUrl}/api/v1/call/web/${third.body.data.call_id}/stream?token=${encodeURIComponent(third.body.data.access_token)}`,
    );
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      refused.once('unexpected-response', (_req, res) => {
        let text = '';
        res.on('data', (d: Buffer) => {
          text += d.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      refused.once('open', () => reject(new Error('the socket over the cap was accepted')));
    });
    expect(answer.status).toBe(429);
    expect(s.rt.openSockets.get(s.user.companyId)).toBe(2);
    expect(JSON.parse(answer.body)).toEqual({ success: false, msg: CALL_RUNTIME_MESSAGES.tooManySockets });
    expect(await stored(third.body.data.call_id)).toEqual({ status: 'ended', disconnection_reason: 'concurrency_limit_reached' });

    // another company's sockets are its own
    const other = await signUp(s.t);
    for (const [name, key] of [
      ['deepgram', world.deepgram.key],
      ['openai', world.openai.apiKey],
      ['elevenlabs', world.eleven.key],
    ] as const) {
      const res = await s.t.req('POST', '/api/v1/provider/values', {
        token: other.token,
        body: { name, keys: [{ name: 'API Key', value: key }] },
      });
      expect(res.status).toBeLessThan(300);
    }
    const theirs = await startWeb({ agent_id: 'new', agent: body.agent }, other.token);
    expect(theirs.status).toBe(201);
    const theirBrowser = openBrowser(s, theirs.body.data.call_id, theirs.body.data.access_token);
    await theirBrowser.opened;

    // a socket closed frees its place
    open[0]?.ws.send(JSON.stringify({ type: 'hangup' }));
    await open[0]?.closed;
    await waitFor(() => s.rt.openSockets.get(s.user.companyId) === 1, 'the socket released');
    const again = await startWeb(body);
    const b = openBrowser(s, again.body.data.call_id, again.body.data.access_token);
    await b.opened;
    for (const x of [open[1], b, theirBrowser]) {
      x?.ws.send(JSON.stringify({ type: 'hangup' }));
      await x?.closed;
    }
  });
});
