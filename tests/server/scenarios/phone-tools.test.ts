import { afterEach, beforeEach, expect, it } from 'vitest';
import { FakeIvr } from '../../fakes/ivr.js';
import { FakeMcpServer } from '../../fakes/mcp-server.js';
import type { TwilioFake } from '../../fakes/twilio.js';
import { WhatsAppFake } from '../../fakes/whatsapp.js';
import { type CallServer, waitFor } from '../call/harness.js';
import { describeEachDb } from '../helpers.js';
import { agentOnCarrierNumber, type PhoneWorld, startTwilioWorld } from '../telephony/phone-world.js';

/**
 * Scenarios of phone calls on the fake Twilio (real media-stream sockets) through the real engine: the
 * fake OpenAI asks for the agent's functions, which reach their providers' fakes (an MCP server, the
 * IVR at the far end of the line, Twilio Messages, the WhatsApp Cloud API), and what the agent says is
 * what the caller hears (the fake ElevenLabs' texts) and what the transcript stores.
 */

type Msg = { role: string; content?: unknown };
type Turn = { role: string; text: string; tool_calls?: { name: string; type: string; status: string; result: string }[] };

describeEachDb('scenario: agents that act on phone calls', (kind) => {
  let world: PhoneWorld<TwilioFake>;
  let s: CallServer;
  let twilio: TwilioFake;
  const NUMBER = '+14155550100';
  const CALLER = '+14155550177';

  beforeEach(async () => {
    world = await startTwilioWorld(kind);
    ({ s, carrier: twilio } = world);
    world.eleven.msPerChar = 4;
  });
  afterEach(() => world.close());

  const voiceUrl = () => `${s.baseUrl}/api/v1/telephony/twilio/voice`;
  const lastOf = (req: { messages: unknown[] }) => req.messages.at(-1) as Msg;
  /** what the caller heard: every text the voice fake was given */
  const heard = () => world.eleven.streams.flatMap((r) => r.texts).join('');
  const stored = (sid: string) =>
    waitFor(async () => {
      const row = await s.t.deps.db.db
        .selectFrom('call_sessions')
        .selectAll()
        .where('provider_call_id', '=', sid)
        .executeTakeFirst();
      return row?.status === 'ended' ? (JSON.parse(row.transcript) as Turn[]) : undefined;
    }, 'the call stored');
  /** the agent's turn saying `text` is in the stored transcript (it is written once the caller has heard it) */
  const answerStored = (sid: string, text: string) =>
    waitFor(async () => {
      const row = await s.t.deps.db.db
        .selectFrom('call_sessions')
        .select('transcript')
        .where('provider_call_id', '=', sid)
        .executeTakeFirst();
      return row?.transcript.includes(text) ? true : undefined;
    }, `"${text}" stored`);

  /** An inbound call answered with `greeting`; the caller says `words` once it has been heard. */
  async function callerSays(greeting: string, words: string) {
    const { call } = await twilio.inbound(voiceUrl(), CALLER, NUMBER);
    const line = await waitFor(() => call.stream, 'the stream');
    await line.opened;
    await waitFor(() => line.echoedMarks.length > 0 && line.playedBytes >= 8 * 4 * greeting.length, 'the greeting heard');
    world.deepgram.script.push(words);
    line.say(400);
    return { call, line };
  }

  it('an MCP tool used in a phone call: listed, called with tools/call, and its answer spoken to the caller', async () => {
    const mcp = await FakeMcpServer.start();
    try {
      s.t.deps.config.allowPrivateToolUrls = true;
      await agentOnCarrierNumber(s, 'twilio', NUMBER, {
        message: 'Hello, this is the shop.',
        editor: {
          functions: [
            {
              id: 1,
              type: 'mcp',
              name: 'shop',
              url: mcp.url,
              headers: [{ name: 'Authorization', value: `Bearer ${mcp.token}` }],
              allowed_tools: ['lookup_order'],
            },
          ],
        },
      });
      world.openai.scriptChat((req) =>
        lastOf(req).role === 'tool'
          ? { text: String(lastOf(req).content) }
          : { toolCalls: [{ name: 'shop__lookup_order', arguments: { order: '12345' } }] },
      );
      const { call, line } = await callerSays('Hello, this is the shop.', 'Where is my order 12345?');
      await waitFor(() => heard().includes('Order 12345 ships on Friday.'), 'the answer spoken');
      await answerStored(call.sid, 'Order 12345 ships on Friday.');
      // only the allowed tool was offered, under the function's name
      const offered = (world.openai.chatRequests[0]?.body.tools ?? []) as { function: { name: string } }[];
      expect(offered.map((t) => t.function.name)).toEqual(['shop__lookup_order']);
      expect(mcp.methods).toContain('tools/list');
      expect(mcp.methods).toContain('tools/call');
      expect(mcp.requests.every((r) => r.authorized)).toBe(true);
      twilio.hangUpCaller(call);
      await call.done;
      expect(line.violations).toEqual([]);
      const transcript = await stored(call.sid);
      const calls = transcript.flatMap((t) => t.tool_calls ?? []);
      expect(calls).toEqual([
        expect.objectContaining({
          name: 'shop__lookup_order',
          type: 'mcp',
          status: 'ok',
          result: 'Order 12345 ships on Friday.',
        }),
      ]);
      expect(transcript.at(-1)?.text).toBe('Order 12345 ships on Friday.');
    } finally {
      await mcp.close();
    }
  });

  it('an outbound call: the model itself presses 2 and the IVR routes the call to billing', async () => {
    await agentOnCarrierNumber(s, 'twilio', NUMBER, {
      message: '',
      // a menu talking over the agent does not interrupt it: the keys' turn ends before the menu's answer
      editor: { interruption: 0, functions: [{ id: 1, name: 'press_digit', type: 'press_digit' }] },
    });
    const ivr = new FakeIvr(
      { prompt: 'Press 1 for appointments, 2 for billing.', options: { '1': 'Appointments.', '2': 'Billing department.' } },
      (text) => world.deepgram.script.push(text),
    );
    twilio.callee = (stream) => ivr.attach(stream);
    world.openai.scriptChat((req) => {
      const last = lastOf(req);
      if (last.role === 'tool') return { text: 'Thanks.' };
      if (String(last.content).includes('Billing department')) return { text: 'Hello, I have a question about my invoice.' };
      if (String(last.content).includes('2 for billing'))
        // words first: a turn that has said nothing is dropped (its function calls with it) when the menu talks
        return { text: 'Billing, please.', toolCalls: [{ name: 'press_digit', arguments: { digits: '2' } }] };
      return { text: 'Sorry?' };
    });
    const TO = '+14155550123';
    const res = await s.t.req('POST', '/api/v1/call/create', {
      token: s.user.token,
      body: { from_number: NUMBER, to_number: TO },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const call = await waitFor(() => twilio.calls.find((c) => c.to === TO), 'the call placed');
    const line = await waitFor(() => call.stream, 'the stream');
    await waitFor(() => heard().includes('Hello, I have a question about my invoice.'), 'billing reached', 20_000);
    // the IVR decoded one key from the agent's audio: the 2 the model asked for
    expect(ivr.heard.map((k) => k.key)).toEqual(['2']);
    expect(ivr.said).toEqual(['Press 1 for appointments, 2 for billing.', 'Billing department.']);
    const toolMessages = world.openai.chatRequests.flatMap((r) =>
      (r.body.messages as Msg[]).filter((m) => m.role === 'tool').map((m) => String(m.content)),
    );
    expect(toolMessages).toContain('Pressed 2');
    await answerStored(call.sid, 'Hello, I have a question about my invoice.');
    twilio.hangUpCaller(call);
    await call.done;
    expect(line.violations).toEqual([]);
    const transcript = await stored(call.sid);
    expect(transcript.flatMap((t) => t.tool_calls ?? []).map((c) => [c.name, c.type, c.status])).toEqual([
      ['press_digit', 'press_digit', 'ok'],
    ]);
    expect(transcript.filter((t) => t.role === 'user').map((t) => t.text)).toEqual([
      'Press 1 for appointments, 2 for billing.',
      'Billing department.',
    ]);
  });

  it('a caller types a 4-digit code: the model reads back the digits it received and the caller hears them', async () => {
    const GREETING = 'Please type your four digit code.';
    await agentOnCarrierNumber(s, 'twilio', NUMBER, {
      message: GREETING,
      editor: { dtmf_max_digits: 4, dtmf_timeout_ms: 20_000 },
    });
    // the fake model reads back whatever keys it was told of
    world.openai.scriptChat((req) => {
      const keys = /^The caller pressed ([0-9 ]+)/.exec(String(lastOf(req).content))?.[1]?.trim();
      return { text: keys ? `Your code is ${keys}.` : 'Sorry?' };
    });
    const { call } = await twilio.inbound(voiceUrl(), CALLER, NUMBER);
    const line = await waitFor(() => call.stream, 'the stream');
    await line.opened;
    await waitFor(() => line.echoedMarks.length > 0 && line.playedBytes >= 8 * 4 * GREETING.length, 'the greeting heard');
    for (const key of ['4', '8', '1', '5']) line.press(key);
    await waitFor(() => heard().includes('Your code is 4 8 1 5.'), 'the code read back');
    await answerStored(call.sid, 'Your code is 4 8 1 5.');
    twilio.hangUpCaller(call);
    await call.done;
    expect(line.violations).toEqual([]);
    const transcript = await stored(call.sid);
    expect(transcript.map((t) => [t.role, t.text])).toEqual([
      ['agent', GREETING],
      ['user', 'The caller pressed 4 8 1 5'],
      ['agent', 'Your code is 4 8 1 5.'],
    ]);
  });

  it('an SMS (Twilio Messages, from the call’s number) and a WhatsApp template sent during the call by the model', async () => {
    const wa = await WhatsAppFake.start();
    try {
      twilio.numbers.add(NUMBER);
      wa.templates.push({ name: 'appointment_confirmation', language: 'en_US', bodyParameters: 1 });
      s.t.deps.config.providerUrls = { ...s.t.deps.config.providerUrls, whatsapp: wa.url };
      const card = await s.t.req('POST', '/api/v1/provider/values', {
        token: s.user.token,
        body: {
          name: 'whatsapp',
          keys: [
            { name: 'Phone Number ID', value: wa.phoneNumberId },
            { name: 'Access Token', value: wa.accessToken },
          ],
        },
      });
      expect(card.status).toBeLessThan(300);
      await agentOnCarrierNumber(s, 'twilio', NUMBER, {
        message: 'Hello, this is the clinic.',
        editor: {
          functions: [
            { id: 1, type: 'send_sms', name: 'send_sms' },
            { id: 2, type: 'send_whatsapp', name: 'send_whatsapp', template_name: 'appointment_confirmation', language: 'en_US' },
          ],
        },
      });
      world.openai.scriptChat((req) =>
        lastOf(req).role === 'tool'
          ? { text: 'I sent you a text and a WhatsApp message.' }
          : {
              toolCalls: [
                { name: 'send_sms', arguments: { text: 'The clinic is at 1 Main Street.' } },
                { name: 'send_whatsapp', arguments: { parameters: ['Monday at 10:00'] } },
              ],
            },
      );
      const { call, line } = await callerSays('Hello, this is the clinic.', 'Send me the address and my appointment, please.');
      await waitFor(() => heard().includes('I sent you a text and a WhatsApp message.'), 'the answer spoken');
      await answerStored(call.sid, 'I sent you a text and a WhatsApp message.');
      expect(twilio.messages.map((m) => ({ from: m.from, to: m.to, body: m.body }))).toEqual([
        { from: NUMBER, to: CALLER, body: 'The clinic is at 1 Main Street.' },
      ]);
      expect(wa.sent.map((m) => ({ to: m.to, name: m.name, language: m.language, parameters: m.parameters }))).toEqual([
        { to: CALLER.slice(1), name: 'appointment_confirmation', language: 'en_US', parameters: ['Monday at 10:00'] },
      ]);
      twilio.hangUpCaller(call);
      await call.done;
      expect(line.violations).toEqual([]);
      const transcript = await stored(call.sid);
      expect(transcript.flatMap((t) => t.tool_calls ?? []).map((c) => [c.name, c.type, c.status])).toEqual([
        ['send_sms', 'send_sms', 'ok'],
        ['send_whatsapp', 'send_whatsapp', 'ok'],
      ]);
      expect(JSON.stringify(transcript)).not.toContain(wa.accessToken);
    } finally {
      await wa.close();
    }
  });
});
