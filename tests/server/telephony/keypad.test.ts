import { afterEach, beforeEach, expect, it } from 'vitest';
import { callRuntimeOf } from '../../../server/voice/engine/call-runtime.js';
import { pressDigitTool, toolPhoneLine } from '../../../server/voice/tools/press-digit/index.js';
import type { ToolEnv } from '../../../server/voice/tools/types.js';
import type { DeepgramFake } from '../../fakes/deepgram.js';
import type { ElevenLabsFake } from '../../fakes/elevenlabs.js';
import { FakeIvr } from '../../fakes/ivr.js';
import type { FakeOpenAi } from '../../fakes/openai.js';
import type { PlivoFake } from '../../fakes/plivo.js';
import type { TwilioFake } from '../../fakes/twilio.js';
import { type CallServer, openBrowser, sampleAgent, savePayload, waitFor } from '../call/harness.js';
import { describeEachDb } from '../helpers.js';
import { agentOnCarrierNumber, type PhoneWorld, startPlivoWorld, startTwilioWorld } from './phone-world.js';

/**
 * The keypad on Twilio phone calls, end to end on real sockets: a caller's keys arrive as the media
 * stream's `dtmf` messages and reach the model and the transcript as the caller's turn; the agent's keys
 * (press_digit) are DTMF tones in its audio that the fake IVR at the far end decodes (Goertzel) and
 * answers by menu.
 */
describeEachDb('the keypad on phone calls', (kind) => {
  let deepgram: DeepgramFake;
  let openai: FakeOpenAi;
  let eleven: ElevenLabsFake;
  let twilio: TwilioFake;
  let s: CallServer;
  let world: PhoneWorld<TwilioFake>;
  const NUMBER = '+14155550100';
  const CALLER = '+14155550177';

  beforeEach(async () => {
    world = await startTwilioWorld(kind);
    ({ deepgram, openai, eleven, carrier: twilio, s } = world);
    eleven.msPerChar = 6;
  });
  afterEach(() => world.close());

  const voiceUrl = () => `${s.baseUrl}/api/v1/telephony/twilio/voice`;

  const storedTranscript = (sid: string) =>
    waitFor(async () => {
      const row = await s.t.deps.db.db
        .selectFrom('call_sessions')
        .selectAll()
        .where('provider_call_id', '=', sid)
        .executeTakeFirst();
      return row?.status === 'ended' ? (JSON.parse(row.transcript) as { role: string; text: string }[]) : undefined;
    }, 'the call stored');

  /** every message text the LLM fake was sent */
  const llmSaw = () =>
    openai.chatRequests.flatMap((r) =>
      ((r.body.messages ?? []) as { role: string; content?: unknown }[]).map((m) => `${m.role}: ${String(m.content)}`),
    );

  it('a caller types a 4-digit code: the model reads "The caller pressed 1 2 3 4 #" and the transcript shows it as theirs', async () => {
    await agentOnCarrierNumber(s, 'twilio', NUMBER, {
      message: 'Please type your code, then the pound key.',
      editor: { dtmf_max_digits: 0, dtmf_timeout_ms: 3000 },
    });
    openai.scriptChat([{ text: 'Your code is 1 2 3 4.' }]);
    const { call } = await twilio.inbound(voiceUrl(), CALLER, NUMBER);
    const line = await waitFor(() => call.stream, 'the stream');
    await line.opened;
    await waitFor(() => line.echoedMarks.length > 0 && line.playedBytes >= 8 * 6 * 40, 'the greeting played');
    for (const key of ['1', '2', '3', '4', '#']) line.press(key);
    await waitFor(() => llmSaw().includes('user: The caller pressed 1 2 3 4 #'), 'the model got the keys');
    await waitFor(() => line.of('media').length > 0 && openai.chatRequests.every((r) => r.completed), 'the answer');
    await waitFor(async () => {
      const row = await s.t.deps.db.db
        .selectFrom('call_sessions')
        .select('transcript')
        .where('provider_call_id', '=', call.sid)
        .executeTakeFirst();
      return row?.transcript.includes('Your code is') ? true : undefined;
    }, 'the answer stored');
    twilio.hangUpCaller(call);
    await call.done;
    expect(line.violations).toEqual([]);
    const transcript = await storedTranscript(call.sid);
    expect(transcript.map((t) => [t.role, t.text])).toEqual([
      ['agent', 'Please type your code, then the pound key.'],
      ['user', 'The caller pressed 1 2 3 4 #'],
      ['agent', 'Your code is 1 2 3 4.'],
    ]);
  });

  it("the agent's digit count ends the entry without '#'", async () => {
    await agentOnCarrierNumber(s, 'twilio', NUMBER, {
      message: 'Your four digit code, please.',
      editor: { dtmf_max_digits: 4, dtmf_timeout_ms: 20_000 },
    });
    openai.scriptChat([{ text: 'Thank you.' }]);
    const { call } = await twilio.inbound(voiceUrl(), CALLER, NUMBER);
    const line = await waitFor(() => call.stream, 'the stream');
    await line.opened;
    await waitFor(() => line.echoedMarks.length > 0 && line.playedBytes >= 8 * 6 * 29, 'the greeting played');
    for (const key of ['9', '0', '1', '7']) line.press(key);
    await waitFor(() => llmSaw().includes('user: The caller pressed 9 0 1 7'), 'the model got the keys');
    twilio.hangUpCaller(call);
    await call.done;
  });

  it('press_digit on an outbound call: the tones come after what the agent says, and the IVR routes the call to billing', async () => {
    eleven.msPerChar = 40;
    await agentOnCarrierNumber(s, 'twilio', NUMBER, {
      message: '',
      editor: { functions: [{ id: 1, name: 'press_digit', type: 'press_digit' }] },
    });
    const ivr = new FakeIvr(
      { prompt: 'Press 1 for appointments, 2 for billing.', options: { '1': 'Appointments.', '2': 'Billing department.' } },
      (text) => deepgram.script.push(text),
    );
    twilio.callee = (stream) => ivr.attach(stream);
    const REPLY = 'Billing, please.';
    openai.scriptChat([{ text: REPLY }, { text: 'Hello, I have a question about my invoice.' }]);
    const TO = '+14155550123';
    const res = await s.t.req('POST', '/api/v1/call/create', {
      token: s.user.token,
      body: { from_number: NUMBER, to_number: TO },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const callId = ((await res.json()) as { data: { call_id: string } }).data.call_id;
    const call = await waitFor(() => twilio.calls.find((c) => c.to === TO), 'the call placed');
    const line = await waitFor(() => call.stream, 'the stream');
    // the agent answers the menu: once its whole sentence is queued (mu-law: 8 bytes a ms), the keys go after it
    const queuedMs = () =>
      line
        .of('media')
        .reduce(
          (n, m) => n + Buffer.from(String((m.media as { payload?: string } | undefined)?.payload ?? ''), 'base64').length / 8,
          0,
        );
    await waitFor(() => queuedMs() >= REPLY.length * 40 - 20, 'the agent has sent its sentence');
    const conversation = callRuntimeOf(s.t.deps)?.live.get(callId);
    const phone = toolPhoneLine(conversation?.audio, 'twilio');
    expect(phone).toBeDefined();
    const env = { phone, signal: AbortSignal.timeout(8000) } as unknown as ToolEnv;
    const fn = { id: 1, name: 'press_digit', type: 'press_digit' as const, description: '', speak_during: '', timeout_ms: 8000 };
    const [tool] = await pressDigitTool.prepare(fn, env);
    expect(await tool?.run({ digits: '2' }, env)).toEqual({ ok: true, result: 'Pressed 2' });
    // the IVR heard '2' once the tone had played, after the agent's sentence
    expect(ivr.heard.map((k) => k.key)).toEqual(['2']);
    expect(ivr.heard[0]?.atMs).toBeGreaterThanOrEqual(REPLY.length * 40 - 20);
    await waitFor(() => llmSaw().includes('user: Billing department.'), 'the model heard the department');
    expect(ivr.said).toEqual(['Press 1 for appointments, 2 for billing.', 'Billing department.']);
    twilio.hangUpCaller(call);
    await call.done;
    expect(line.violations).toEqual([]);
    const transcript = await storedTranscript(call.sid);
    expect(transcript.filter((t) => t.role === 'user').map((t) => t.text)).toEqual([
      'Press 1 for appointments, 2 for billing.',
      'Billing department.',
    ]);
  });

  it('press_digit in a web call is refused with a clear result, and nothing is played', async () => {
    const agent = await sampleAgent(s);
    const res = await s.t.req('POST', '/api/v1/call/web', {
      token: s.user.token,
      body: { agent_id: agent._id, agent: savePayload(agent, { message: '' }) },
    });
    expect(res.status).toBe(201);
    const { data } = (await res.json()) as { data: { call_id: string; access_token: string } };
    const browser = openBrowser(s, data.call_id, data.access_token);
    await browser.opened;
    const conversation = await waitFor(() => callRuntimeOf(s.t.deps)?.live.get(data.call_id), 'the web call live');
    expect(conversation.audio?.kind).toBe('web');
    const phone = toolPhoneLine(conversation.audio, 'twilio');
    expect(phone).toBeUndefined();
    const env = { phone, signal: AbortSignal.timeout(8000) } as unknown as ToolEnv;
    const fn = { id: 1, name: 'press_digit', type: 'press_digit' as const, description: '', speak_during: '', timeout_ms: 8000 };
    const [tool] = await pressDigitTool.prepare(fn, env);
    expect(await tool?.run({ digits: '2' }, env)).toEqual({ ok: false, result: 'Pressing keys only works on phone calls' });
    browser.ws.send(JSON.stringify({ type: 'hangup' }));
    await browser.closed;
  });
});

describeEachDb('the keypad on Plivo phone calls', (kind) => {
  let openai: FakeOpenAi;
  let plivo: PlivoFake;
  let s: CallServer;
  let world: PhoneWorld<PlivoFake>;
  const NUMBER = '+14155550101';
  const CALLER = '+14155550177';

  beforeEach(async () => {
    world = await startPlivoWorld(kind);
    ({ openai, carrier: plivo, s } = world);
    world.eleven.msPerChar = 20;
  });
  afterEach(() => world.close());

  it("keys pressed while the agent speaks (Plivo's dtmf messages) become the caller's turn once it has finished", async () => {
    const GREETING = 'Welcome to the clinic. Type your patient number and then the pound key.';
    await agentOnCarrierNumber(s, 'plivo', NUMBER, { message: GREETING });
    openai.scriptChat([{ text: 'Thank you, I found your file.' }]);
    const { call } = await plivo.inbound(`${s.baseUrl}/api/v1/telephony/plivo/answer`, CALLER, NUMBER);
    const line = await waitFor(() => call.stream, 'the stream');
    await line.opened;
    await waitFor(() => line.playedBytes > 0, 'the greeting started');
    for (const key of ['4', '2', '#']) line.press(key);
    await waitFor(
      () => openai.chatRequests.some((r) => JSON.stringify(r.body.messages).includes('The caller pressed 4 2 #')),
      'the model got the keys',
    );
    // the greeting was heard to its end first: the keys did not cut it
    expect(line.playedBytes).toBeGreaterThanOrEqual(GREETING.length * 20 * 8 - 160);
    await waitFor(async () => {
      const r = await s.t.deps.db.db
        .selectFrom('call_sessions')
        .select('transcript')
        .where('provider_call_id', '=', call.uuid)
        .executeTakeFirst();
      return r?.transcript.includes('I found your file') ? true : undefined;
    }, 'the answer stored');
    plivo.hangUpCaller(call);
    await call.done;
    expect(line.violations).toEqual([]);
    const row = await waitFor(async () => {
      const r = await s.t.deps.db.db
        .selectFrom('call_sessions')
        .selectAll()
        .where('provider_call_id', '=', call.uuid)
        .executeTakeFirst();
      return r?.status === 'ended' ? r : undefined;
    }, 'stored');
    const transcript = JSON.parse(row.transcript) as { role: string; text: string; interrupted?: boolean }[];
    expect(transcript.map((t) => [t.role, t.text])).toEqual([
      ['agent', GREETING],
      ['user', 'The caller pressed 4 2 #'],
      ['agent', 'Thank you, I found your file.'],
    ]);
    expect(transcript[0]?.interrupted).toBeUndefined();
  });
});
