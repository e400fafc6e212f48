import { afterEach, beforeEach, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { DeepgramFake } from '../../fakes/deepgram.js';
import type { ElevenLabsFake } from '../../fakes/elevenlabs.js';
import type { FakeOpenAi } from '../../fakes/openai.js';
import { type PlivoFake, PlivoMediaStream, plivoActions } from '../../fakes/plivo.js';
import { type CallServer, floodSocket, waitFor } from '../call/harness.js';
import { describeEachDb, LOG_LINES } from '../helpers.js';
import { agentOnCarrierNumber, LARGEST_MEDIA_PAYLOAD, type PhoneWorld, startPlivoWorld } from './phone-world.js';

/**
 * Phone calls through Plivo, end to end on real sockets against the fake Plivo
 * (tests/fakes/plivo.ts): signed answer/hangup/machine-detection callbacks (X-Plivo-Signature-V3), the
 * Stream XML, the bidirectional audio stream (playAudio / checkpoint / clearAudio), and the Call API.
 */
describeEachDb('phone calls through Plivo', (kind) => {
  let deepgram: DeepgramFake;
  let openai: FakeOpenAi;
  let eleven: ElevenLabsFake;
  let plivo: PlivoFake;
  let s: CallServer;
  const NUMBER = '+14155550101';
  const CALLER = '+14155550177';

  let world: PhoneWorld<PlivoFake>;

  beforeEach(async () => {
    world = await startPlivoWorld(kind);
    ({ deepgram, openai, eleven, carrier: plivo, s } = world);
    eleven.msPerChar = 6;
  });
  afterEach(() => world.close());

  const answerUrl = () => `${s.baseUrl}/api/v1/telephony/plivo/answer`;

  const agentOnNumber = (patch: Record<string, unknown>) => agentOnCarrierNumber(s, 'plivo', NUMBER, patch);

  const sessionOf = (uuid: string) =>
    s.t.deps.db.db.selectFrom('call_sessions').selectAll().where('provider_call_id', '=', uuid).executeTakeFirst();
  const ended = (uuid: string) =>
    waitFor(async () => {
      const r = await sessionOf(uuid);
      return r && r.status !== 'ongoing' && r.status !== 'registered' ? r : undefined;
    }, 'the call stored');

  it('an inbound call: signed answer, Stream XML, playAudio and checkpoints, end_call hangs up through the API', async () => {
    await agentOnNumber({
      message: 'Hello, this is the clinic.',
      editor: { functions: [{ id: 1, name: 'end_call', type: 'end_call' }] },
    });
    deepgram.script = ['Book me for Monday.'];
    openai.scriptChat([{ text: 'Booked. Goodbye!', toolCalls: [{ name: 'end_call', arguments: {} }] }]);
    const { call, status, xml } = await plivo.inbound(answerUrl(), CALLER, NUMBER);
    expect(status).toBe(200);
    const [stream] = plivoActions(xml);
    expect(stream).toMatchObject({
      verb: 'stream',
      attrs: { bidirectional: 'true', keepCallAlive: 'true', contentType: 'audio/x-mulaw;rate=8000' },
    });
    expect((stream as { url: string }).url).toMatch(/\/api\/v1\/telephony\/plivo\/stream\/[0-9a-f]{24}\/[\w-]+$/);
    const line = await waitFor(() => call.stream, 'the stream');
    await line.opened;
    await waitFor(() => line.played.length > 0 && line.playedBytes >= 1200, 'the greeting played');
    line.say(400);
    await call.done;
    expect(call.hungUpByApi).toBe(true);
    expect(line.violations).toEqual([]);
    expect(line.of('playAudio').length).toBeGreaterThan(10);
    expect(line.of('checkpoint').length).toBeGreaterThan(0);
    expect(deepgram.streams[0]?.query.get('encoding')).toBe('mulaw');
    expect(eleven.streams[0]?.query.get('output_format')).toBe('ulaw_8000');
    const row = await ended(call.uuid);
    expect(row.type).toBe('inbound');
    expect(row.from_number).toBe(CALLER);
    expect(row.to_number).toBe(NUMBER);
    expect(row.disconnection_reason).toBe('agent_hangup');
    expect(JSON.parse(row.transcript).map((t: { text: string }) => t.text)).toEqual([
      'Hello, this is the clinic.',
      'Book me for Monday.',
      'Booked. Goodbye!',
    ]);
    expect(row.recording).not.toBeNull();
  });

  it('an audio stream flooding the line is held to real time and hung up through the API as error_audio_flood', async () => {
    await agentOnNumber({ message: '' });
    const { call } = await plivo.inbound(answerUrl(), CALLER, NUMBER);
    const line = await waitFor(() => call.stream, 'the stream');
    const startedAt = performance.now();
    await line.opened;
    const media = JSON.stringify({
      event: 'media',
      streamId: line.streamId,
      media: { track: 'inbound', payload: LARGEST_MEDIA_PAYLOAD },
    });
    const sent = await floodSocket(line.ws, media, 2560, 3000, 4 * 1024 * 1024);
    if (line.ws.readyState === WebSocket.OPEN) line.stop();
    const row = await ended(call.uuid);
    const wallSeconds = (performance.now() - startedAt) / 1000;
    expect(row.disconnection_reason).toBe('error_audio_flood');
    await waitFor(() => call.hungUpByApi, 'the hang-up through the API');
    // more than the line's burst (1 s) and flood allowance (5 s) of audio was sent
    expect(sent).toBeGreaterThan(6 * 8000);
    // heard and billed by the call's clock: mu-law 8 kHz, 8,000 bytes a second, with the line's 1 s burst
    expect(JSON.parse(row.usage).stt_seconds).toBeLessThanOrEqual(wallSeconds);
    expect(deepgram.streams[0]?.audioBytes ?? 0).toBeLessThanOrEqual((wallSeconds + 1.05) * 8000);
  });

  it('a bad X-Plivo-Signature-V3 is refused with 403 (answer and stream upgrade)', async () => {
    await agentOnNumber({ message: '' });
    const forged = await plivo.inbound(answerUrl(), CALLER, NUMBER, () => ({
      'X-Plivo-Signature-V3': 'bm90IGl0',
      'X-Plivo-Signature-V3-Nonce': '12345',
    }));
    expect(forged.status).toBe(403);
    expect(await s.t.deps.db.db.selectFrom('call_sessions').selectAll().execute()).toEqual([]);
    expect(LOG_LINES.join('\n')).not.toContain(plivo.authToken);

    // a genuine call: its stream signed with another token is refused; with Plivo's own it opens
    const params: [string, string][] = [
      ['CallUUID', '11111111-2222-3333-4444-555555555555'],
      ['Direction', 'inbound'],
      ['From', CALLER.slice(1)],
      ['To', NUMBER.slice(1)],
    ];
    const good = await fetch(answerUrl(), {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...plivo.signed(answerUrl(), params) },
      body: new URLSearchParams(params).toString(),
    });
    expect(good.status).toBe(200);
    const url = (plivoActions(await good.text())[0] as { url: string }).url;
    const bad = new PlivoMediaStream(
      url,
      { 'X-Plivo-Signature-V3': 'bm90IGl0', 'X-Plivo-Signature-V3-Nonce': '1' },
      {
        authId: plivo.authId,
        callUuid: '11111111-2222-3333-4444-555555555555',
      },
    );
    await bad.opened.catch(() => {});
    expect(bad.refused).toBe(403);
    const real = new PlivoMediaStream(url, plivo.signed(url, [], 'GET'), {
      authId: plivo.authId,
      callUuid: '11111111-2222-3333-4444-555555555555',
    });
    await real.opened;
    real.stop();
    const row = await ended('11111111-2222-3333-4444-555555555555');
    expect(row.disconnection_reason).toBe('user_hangup');
  });

  it('outbound through the Call API: voicemail leaves the message, a busy line is stored as busy', async () => {
    await agentOnNumber({
      message: 'Hello!',
      editor: { voicemailDetection: true, voicemailAction: 'leave', voicemailMessage: 'Hi {{name}}, please call us back.' },
    });
    const TO = '+14155550123';
    plivo.outcomes.set(TO, 'voicemail');
    const res = await s.t.req('POST', '/api/v1/call/create', {
      token: s.user.token,
      body: { from_number: NUMBER, to_number: TO, dynamic_variables: { name: 'Ann' } },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const callId = ((await res.json()) as { data: { call_id: string } }).data.call_id;
    const call = await waitFor(() => plivo.calls.find((c) => c.to === TO.slice(1)), 'the call placed');
    await call.done;
    expect(call.request).toMatchObject({
      from: NUMBER.slice(1),
      to: TO.slice(1),
      answer_url: `${s.baseUrl}/api/v1/telephony/plivo/answer/${callId}`,
      hangup_url: `${s.baseUrl}/api/v1/telephony/plivo/status/${callId}`,
      machine_detection: 'true',
    });
    expect(call.said).toEqual(['Hi Ann, please call us back.']);
    expect(call.callbacks.every((c) => c.code === 200 || c.code === 204)).toBe(true);
    const row = await ended(call.uuid);
    expect(row.id).toBe(callId);
    expect(row.type).toBe('outbound');
    expect(row.disconnection_reason).toBe('voicemail_reached');

    const BUSY = '+14155550124';
    plivo.outcomes.set(BUSY, 'busy');
    const busy = await s.t.req('POST', '/api/v1/call/create', {
      token: s.user.token,
      body: { from_number: NUMBER, to_number: BUSY },
    });
    expect(busy.status).toBe(201);
    const busyId = ((await busy.json()) as { data: { call_id: string } }).data.call_id;
    const b = await waitFor(async () => {
      const r = await s.t.deps.db.db.selectFrom('call_sessions').selectAll().where('id', '=', busyId).executeTakeFirst();
      return r?.status === 'busy' ? r : undefined;
    }, 'busy stored');
    expect(b.disconnection_reason).toBe('dial_busy');
  });

  it('transfer_call transfers the live call to <Dial> the function’s number', async () => {
    await agentOnNumber({
      message: '',
      editor: { functions: [{ id: 1, name: 'transfer_call', type: 'transfer', number: '+14155550999' }] },
    });
    deepgram.script = ['Can I talk to a person?'];
    openai.scriptChat([{ text: 'Of course, one moment.', toolCalls: [{ name: 'transfer_call', arguments: {} }] }]);
    const { call } = await plivo.inbound(answerUrl(), CALLER, NUMBER);
    const line = await waitFor(() => call.stream, 'the stream');
    await line.opened;
    line.say(400);
    await call.done;
    expect(call.dialed).toBe('+14155550999');
    expect(call.actions.find((a) => a.verb === 'dial')).toEqual({ verb: 'dial', number: '+14155550999', callerId: NUMBER });
    const row = await ended(call.uuid);
    expect(row.disconnection_reason).toBe('call_transfer');
  });
});
