import { afterEach, beforeEach, expect, it } from 'vitest';
import type { DeepgramFake } from '../../fakes/deepgram.js';
import type { ElevenLabsFake } from '../../fakes/elevenlabs.js';
import type { FakeOpenAi } from '../../fakes/openai.js';
import type { PlivoFake } from '../../fakes/plivo.js';
import type { TwilioFake } from '../../fakes/twilio.js';
import { type CallServer, waitFor } from '../call/harness.js';
import { describeEachDb } from '../helpers.js';
import { agentOnCarrierNumber, type PhoneWorld, startPlivoWorld, startTwilioWorld } from './phone-world.js';

/**
 * Warm transfer_call on Twilio, end to end on real sockets: the caller stays on Parley's stream (hearing
 * the agent's speak_during sentence) while a consult leg dials the person from the call's number; the
 * person hears the LLM's summary of the call, then both legs meet in one conference room and the call is
 * stored as transferred. Nobody answering in time, the leg is cancelled and the model tells the caller.
 */
describeEachDb('warm transfer on Twilio', (kind) => {
  let deepgram: DeepgramFake;
  let openai: FakeOpenAi;
  let eleven: ElevenLabsFake;
  let twilio: TwilioFake;
  let s: CallServer;
  let world: PhoneWorld<TwilioFake>;
  const NUMBER = '+14155550100';
  const CALLER = '+14155550177';
  const PERSON = '+14155550999';
  const SUMMARY = 'Ann Lee is calling to move her Tuesday cleaning to Friday morning.';
  const HOLD = 'Let me get someone for you, one moment.';
  const NOBODY = 'I am sorry, nobody picked up. Can I take a message instead?';

  beforeEach(async () => {
    world = await startTwilioWorld(kind);
    ({ deepgram, openai, eleven, carrier: twilio, s } = world);
    eleven.msPerChar = 2;
  });
  afterEach(() => world.close());

  const voiceUrl = () => `${s.baseUrl}/api/v1/telephony/twilio/voice`;
  const sessionOf = (sid: string) =>
    s.t.deps.db.db.selectFrom('call_sessions').selectAll().where('provider_call_id', '=', sid).executeTakeFirst();

  /**
   * The model: asked for a summary it writes SUMMARY; with the transfer's result it says NOBODY; else it
   * calls the warm transfer.
   */
  function scriptModel() {
    openai.scriptChat((body) => {
      const first = String(body.messages[0]?.content ?? '');
      if (first.includes('hand a phone call over')) return { text: SUMMARY };
      if (body.messages.at(-1)?.role === 'tool') return { text: NOBODY };
      return { toolCalls: [{ name: 'transfer_call', arguments: { reason: 'wants a person' } }] };
    });
  }

  async function callerAsksForAPerson(timeout_ms = 8_000) {
    await agentOnCarrierNumber(s, 'twilio', NUMBER, {
      message: '',
      editor: {
        functions: [
          { id: 1, name: 'transfer_call', type: 'transfer', number: PERSON, mode: 'warm', timeout_ms, speak_during: HOLD },
        ],
      },
    });
    deepgram.script = ['Hi, this is Ann Lee, I need to move my Tuesday cleaning to Friday. Can I talk to a person?'];
    scriptModel();
    const { call } = await twilio.inbound(voiceUrl(), CALLER, NUMBER);
    const line = await waitFor(() => call.stream, 'the stream');
    await line.opened;
    line.say(400);
    return { call, line };
  }

  it('the person hears the summary first, then the caller is joined in the same room and the call is stored as transferred', async () => {
    const { call } = await callerAsksForAPerson();
    const consult = await waitFor(() => twilio.calls.find((c) => c.to === PERSON), 'the consult leg');
    // the consult leg is dialled from the call's own number, with a ring timeout
    expect(consult.from).toBe(NUMBER);
    expect(consult.timeoutSeconds).toBe(8);
    await waitFor(() => (call.room ? true : undefined), 'the caller joined');
    const room = consult.room as string;
    expect(room).toBeTruthy();
    expect(call.room).toBe(room);
    // the person hears the summary, then starts the room; the caller waits in it until then
    expect(consult.said).toEqual([SUMMARY]);
    const t = twilio.timeline;
    expect(t.indexOf(`${consult.sid} say ${SUMMARY}`)).toBeLessThan(t.indexOf(`${consult.sid} joined ${room}`));
    expect(t.indexOf(`${consult.sid} say ${SUMMARY}`)).toBeLessThan(t.indexOf(`${call.sid} joined ${room}`));
    expect(twilio.rooms.get(room)?.started).toBe(true);
    // the summary was written by the LLM from the transcript
    const summaryRequest = openai.chatRequests.find((r) =>
      String((r.body.messages as { content?: unknown }[])[0]?.content).includes('hand a phone call over'),
    );
    expect(JSON.stringify(summaryRequest?.body.messages)).toContain('move my Tuesday cleaning to Friday');
    // the caller's media stream stopped: the call is stored as transferred
    const row = await waitFor(async () => {
      const r = await sessionOf(call.sid);
      return r?.status === 'ended' ? r : undefined;
    }, 'stored');
    expect(row.disconnection_reason).toBe('call_transfer');
    // while the person was dialled the caller heard the agent's speak_during sentence
    expect(row.transcript).toContain(HOLD);
    const transcript = JSON.parse(row.transcript) as { role: string; text: string; tool_calls?: { name: string }[] }[];
    expect(transcript.findLast((x) => x.tool_calls?.length)?.tool_calls?.map((x) => x.name)).toEqual(['transfer_call']);
    // the model was not asked again after the caller was joined
    expect(openai.chatRequests.some((r) => (r.body.messages as { role: string }[]).at(-1)?.role === 'tool')).toBe(false);
    // the person hangs up: the room ends, and the caller's call with it
    twilio.hangUpCaller(consult);
    await call.done;
    expect(call.ended).toBe('conference');
    expect(twilio.refusals).toEqual([]);
  });

  it('nobody answers within timeout_ms: the consult leg is cancelled and the agent tells the caller', async () => {
    twilio.outcomes.set(PERSON, 'ring');
    const { call, line } = await callerAsksForAPerson(1_000);
    const consult = await waitFor(() => twilio.calls.find((c) => c.to === PERSON), 'the consult leg');
    await consult.done;
    expect(consult.cancelled).toBe(true);
    expect(consult.status).toBe('canceled');
    expect(consult.requests.some((f) => f.some(([k, v]) => k === 'Status' && v === 'canceled'))).toBe(true);
    expect(consult.said).toEqual([]);
    // the model got the result, and its words are spoken to the caller, still on the stream
    const told = await waitFor(
      () =>
        openai.chatRequests.find((r) => {
          const last = (r.body.messages as { role: string; content?: unknown }[]).at(-1);
          return last?.role === 'tool' ? last : undefined;
        }),
      'the model told',
    );
    expect(JSON.stringify(told.body.messages)).toContain('nobody answered');
    await waitFor(async () => {
      const r = await sessionOf(call.sid);
      return r?.transcript.includes(NOBODY) ? true : undefined;
    }, 'the agent said so');
    expect(call.room).toBeUndefined();
    expect(call.ended).toBeUndefined();
    const row = await sessionOf(call.sid);
    expect(row?.status).toBe('ongoing');
    twilio.hangUpCaller(call);
    await call.done;
    expect(line.violations).toEqual([]);
    const ended = await waitFor(async () => {
      const r = await sessionOf(call.sid);
      return r?.status === 'ended' ? r : undefined;
    }, 'stored');
    expect(ended.disconnection_reason).toBe('user_hangup');
    expect(twilio.refusals).toEqual([]);
  });

  it('a busy line: no room, the model is told it was busy', async () => {
    twilio.outcomes.set(PERSON, 'busy');
    const { call } = await callerAsksForAPerson();
    const told = await waitFor(
      () => openai.chatRequests.find((r) => (r.body.messages as { role: string }[]).at(-1)?.role === 'tool'),
      'the model told',
    );
    expect(JSON.stringify(told.body.messages)).toContain('the line was busy');
    expect(call.room).toBeUndefined();
    twilio.hangUpCaller(call);
    await call.done;
  });
});

/** A carrier without warm transfers yet (Plivo): the warm function moves the caller cold, as before. */
describeEachDb('warm transfer on a carrier without it', (kind) => {
  let world: PhoneWorld<PlivoFake>;
  beforeEach(async () => {
    world = await startPlivoWorld(kind);
  });
  afterEach(() => world.close());

  it('falls back to a cold transfer: <Dial> the number on the live call', async () => {
    const { s, deepgram, openai, carrier: plivo } = world;
    await agentOnCarrierNumber(s, 'plivo', '+14155550101', {
      message: '',
      editor: { functions: [{ id: 1, name: 'transfer_call', type: 'transfer', number: '+14155550999', mode: 'warm' }] },
    });
    deepgram.script = ['Can I talk to a person?'];
    openai.scriptChat([{ text: 'Of course, one moment.', toolCalls: [{ name: 'transfer_call', arguments: {} }] }]);
    const { call } = await plivo.inbound(`${s.baseUrl}/api/v1/telephony/plivo/answer`, '+14155550177', '+14155550101');
    const line = await waitFor(() => call.stream, 'the stream');
    await line.opened;
    line.say(400);
    await call.done;
    expect(call.dialed).toBe('+14155550999');
  });
});
