import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LinearResampler } from '../../../server/voice/audio/resample.js';
import { createOpenAiRealtime } from '../../../server/voice/providers/openai/realtime.js';
import {
  type AudioFormat,
  BROWSER_AUDIO,
  PHONE_AUDIO,
  ProviderError,
  type RealtimeEvent,
  type RealtimeOptions,
  type RealtimeSession,
} from '../../../server/voice/providers/types.js';
import { decode, encode, type FakeAudioFormat, tone } from '../../fakes/g711.js';
import { type FakeOpenAi, type RealtimeSessionRecord, startFakeOpenAi } from '../../fakes/openai.js';
import { BOOK_TOOL, until } from './llm-helpers.js';

let fake: FakeOpenAi;
const realtime = createOpenAiRealtime({ connectMs: 3000 });
const open: RealtimeSession[] = [];

beforeAll(async () => {
  fake = await startFakeOpenAi();
});
afterAll(() => fake.close());
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  fake.realtimeSessions.length = 0;
  fake.scriptRealtime({});
});

const options = (overrides: Partial<RealtimeOptions> = {}): RealtimeOptions => ({
  apiKey: fake.apiKey,
  baseUrl: fake.url,
  model: 'gpt-4o-realtime-preview',
  instructions: 'You are the front desk of a dental clinic.',
  voice: 'alloy',
  format: BROWSER_AUDIO,
  tools: [],
  temperature: 0.8,
  silenceMs: 300,
  vadThreshold: 0.5,
  ...overrides,
});

async function connect(overrides: Partial<RealtimeOptions> = {}, signal = new AbortController().signal) {
  const events: RealtimeEvent[] = [];
  const session = await realtime.connect(options(overrides), (e) => events.push(e), signal);
  open.push(session);
  return { session, events, record: fake.realtimeSessions.at(-1) as RealtimeSessionRecord };
}

const of = <T extends RealtimeEvent['type']>(events: RealtimeEvent[], type: T) =>
  events.filter((e): e is Extract<RealtimeEvent, { type: T }> => e.type === type);
const clientEvents = (record: RealtimeSessionRecord, type: string) => record.events.filter((e) => e.type === type);

/** Frames of caller audio in the transport's format: `ms` of a tone (speech) or of silence, 20 ms each. */
function frames(format: AudioFormat, ms: number, speech: boolean): Uint8Array[] {
  const rate = format.sampleRate;
  const samples = speech ? tone(rate, ms, 300, 0.4) : new Int16Array(Math.round((rate * ms) / 1000));
  const bytes = encode(format.encoding === 'mulaw' ? 'audio/pcmu' : 'audio/pcm', samples);
  const size = (format.encoding === 'mulaw' ? 1 : 2) * (rate / 50);
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.slice(i, i + size));
  return out;
}

const say = (session: RealtimeSession, format: AudioFormat, speechMs: number, silenceMs: number) => {
  for (const f of [...frames(format, speechMs, true), ...frames(format, silenceMs, false)]) session.sendAudio(f);
};

/** Zero crossings per second of PCM16 samples: twice the tone's frequency. */
function crossingsPerSecond(samples: Int16Array, rate: number) {
  let n = 0;
  for (let i = 1; i < samples.length; i++) if ((samples[i - 1] as number) < 0 !== (samples[i] as number) < 0) n++;
  return n / (samples.length / rate);
}

const joinAudio = (events: RealtimeEvent[]) => Buffer.concat(of(events, 'audio').map((e) => e.chunk));

describe('OpenAI Realtime adapter (GA interface)', () => {
  it('connects with the key, no beta header, and one session.update with the agent settings', async () => {
    const { record } = await connect({ tools: [BOOK_TOOL] });
    expect(record.model).toBe('gpt-4o-realtime-preview');
    expect(record.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(record.headers['openai-beta']).toBeUndefined();
    expect(clientEvents(record, 'session.update')).toEqual([
      {
        type: 'session.update',
        session: {
          type: 'realtime',
          instructions: 'You are the front desk of a dental clinic.',
          output_modalities: ['audio'],
          audio: {
            input: {
              format: { type: 'audio/pcm', rate: 24000 },
              transcription: { model: 'whisper-1' },
              turn_detection: {
                type: 'server_vad',
                threshold: 0.5,
                silence_duration_ms: 300,
                prefix_padding_ms: 300,
                create_response: true,
                interrupt_response: false,
              },
            },
            output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'alloy' },
          },
          tools: [{ type: 'function', ...BOOK_TOOL }],
          tool_choice: 'auto',
        },
      },
    ]);
    expect(record.errors).toEqual([]);
  });

  it('speaks the greeting first: response.create with it, audio and transcript deltas, usage', async () => {
    const { events, record } = await connect({ greeting: 'Hello, Bright Smile Dental, how can I help?' });
    await until(() => of(events, 'response_done').length === 1);
    const [create] = clientEvents(record, 'response.create');
    expect(JSON.stringify(create)).toContain('Hello, Bright Smile Dental, how can I help?');
    const transcript = of(events, 'agent_transcript');
    expect(transcript.length).toBeGreaterThan(2);
    expect(transcript.map((e) => e.text).join('')).toBe('Hello! How can I help you today?');
    expect(of(events, 'audio').length).toBe(transcript.length);
    expect(new Set(of(events, 'audio').map((e) => e.itemId)).size).toBe(1);
    expect(of(events, 'response_done')[0]).toMatchObject({ inputTokens: 50, outputTokens: 16 });
  });

  it('a turn driven by server VAD: speech started/stopped, the caller transcript, then the answer', async () => {
    fake.scriptRealtime({ transcripts: ['Do you have anything on Tuesday?'] });
    const { session, events } = await connect();
    say(session, BROWSER_AUDIO, 400, 600);
    await until(() => of(events, 'response_done').length === 1);
    const order = events.map((e) => e.type).filter((t, i, all) => all.indexOf(t) === i);
    expect(order.slice(0, 5)).toEqual(['speech_started', 'speech_stopped', 'user_transcript', 'agent_transcript', 'audio']);
    expect(of(events, 'user_transcript')[0]?.text).toBe('Do you have anything on Tuesday?');
    expect(
      of(events, 'agent_transcript')
        .map((e) => e.text)
        .join(''),
    ).toBe('You said: Do you have anything on Tuesday?');
  });

  it('barge-in cancels the response in progress and truncates its item at what was played', async () => {
    fake.scriptRealtime({
      respond: () => ({ text: 'We are open from nine to five every weekday, and on Saturdays from nine to noon.', paceMs: 20 }),
    });
    const { session, events, record } = await connect({ greeting: 'Hi!' });
    await until(() => of(events, 'audio').length >= 3);
    const itemId = of(events, 'audio')[0]?.itemId as string;
    session.interrupt(itemId, 120.4);
    await until(() => record.responses.length === 1);
    expect(record.responses[0]?.status).toBe('cancelled');
    expect(clientEvents(record, 'response.cancel')).toHaveLength(1);
    expect(clientEvents(record, 'conversation.item.truncate')).toEqual([
      { type: 'conversation.item.truncate', item_id: itemId, content_index: 0, audio_end_ms: 120 },
    ]);
    await until(() => record.truncated.length === 1);
    expect(record.truncated).toEqual([{ item_id: itemId, audio_end_ms: 120 }]);
    // the agent said less than the whole answer
    expect(
      of(events, 'agent_transcript')
        .map((e) => e.text)
        .join('').length,
    ).toBeLessThan(60);
    expect(record.errors).toEqual([]);
  });

  it('after the response is done, barge-in only truncates, never past the audio received', async () => {
    const { session, events, record } = await connect({ greeting: 'Hi!' });
    await until(() => of(events, 'response_done').length === 1);
    const itemId = of(events, 'audio')[0]?.itemId as string;
    // 32 characters x 25 ms = 800 ms of audio were generated; the engine claims more was played
    session.interrupt(itemId, 5000);
    await until(() => record.truncated.length === 1);
    expect(clientEvents(record, 'response.cancel')).toEqual([]);
    expect(record.truncated).toEqual([{ item_id: itemId, audio_end_ms: 800 }]);
    expect(record.errors).toEqual([]);
    expect(of(events, 'error')).toEqual([]);
  });

  it('a tool call round trip: one tool_call event, the output item, then the next response', async () => {
    fake.scriptRealtime({
      transcripts: ['Book me on Tuesday.'],
      respond: (ctx) =>
        ctx.toolOutputs.length
          ? { text: `Booked: ${ctx.toolOutputs[0]?.output}` }
          : { toolCall: { name: 'book_appointment', arguments: { day: 'Tuesday' } } },
    });
    const { session, events, record } = await connect({ tools: [BOOK_TOOL] });
    say(session, BROWSER_AUDIO, 300, 500);
    await until(() => of(events, 'tool_call').length === 1 && of(events, 'response_done').length === 1);
    const [call] = of(events, 'tool_call');
    expect(call?.call.name).toBe('book_appointment');
    expect(call?.call.arguments).toEqual({ day: 'Tuesday' });
    session.sendToolResults([{ callId: call?.call.id as string, output: '{"ok":true}' }]);
    await until(() => of(events, 'response_done').length === 2);
    expect(clientEvents(record, 'conversation.item.create')).toEqual([
      { type: 'conversation.item.create', item: { type: 'function_call_output', call_id: call?.call.id, output: '{"ok":true}' } },
    ]);
    expect(
      of(events, 'agent_transcript')
        .map((e) => e.text)
        .join(''),
    ).toBe('Booked: {"ok":true}');
    // arguments.done and the response.done item name the same call: reported once
    expect(of(events, 'tool_call')).toHaveLength(1);
  });

  it('several tool calls in one response: every output item first, then ONE response.create that answers them all', async () => {
    const seen: number[] = [];
    fake.scriptRealtime({
      transcripts: ['Check Tuesday and book it.'],
      respond: (ctx) => {
        if (ctx.trigger === 'client') seen.push(ctx.toolOutputs.length);
        return ctx.toolOutputs.length
          ? { text: `Done: ${ctx.toolOutputs.map((o) => o.output).join(' and ')}` }
          : {
              toolCalls: [
                { name: 'book_appointment', arguments: { day: 'Tuesday' } },
                { name: 'book_appointment', arguments: { day: 'Wednesday' } },
              ],
            };
      },
    });
    const { session, events, record } = await connect({ tools: [BOOK_TOOL] });
    say(session, BROWSER_AUDIO, 300, 500);
    await until(() => of(events, 'tool_call').length === 2 && of(events, 'response_done').length === 1);
    const calls = of(events, 'tool_call').map((e) => e.call);
    expect(calls.map((c) => c.arguments)).toEqual([{ day: 'Tuesday' }, { day: 'Wednesday' }]);
    session.sendToolResults(calls.map((c, i) => ({ callId: c.id, output: `booked ${i + 1}` })));
    await until(() => of(events, 'response_done').length === 2);
    const sent = record.events.filter((e) => e.type === 'conversation.item.create' || e.type === 'response.create');
    expect(sent.map((e) => e.type)).toEqual(['conversation.item.create', 'conversation.item.create', 'response.create']);
    // the one response saw both outputs, and nothing was refused
    expect(seen).toEqual([2]);
    expect(record.errors).toEqual([]);
    expect(
      of(events, 'agent_transcript')
        .map((e) => e.text)
        .join(''),
    ).toBe('Done: booked 1 and booked 2');
  });

  it.each([
    ['mu-law 8 kHz (phones) as audio/pcmu, passed through', PHONE_AUDIO, 'audio/pcmu', 8000],
    ['PCM16 16 kHz (browser) as 24 kHz audio/pcm, resampled both ways', BROWSER_AUDIO, 'audio/pcm', 16000],
  ] as const)('%s', async (_name, format, apiType, rate) => {
    fake.scriptRealtime({ transcripts: ['Hello?'], respond: () => ({ text: 'Hello there, caller!' }) });
    const { session, events, record } = await connect({ format });
    expect((record.session.audio as { input: { format: unknown } }).input.format).toMatchObject({ type: apiType });
    expect((record.session.audio as { output: { format: unknown } }).output.format).toMatchObject({ type: apiType });
    say(session, format, 400, 500);
    await until(() => of(events, 'response_done').length === 1);
    // input: 900 ms of caller audio reached the API in its format (24 kHz PCM16 = 48 bytes/ms; mu-law 8 bytes/ms)
    const perMs = apiType === 'audio/pcm' ? 48 : 8;
    expect(Math.abs(record.audioInBytes / perMs - 900)).toBeLessThan(2);
    // output: 20 characters x 25 ms = 500 ms of a 440 Hz tone, in the transport's own format and rate
    const audio = joinAudio(events);
    const samples =
      format.encoding === 'mulaw'
        ? decode('audio/pcmu' as FakeAudioFormat, audio)
        : new Int16Array(audio.buffer, audio.byteOffset, audio.length / 2);
    expect(Math.abs((samples.length / rate) * 1000 - 500)).toBeLessThan(2);
    expect(Math.abs(crossingsPerSecond(samples, rate) - 880)).toBeLessThan(25);
  });

  it('a refused key fails the connect as auth, without the key in the message', async () => {
    const error = await realtime
      .connect(options({ apiKey: 'sk-wrong-realtime-key-123456' }), () => {}, new AbortController().signal)
      .catch((e) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'openai', kind: 'auth' });
    expect(error.message).not.toContain('123456');
  });

  it('a model the account cannot use fails the connect with the provider message', async () => {
    const narrow = await startFakeOpenAi({ models: ['gpt-realtime'] });
    try {
      const error = await realtime
        .connect(options({ apiKey: narrow.apiKey, baseUrl: narrow.url }), () => {}, new AbortController().signal)
        .catch((e) => e);
      expect(error).toMatchObject({ kind: 'bad_request' });
      expect(error.message).toBe(
        "OpenAI Realtime error (model_not_found): The model 'gpt-4o-realtime-preview' does not exist or you do not have access to it.",
      );
    } finally {
      await narrow.close();
    }
  });

  it('refuses formats the API cannot carry, and a private Base URL of a company', async () => {
    await expect(
      realtime.connect(options({ format: { encoding: 'pcm16', sampleRate: 8000 } }), () => {}, new AbortController().signal),
    ).rejects.toMatchObject({
      kind: 'bad_request',
    });
    await expect(realtime.connect(options({ publicOnly: true }), () => {}, new AbortController().signal)).rejects.toThrow(
      /^OpenAI Base URL refused: 127\.0\.0\.1 is a loopback address/,
    );
    await expect(
      realtime.connect(
        options({ publicOnly: true, baseUrl: fake.url.replace('127.0.0.1', 'localhost') }),
        () => {},
        new AbortController().signal,
      ),
    ).rejects.toThrow(/^OpenAI Base URL refused: localhost resolves to a loopback address/);
    expect(fake.realtimeSessions).toHaveLength(0);
  });

  it('an abort closes the socket at once; a dropped connection is reported as unavailable', async () => {
    const controller = new AbortController();
    const { record } = await connect({}, controller.signal);
    controller.abort();
    await until(() => record.closed);

    const { events } = await connect();
    fake.dropRealtime();
    await until(() => of(events, 'error').length === 1);
    expect(of(events, 'error')[0]?.error).toMatchObject({ kind: 'unavailable', provider: 'openai' });
  });
});

describe('LinearResampler', () => {
  it('keeps a tone its pitch and length across 20 ms frames, both ways', () => {
    const input = tone(16000, 1000, 440, 0.5);
    const up = new LinearResampler(16000, 24000);
    const frames24: Int16Array[] = [];
    for (let i = 0; i < input.length; i += 320) frames24.push(up.push(input.subarray(i, i + 320)));
    const at24 = Int16Array.from(frames24.flatMap((f) => [...f]));
    expect(Math.abs(at24.length - 24000)).toBeLessThanOrEqual(2);
    expect(Math.abs(crossingsPerSecond(at24, 24000) - 880)).toBeLessThan(5);
    const down = new LinearResampler(24000, 16000);
    const back = Int16Array.from([...down.push(at24.subarray(0, 7000)), ...down.push(at24.subarray(7000))]);
    expect(Math.abs(back.length - 16000)).toBeLessThanOrEqual(2);
    // no click at the frame edges: neighbouring samples never jump more than the tone itself does
    const maxStep = 0.5 * 32767 * 2 * Math.sin((Math.PI * 440) / 16000) * 1.05;
    for (let i = 1; i < back.length; i++) expect(Math.abs((back[i] as number) - (back[i - 1] as number))).toBeLessThan(maxStep);
  });
});
