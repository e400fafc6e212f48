import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import WebSocket from 'ws';
import { newId } from '../../../server/platform/crypto/ids.js';
import type { DeepgramFake } from '../../fakes/deepgram.js';
import type { ElevenLabsFake } from '../../fakes/elevenlabs.js';
import { listen, readBody, sendJson, sleep } from '../../fakes/listen.js';
import type { FakeOpenAi } from '../../fakes/openai.js';
import { FakeMediaStream, type TwilioFake, twilioSignature, twimlActions } from '../../fakes/twilio.js';
import { signUp } from '../auth-helpers.js';
import { type CallServer, floodSocket, waitFor } from '../call/harness.js';
import { describeEachDb, LOG_LINES } from '../helpers.js';
import { agentOnCarrierNumber, LARGEST_MEDIA_PAYLOAD, type PhoneWorld, startTwilioWorld } from './phone-world.js';

/**
 * Phone calls through Twilio, end to end on real sockets: the fake Twilio (tests/fakes/twilio.ts)
 * signs its webhooks, runs the TwiML Parley answers, and opens a signed media stream that sends mu-law every
 * 20 ms and plays Parley's audio at real time (marks echoed once played). The speech, LLM and voice
 * providers are the protocol fakes of the call engine. Only base URLs differ from production.
 */
describeEachDb('phone calls through Twilio', (kind) => {
  let deepgram: DeepgramFake;
  let openai: FakeOpenAi;
  let eleven: ElevenLabsFake;
  let twilio: TwilioFake;
  let s: CallServer;
  const NUMBER = '+14155550100';
  const CALLER = '+14155550177';

  let world: PhoneWorld<TwilioFake>;

  beforeEach(async () => {
    world = await startTwilioWorld(kind);
    ({ deepgram, openai, eleven, carrier: twilio, s } = world);
    eleven.msPerChar = 6;
  });
  afterEach(() => world.close());

  const voiceUrl = () => `${s.baseUrl}/api/v1/telephony/twilio/voice`;

  /** The company's agent with `patch`, saved; a Twilio number answering with it. */
  const agentOnNumber = (patch: Record<string, unknown>, number = NUMBER) => agentOnCarrierNumber(s, 'twilio', number, patch);

  async function stored(callId: string) {
    return waitFor(async () => {
      const res = await s.t.req('GET', `/api/v1/call/${callId}`, { token: s.user.token });
      const d = ((await res.json()) as { data: Record<string, unknown> }).data;
      return d.status !== 'ongoing' && d.status !== 'registered' ? (d as Record<string, never>) : undefined;
    }, 'the call stored');
  }

  const sessionOf = (sid: string) =>
    s.t.deps.db.db.selectFrom('call_sessions').selectAll().where('provider_call_id', '=', sid).executeTakeFirst();

  it('an inbound call: signed webhook, TwiML stream, mu-law both ways, marks, and end_call hanging up through the API', async () => {
    await agentOnNumber({
      message: 'Hello, this is the clinic.',
      editor: { functions: [{ id: 1, name: 'end_call', type: 'end_call' }] },
    });
    deepgram.script = ['I would like an appointment on Monday.'];
    openai.scriptChat([{ text: 'Monday at ten is booked. Goodbye!', toolCalls: [{ name: 'end_call', arguments: {} }] }]);

    const { call, webhookStatus, twiml } = await twilio.inbound(voiceUrl(), CALLER, NUMBER);
    expect(webhookStatus).toBe(200);
    const [stream] = twimlActions(twiml);
    expect(stream?.verb).toBe('stream');
    const url = new URL((stream as { url: string }).url);
    expect(url.protocol).toBe('ws:');
    expect(url.search).toBe('');
    const [, , , , , , callId, token] = url.pathname.split('/');
    expect(url.pathname).toBe(`/api/v1/telephony/twilio/stream/${callId}/${token}`);
    expect((stream as { parameters: Record<string, string> }).parameters).toEqual({ call_id: callId });

    const line = await waitFor(() => call.stream, 'the stream');
    await line.opened;
    // the greeting is played and its mark echoed before the caller speaks
    await waitFor(() => line.echoedMarks.length > 0 && line.playedBytes >= 1200, 'the greeting played');
    line.say(400);
    await call.done;

    // end_call: Parley hung up through the Calls API
    expect(call.requests.some((f) => f.some(([k, v]) => k === 'Status' && v === 'completed'))).toBe(true);
    expect(line.violations).toEqual([]);
    expect(line.of('media').length).toBeGreaterThan(10);
    expect(line.of('mark').length).toBeGreaterThan(0);
    // Parley asked the providers for the line's own format: nothing transcoded
    expect(deepgram.streams[0]?.query.get('encoding')).toBe('mulaw');
    expect(deepgram.streams[0]?.query.get('sample_rate')).toBe('8000');
    expect(eleven.streams[0]?.query.get('output_format')).toBe('ulaw_8000');

    const d = (await stored(callId as string)) as unknown as {
      type: string;
      from: string;
      to: string;
      disconnection_reason: string;
      transcript: { role: string; text: string }[];
      recording_url: string | null;
    };
    expect(d.type).toBe('inbound');
    expect(d.from).toBe(CALLER);
    expect(d.to).toBe(NUMBER);
    expect(d.disconnection_reason).toBe('agent_hangup');
    expect(d.transcript.map((t) => [t.role, t.text])).toEqual([
      ['agent', 'Hello, this is the clinic.'],
      ['user', 'I would like an appointment on Monday.'],
      ['agent', 'Monday at ten is booked. Goodbye!'],
    ]);
    expect(d.recording_url).not.toBeNull();

    // the stream token worked once
    const again = new FakeMediaStream(url.toString(), twilioSignature(twilio.authToken, url.toString()), {
      accountSid: twilio.accountSid,
      callSid: call.sid,
      parameters: {},
    });
    await again.opened.catch(() => {});
    expect(again.refused).toBe(401);
  });

  it('bad signatures are refused with 403: the voice webhook, the stream upgrade and a status callback', async () => {
    await agentOnNumber({ message: '' });
    const { webhookStatus, call } = await twilio.inbound(voiceUrl(), CALLER, NUMBER, () => 'bm90IHRoZSBzaWduYXR1cmU=');
    expect(webhookStatus).toBe(403);
    expect(call.stream).toBeUndefined();
    expect(await s.t.deps.db.db.selectFrom('call_sessions').selectAll().execute()).toEqual([]);

    // a request signed with another auth token
    const params: [string, string][] = [
      ['AccountSid', twilio.accountSid],
      ['CallSid', `CA${'1'.repeat(32)}`],
      ['From', CALLER],
      ['To', NUMBER],
    ];
    const forged = await fetch(voiceUrl(), {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'X-Twilio-Signature': twilioSignature('another-token', voiceUrl(), params),
      },
      body: new URLSearchParams(params).toString(),
    });
    expect(forged.status).toBe(403);

    // a genuine call: its stream with a forged signature is refused, with Twilio's own it opens
    const good = await fetch(voiceUrl(), {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        'X-Twilio-Signature': twilioSignature(twilio.authToken, voiceUrl(), params),
      },
      body: new URLSearchParams(params).toString(),
    });
    expect(good.status).toBe(200);
    const streamUrl = (twimlActions(await good.text())[0] as { url: string }).url;
    const call0 = { accountSid: twilio.accountSid, callSid: `CA${'1'.repeat(32)}`, parameters: {} };
    const bad = new FakeMediaStream(streamUrl, twilioSignature('another-token', streamUrl), call0);
    await bad.opened.catch(() => {});
    expect(bad.refused).toBe(403);
    const callId = new URL(streamUrl).pathname.split('/')[6] as string;
    const statusUrl = `${s.baseUrl}/api/v1/telephony/twilio/status/${callId}`;
    const st: [string, string][] = [
      ['AccountSid', twilio.accountSid],
      ['CallSid', call0.callSid],
      ['CallStatus', 'completed'],
    ];
    const forgedStatus = await fetch(statusUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Twilio-Signature': twilioSignature('x', statusUrl, st) },
      body: new URLSearchParams(st).toString(),
    });
    expect(forgedStatus.status).toBe(403);
    const row = await s.t.deps.db.db.selectFrom('call_sessions').selectAll().where('id', '=', callId).executeTakeFirst();
    expect(row?.status).toBe('registered');

    const real = new FakeMediaStream(streamUrl, twilioSignature(twilio.authToken, streamUrl), call0);
    await real.opened;
    real.stop();
    const d = (await stored(callId)) as unknown as { disconnection_reason: string };
    expect(d.disconnection_reason).toBe('user_hangup');
    expect(LOG_LINES.join('\n')).not.toContain(twilio.authToken);
    expect(LOG_LINES.some((l) => l.includes('bad signature'))).toBe(true);
  });

  it('a number with no inbound agent says so and hangs up; the call is recorded with that reason', async () => {
    await agentOnNumber({ message: '' });
    await s.t.deps.db.db.updateTable('phone_numbers').set({ inbound_agent_id: null }).execute();
    const { call, webhookStatus } = await twilio.inbound(voiceUrl(), CALLER, NUMBER);
    expect(webhookStatus).toBe(200);
    await call.done;
    expect(call.said).toEqual(['Sorry, this number is not taking calls right now. Goodbye.']);
    expect(call.stream).toBeUndefined();
    const row = await sessionOf(call.sid);
    expect(row?.disconnection_reason).toBe('no_inbound_agent');
    const listed = await s.t.req('GET', '/api/v1/call?page=0&limit=10', { token: s.user.token });
    expect(JSON.stringify(await listed.json())).toContain('no_inbound_agent');
  });

  it('a media stream flooding the line is held to real time (8,000 bytes a second), hung up through the API, and stored with its reason', async () => {
    await agentOnNumber({ message: '' });
    const { call } = await twilio.inbound(voiceUrl(), CALLER, NUMBER);
    const line = await waitFor(() => call.stream, 'the stream');
    const startedAt = performance.now();
    await line.opened;
    const row = await waitFor(() => sessionOf(call.sid), 'the call');
    // the largest media payload the line takes (2,560 bytes of mu-law: 320 ms), as fast as the socket takes it
    const media = JSON.stringify({
      event: 'media',
      streamSid: line.streamSid,
      media: { track: 'inbound', payload: LARGEST_MEDIA_PAYLOAD },
    });
    const sent = await floodSocket(line.ws, media, 2560, 3000, 4 * 1024 * 1024);
    if (line.ws.readyState === WebSocket.OPEN) line.stop();
    const d = (await stored(row.id)) as unknown as {
      status: string;
      disconnection_reason: string;
      usage: { stt_seconds: number };
    };
    const wallSeconds = (performance.now() - startedAt) / 1000;

    expect(d.disconnection_reason).toBe('error_audio_flood');
    expect(d.status).toBe('error');
    // Parley hung up through the Calls API
    await waitFor(() => call.requests.some((f) => f.some(([k, v]) => k === 'Status' && v === 'completed')), 'the hang-up');
    // heard, recorded and billed by the call's clock (mu-law 8 kHz; the recording is stereo 16-bit)
    // more than the line's burst (1 s) and flood allowance (5 s) of audio was sent
    expect(sent).toBeGreaterThan(6 * 8000);
    expect(d.usage.stt_seconds).toBeLessThanOrEqual(wallSeconds);
    // allowances: the line's burst (1 s) for what is heard, the recorder's lead over the clock (1.5 s)
    expect(deepgram.streams[0]?.audioBytes ?? 0).toBeLessThanOrEqual((wallSeconds + 1.05) * 8000);
    const file = path.join(s.t.dataDir, 'recordings', s.user.companyId, `${row.id}.wav`);
    const recordingBytes = fs.existsSync(file) ? fs.statSync(file).size : 0;
    expect(recordingBytes).toBeLessThanOrEqual(44 + (wallSeconds + 1.55) * 8000 * 2 * 2);
    const logged = LOG_LINES.map((l) => JSON.parse(l) as Record<string, unknown>).find(
      (l) => l.msg === 'phone call ended' && l.callId === row.id,
    );
    expect(logged?.caller_audio_dropped_bytes).toBeGreaterThan(0);
    expect(logged?.caller_audio_dropped_frames).toBeGreaterThan(0);
  });

  it('an outbound call answered by voicemail leaves the agent’s voicemail message; a busy line is stored as busy', async () => {
    await agentOnNumber({
      message: 'Hello!',
      editor: { voicemailDetection: true, voicemailAction: 'leave', voicemailMessage: 'Hi {{name}}, please call us back.' },
    });
    const TO = '+14155550123';
    twilio.outcomes.set(TO, 'voicemail');
    const res = await s.t.req('POST', '/api/v1/call/create', {
      token: s.user.token,
      body: { from_number: NUMBER, to_number: TO, dynamic_variables: { name: 'Ann' } },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const { data } = (await res.json()) as { success: boolean; data: { call_id: string } };
    const call = await waitFor(() => twilio.calls.find((c) => c.to === TO), 'the call placed');
    await call.done;
    const form = call.requests[0] as [string, string][];
    const get = (k: string) => form.filter(([n]) => n === k).map(([, v]) => v);
    expect(get('From')).toEqual([NUMBER]);
    expect(get('StatusCallbackEvent')).toEqual(['initiated', 'ringing', 'answered', 'completed']);
    expect(get('MachineDetection')).toEqual(['DetectMessageEnd']);
    expect(get('StatusCallback')).toEqual([`${s.baseUrl}/api/v1/telephony/twilio/status/${data.call_id}`]);
    expect(twimlActions(get('Twiml')[0] as string)[0]?.verb).toBe('stream');
    await waitFor(() => call.callbacks.some((c) => c.status === 'completed'), 'completed callback');
    expect(call.callbacks.map((c) => [c.status, c.code])).toEqual([
      ['initiated', 204],
      ['ringing', 204],
      ['in-progress', 204],
      ['amd', 204],
      ['completed', 204],
    ]);
    expect(call.said).toEqual(['Hi Ann, please call us back.']);
    const d = (await stored(data.call_id)) as unknown as {
      type: string;
      disconnection_reason: string;
      to: string;
      dynamic_variables: Record<string, string>;
    };
    expect(d.type).toBe('outbound');
    expect(d.to).toBe(TO);
    expect(d.dynamic_variables.name).toBe('Ann');
    expect(d.disconnection_reason).toBe('voicemail_reached');

    const BUSY = '+14155550124';
    twilio.outcomes.set(BUSY, 'busy');
    const busy = await s.t.req('POST', '/api/v1/call/create', {
      token: s.user.token,
      body: { from_number: NUMBER, to_number: BUSY },
    });
    expect(busy.status).toBe(201);
    const busyId = ((await busy.json()) as { data: { call_id: string } }).data.call_id;
    const b = (await stored(busyId)) as unknown as { status: string; disconnection_reason: string };
    expect(b.status).toBe('busy');
    expect(b.disconnection_reason).toBe('dial_busy');
  });

  /** An inbound call whose agent has transfer_call to `number`, and a caller who asks for a person. */
  async function callerAsksForTransfer(number: string) {
    await agentOnNumber({
      message: '',
      editor: { functions: [{ id: 1, name: 'transfer_call', type: 'transfer', number }] },
    });
    deepgram.script = ['Can I talk to a person?'];
    openai.scriptChat([
      { text: 'Of course, one moment.', toolCalls: [{ name: 'transfer_call', arguments: { reason: 'asked' } }] },
    ]);
    const { call } = await twilio.inbound(voiceUrl(), CALLER, NUMBER);
    const line = await waitFor(() => call.stream, 'the stream');
    await line.opened;
    line.say(400);
    return call;
  }

  it('transfer_call moves the caller to the function’s number with <Dial> on the live call', async () => {
    const call = await callerAsksForTransfer('+14155550999');
    await call.done;
    expect(call.dialed).toBe('+14155550999');
    const dial = call.actions.find((a) => a.verb === 'dial');
    expect(dial).toEqual({ verb: 'dial', number: '+14155550999', callerId: NUMBER });
    const row = await waitFor(async () => {
      const r = await sessionOf(call.sid);
      return r?.status === 'ended' ? r : undefined;
    }, 'stored');
    expect(row.disconnection_reason).toBe('call_transfer');
    const transcript = JSON.parse(row.transcript) as { role: string; text: string; tool_calls?: { name: string }[] }[];
    expect(transcript.at(-1)?.text).toBe('Of course, one moment.');
    expect(transcript.at(-1)?.tool_calls?.map((t) => t.name)).toEqual(['transfer_call']);
  });

  it('transfer_call to a number the destination policy refuses is not dialled: the call goes on', async () => {
    const call = await callerAsksForTransfer('+19005550199');
    await waitFor(() => LOG_LINES.some((l) => l.includes('call transfer failed') && l.includes('premium-rate')), 'the refusal');
    expect(call.dialed).toBeUndefined();
    expect(call.actions.some((a) => a.verb === 'dial')).toBe(false);
    const row = await sessionOf(call.sid);
    expect(row?.status).toBe('ongoing');
    twilio.hangUpCaller(call);
    await call.done;
  });

  it('barge-in on the phone: clear drops the unplayed audio, the turn is cut where Twilio’s marks say the caller was', async () => {
    eleven.msPerChar = 40;
    eleven.chunkIntervalMs = 100;
    await agentOnNumber({ message: '', editor: { interruption: 1 } });
    deepgram.script = ['Tell me about visiting hours.', 'Wait, sorry.'];
    openai.scriptChat([
      { text: 'Visiting hours are from ten in the morning. They end at five in the evening. On Sundays they start at noon.' },
    ]);
    const { call } = await twilio.inbound(voiceUrl(), CALLER, NUMBER);
    const line = await waitFor(() => call.stream, 'the stream');
    await line.opened;
    line.say(400);
    await waitFor(() => line.playedBytes > 8 * 700, 'part of the answer played', 15_000);
    line.say(300, 200);
    await waitFor(() => line.of('clear').length > 0, 'clear');
    // the audio is paced one frame ahead: a clear finds little in Twilio's buffer
    expect(line.clearedBytes).toBeLessThanOrEqual(3 * 160);
    const afterClear = line.of('media').length;
    twilio.hangUpCaller(call);
    await call.done;
    expect(line.violations).toEqual([]);
    expect(line.of('media').length).toBe(afterClear);
    const row = await waitFor(async () => {
      const r = await sessionOf(call.sid);
      return r?.status === 'ended' ? r : undefined;
    }, 'stored');
    expect(row.disconnection_reason).toBe('user_hangup');
    const agentTurn = (JSON.parse(row.transcript) as { role: string; text: string; interrupted?: boolean }[]).find(
      (t) => t.role === 'agent',
    );
    expect(agentTurn?.interrupted).toBe(true);
    expect(agentTurn?.text.startsWith('Visiting hours')).toBe(true);
    expect(agentTurn?.text).not.toContain('noon');
  });

  it('the Inbound Call Webhook gives the call its variables; a slow or private one is passed over', async () => {
    const seen: unknown[] = [];
    let delayMs = 0;
    let huge = false;
    const hook = await listen(async (req, res) => {
      seen.push(JSON.parse(await readBody(req)));
      await sleep(delayMs);
      sendJson(res, 200, {
        call_inbound: { dynamic_variables: { name: 'Ruth', visits: 3, ...(huge ? { pad: 'x'.repeat(200_000) } : {}) } },
      });
    });
    try {
      // a private address is saved only while the server allows private webhook URLs (refused otherwise:
      // tests/server/webhooks/webhooks.test.ts), and refused at send time once it no longer does
      s.t.deps.config.allowPrivateWebhookUrls = true;
      await agentOnNumber({ message: 'Hello {{name}}.', editor: { inboundCallWebhook: `${hook.url}/inbound` } });
      s.t.deps.config.allowPrivateWebhookUrls = false;
      const refused = await twilio.inbound(voiceUrl(), CALLER, NUMBER);
      expect(refused.webhookStatus).toBe(200);
      expect(seen).toEqual([]);
      refused.call.stream && (await refused.call.stream.opened);
      twilio.hangUpCaller(refused.call);
      await refused.call.done;

      s.t.deps.config.allowPrivateWebhookUrls = true;
      const { call } = await twilio.inbound(voiceUrl(), CALLER, NUMBER);
      expect(seen).toEqual([
        { event: 'call_inbound', call_inbound: { agent_id: expect.any(String), from_number: CALLER, to_number: NUMBER } },
      ]);
      const line = await waitFor(() => call.stream, 'the stream');
      await line.opened;
      await waitFor(() => eleven.streams.length > 0 && eleven.streams.at(-1)?.texts.join('').includes('Ruth'), 'greeting');
      twilio.hangUpCaller(call);
      await call.done;
      const row = await waitFor(async () => {
        const r = await sessionOf(call.sid);
        return r?.status === 'ended' ? r : undefined;
      }, 'stored');
      expect(JSON.parse(row.dynamic_variables)).toMatchObject({ name: 'Ruth', visits: '3', from_number: CALLER });

      // a webhook slower than 2 s: the call is answered without its variables
      delayMs = 3000;
      const started = Date.now();
      const slow = await twilio.inbound(voiceUrl(), CALLER, NUMBER);
      expect(slow.webhookStatus).toBe(200);
      expect(Date.now() - started).toBeLessThan(2900);
      const slowRow = await sessionOf(slow.call.sid);
      expect(JSON.parse(slowRow?.dynamic_variables ?? '{}').name).toBeUndefined();
      await waitFor(() => slow.call.stream, 'the stream');
      await slow.call.stream?.opened;
      twilio.hangUpCaller(slow.call);
      await slow.call.done;

      // an answer over 64 KB is not read: the call goes on without its variables
      delayMs = 0;
      huge = true;
      const big = await twilio.inbound(voiceUrl(), CALLER, NUMBER);
      expect(big.webhookStatus).toBe(200);
      expect(JSON.parse((await sessionOf(big.call.sid))?.dynamic_variables ?? '{}').name).toBeUndefined();
      await waitFor(() => big.call.stream, 'the stream');
      await big.call.stream?.opened;
      twilio.hangUpCaller(big.call);
      await big.call.done;
    } finally {
      await hook.close();
    }
  });

  it('over the concurrency limit an inbound caller hears the lines are busy; the call is recorded with that reason', async () => {
    await agentOnNumber({ message: '' });
    await s.t.deps.db.db
      .insertInto('company_billing')
      .values({
        company_id: s.user.companyId,
        concurrency_limit: 1,
        monthly_spend_limit_cents: 100_000,
        contact_name: '',
        contact_email: '',
        contact_address: '',
        contact_tax_id: '',
        updated_at: new Date().toISOString(),
      })
      .execute();
    const first = await twilio.inbound(voiceUrl(), CALLER, NUMBER);
    const line = await waitFor(() => first.call.stream, 'the stream');
    await line.opened;
    const second = await twilio.inbound(voiceUrl(), '+14155550178', NUMBER);
    await second.call.done;
    expect(second.call.said).toEqual(['Sorry, all our lines are busy right now. Please call again later. Goodbye.']);
    expect((await sessionOf(second.call.sid))?.disconnection_reason).toBe('concurrency_limit_reached');
    // an outbound call is refused the same way
    const out = await s.t.req('POST', '/api/v1/call/create', {
      token: s.user.token,
      body: { from_number: NUMBER, to_number: '+14155550123' },
    });
    expect(out.status).toBe(429);
    twilio.hangUpCaller(first.call);
    await first.call.done;
  });

  it("another company cannot dial from this company's number or with its agent", async () => {
    const agentId = await agentOnNumber({ message: '' });
    const other = await signUp(s.t);
    const fromOurs = await s.t.req('POST', '/api/v1/call/create', {
      token: other.token,
      body: { from_number: NUMBER, to_number: '+14155550123' },
    });
    expect(fromOurs.status).toBe(404);
    const at = new Date().toISOString();
    await s.t.deps.db.db
      .insertInto('phone_numbers')
      .values({
        id: newId(),
        company_id: other.companyId,
        account_id: null,
        origin: 'company',
        phone_number: '+14155550188',
        provider: 'twilio',
        phone_number_type: 'local',
        phone_number_pretty: '+14155550188',
        area_code: 415,
        nickname: null,
        termination_uri: 'other.pstn.twilio.com',
        assistant_id: null,
        inbound_agent_id: null,
        outbound_agent_id: null,
        assigned_at: at,
        created_at: at,
        updated_at: at,
      })
      .execute();
    const withOurAgent = await s.t.req('POST', '/api/v1/call/create', {
      token: other.token,
      body: { from_number: '+14155550188', to_number: '+14155550123', agent_id: agentId },
    });
    expect(withOurAgent.status).toBe(404);
    expect(twilio.calls).toEqual([]);
  });
});
