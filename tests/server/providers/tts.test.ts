import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { ELEVENLABS_VOICES_URL, fetchElevenLabsVoices } from '../../../server/modules/voices/voice.elevenlabs.js';
import { rmsLevel } from '../../../server/voice/audio/level.js';
import { toSamples } from '../../../server/voice/audio/pcm16.js';
import { CARTESIA_VERSION, cartesiaModelId, createCartesiaTts } from '../../../server/voice/providers/cartesia/tts.js';
import { createElevenLabsTts, elevenLabsModelId } from '../../../server/voice/providers/elevenlabs/tts.js';
import {
  type AudioFormat,
  BROWSER_AUDIO,
  bytesPerMs,
  PHONE_AUDIO,
  type ProviderError,
  type TtsEvent,
  type TtsOptions,
  type TtsProvider,
} from '../../../server/voice/providers/types.js';
import { LANGUAGE_CODES, VOICE_MODEL_IDS } from '../../../src/api/contract/models.js';
import { CartesiaFake, type CartesiaRecord } from '../../fakes/cartesia.js';
import { ElevenLabsFake, type StreamInputRecord } from '../../fakes/elevenlabs.js';
import { rawUpgrade } from '../../fakes/server.js';

let elevenlabs: ElevenLabsFake;
let cartesia: CartesiaFake;
beforeAll(async () => {
  [elevenlabs, cartesia] = await Promise.all([ElevenLabsFake.start(), CartesiaFake.start()]);
});
afterAll(() => Promise.all([elevenlabs.close(), cartesia.close()]));
beforeEach(() => {
  elevenlabs.key = 'xi-test-key-9c2d';
  cartesia.key = 'sk_car_test_41aa';
  for (const fake of [elevenlabs, cartesia]) {
    fake.connectDelayMs = 0;
    fake.firstByteDelayMs = 0;
    fake.chunkIntervalMs = 0;
    fake.streams.length = 0;
  }
});

interface Case {
  name: string;
  fake: () => ElevenLabsFake | CartesiaFake;
  create: (config?: { connectTimeoutMs?: number; responseTimeoutMs?: number }) => TtsProvider;
  model: string;
}
const CASES: Case[] = [
  { name: 'ElevenLabs', fake: () => elevenlabs, create: createElevenLabsTts, model: 'eleven_flash_v2_5' },
  { name: 'Cartesia', fake: () => cartesia, create: createCartesiaTts, model: 'sonic-3' },
];

const options = (c: Case, format: AudioFormat, extra: Partial<TtsOptions> = {}): TtsOptions => ({
  apiKey: c.fake().key,
  baseUrl: c.fake().url,
  voiceId: 'voice-7Kx',
  model: c.model,
  language: 'es-ES',
  format,
  speed: 1.1,
  stability: 0.4,
  similarity: 0.8,
  volume: 1,
  ...extra,
});

async function open(c: Case, format: AudioFormat, extra: Partial<TtsOptions> = {}, config = {}) {
  const events: TtsEvent[] = [];
  const controller = new AbortController();
  const stream = await c.create(config).connect(options(c, format, extra), (e) => events.push(e), controller.signal);
  return { stream, events, controller, record: c.fake().streams.at(-1)! };
}

const audioOf = (events: TtsEvent[]) => events.flatMap((e) => (e.type === 'audio' ? [e.chunk] : []));
const bytes = (chunks: Uint8Array[]) => chunks.reduce((sum, c) => sum + c.byteLength, 0);
/** the rejection of a promise that must reject (a resolved value fails the assertions that follow) */
const caughtError = (promise: Promise<unknown>) =>
  promise.then(
    (value) => value as ProviderError,
    (error: ProviderError) => error,
  );
const SENTENCES = ['Hola, soy la recepcionista.', 'En que puedo ayudarle hoy?'];
const LONG = 'Le llamo para confirmar su cita del martes por la tarde con la doctora.';

describe.each(CASES)('$name TTS', (c) => {
  describe.each([
    ['PCM16 16 kHz', BROWSER_AUDIO],
    ['mu-law 8 kHz', PHONE_AUDIO],
  ] as const)('in %s', (_name, format) => {
    it('speaks each sentence in the format asked for, then says done', async () => {
      const { stream, events, record } = await open(c, format);
      for (const sentence of SENTENCES) stream.sendText(sentence);
      stream.end();
      await vi.waitFor(() => expect(events.at(-1)?.type).toBe('done'));
      const chunks = audioOf(events);
      // the fakes speak 65 ms per character sent (each sentence with its trailing space)
      const expectedMs = SENTENCES.reduce((ms, s) => ms + (s.length + 1) * 65, 0);
      expect(bytes(chunks)).toBe(expectedMs * bytesPerMs(format));
      expect(events.filter((e) => e.type !== 'audio').map((e) => e.type)).toEqual(['done']);
      for (const chunk of chunks) expect(rmsLevel(toSamples(chunk, format))).toBeGreaterThan(0.15);
      expect(stream.characters).toBe(SENTENCES.join('').length);
      await record.whenClosed;
    });
  });

  it('rejects a refused key as auth, without the key in the message', async () => {
    const error = await caughtError(open(c, BROWSER_AUDIO, { apiKey: 'wrong-key-5f1e' }));
    expect(error).toMatchObject({ kind: 'auth', status: 401 });
    expect(error.message).not.toContain('wrong-key-5f1e');
  });

  it('reports a provider failing mid-stream as unavailable', async () => {
    c.fake().chunkIntervalMs = 30;
    const { stream, events } = await open(c, BROWSER_AUDIO);
    stream.sendText(LONG);
    stream.end();
    await vi.waitFor(() => expect(audioOf(events).length).toBeGreaterThan(0));
    c.fake().failStreams();
    await vi.waitFor(() => expect(events.at(-1)?.type).toBe('error'));
    expect(events.at(-1)).toMatchObject({ error: { kind: 'unavailable' } });
    expect(events.some((e) => e.type === 'done')).toBe(false);
  });

  it('gives up on a first byte slower than the time limit', async () => {
    c.fake().firstByteDelayMs = 2000;
    const { stream, events, record } = await open(c, BROWSER_AUDIO, {}, { responseTimeoutMs: 150 });
    stream.sendText(SENTENCES[0]!);
    await vi.waitFor(() => expect(events).toHaveLength(1));
    expect(events[0]).toMatchObject({ type: 'error', error: { kind: 'timeout' } });
    await record.whenClosed;
    expect(audioOf(events)).toEqual([]);
  });

  it('gives up on an upgrade slower than the connect time limit', async () => {
    c.fake().connectDelayMs = 1000;
    const error = await caughtError(open(c, BROWSER_AUDIO, {}, { connectTimeoutMs: 100 }));
    expect(error).toMatchObject({ kind: 'timeout' });
  });

  it('stops at once on cancel (barge-in): no audio after it, the provider is told', async () => {
    c.fake().chunkIntervalMs = 25;
    const { stream, events, record } = await open(c, BROWSER_AUDIO);
    stream.sendText(LONG);
    stream.end();
    await vi.waitFor(() => expect(audioOf(events).length).toBeGreaterThan(0));
    stream.cancel();
    const heard = events.length;
    await record.whenClosed;
    expect(record.closed?.by).toBe('client');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(events.length).toBe(heard);
    expect(events.some((e) => e.type === 'done' || e.type === 'error')).toBe(false);
    expect(bytes(audioOf(events))).toBeLessThan((LONG.length + 1) * 65 * bytesPerMs(BROWSER_AUDIO));
  });

  it('closes the socket at once on abort, without events', async () => {
    const { stream, events, controller, record } = await open(c, BROWSER_AUDIO);
    controller.abort();
    await record.whenClosed;
    stream.sendText(SENTENCES[0]!);
    expect(events).toEqual([]);
  });

  it('ends a turn with no text without asking the provider for anything', async () => {
    const { stream, events, record } = await open(c, BROWSER_AUDIO);
    stream.sendText('  ');
    stream.end();
    expect(events).toEqual([{ type: 'done' }]);
    await record.whenClosed;
    expect(stream.characters).toBe(0);
  });
});

describe('ElevenLabs stream-input', () => {
  const el = CASES[0]!;

  it('sends the voice settings first, each text with a trailing space, flush at sentence ends, "" at the end', async () => {
    const { stream, events, record: r } = await open(el, PHONE_AUDIO, { speed: 1.9, stability: 1.4, similarity: 0.3 });
    const record = r as StreamInputRecord;
    stream.sendText('Un momento,');
    stream.sendText(' por favor.');
    stream.end();
    await vi.waitFor(() => expect(events.at(-1)?.type).toBe('done'));
    expect(record.voiceId).toBe('voice-7Kx');
    expect(Object.fromEntries(record.query)).toEqual({
      model_id: 'eleven_flash_v2_5',
      output_format: 'ulaw_8000',
      inactivity_timeout: '60',
      language_code: 'es',
    });
    expect(record.voiceSettings).toEqual({ stability: 1, similarity_boost: 0.3, speed: 1.2 });
    expect(record.generationConfig).toEqual({ chunk_length_schedule: [50, 120, 160, 250] });
    expect(record.texts).toEqual(['Un momento, ', ' por favor. ', '']);
    expect(record.flushes).toBe(1);
  });

  it('leaves language_code out for the models that refuse it, and scales the audio by the volume', async () => {
    const loud = await open(el, BROWSER_AUDIO, { model: 'eleven_turbo_v2', language: 'en-US' });
    const quiet = await open(el, BROWSER_AUDIO, { model: 'eleven_turbo_v2', language: 'en-US', volume: 0.5, speed: 0.2 });
    for (const { stream } of [loud, quiet]) {
      stream.sendText('Hello.');
      stream.end();
    }
    await vi.waitFor(() => expect([loud.events.at(-1)?.type, quiet.events.at(-1)?.type]).toEqual(['done', 'done']));
    expect((loud.record as StreamInputRecord).query.has('language_code')).toBe(false);
    expect((quiet.record as StreamInputRecord).voiceSettings?.speed).toBe(0.7);
    const level = (events: TtsEvent[]) => rmsLevel(toSamples(Buffer.concat(audioOf(events)), BROWSER_AUDIO));
    expect(level(quiet.events) / level(loud.events)).toBeCloseTo(0.5, 2);
  });

  it('maps every voice model of the editor, for every language, to a model the socket takes', async () => {
    for (const voiceModel of VOICE_MODEL_IDS) {
      for (const language of LANGUAGE_CODES) {
        const model = elevenLabsModelId(voiceModel, language);
        const { stream, events, record } = await open(el, PHONE_AUDIO, { model, language });
        stream.end();
        expect(events).toEqual([{ type: 'done' }]);
        await record.whenClosed;
      }
    }
    expect(elevenLabsModelId('auto', 'en-US')).toBe('eleven_flash_v2');
    expect(elevenLabsModelId('auto', 'ja-JP')).toBe('eleven_flash_v2_5');
    expect(elevenLabsModelId('turbo', 'en-US')).toBe('eleven_turbo_v2');
    expect(elevenLabsModelId('turbo', 'de-DE')).toBe('eleven_turbo_v2_5');
    expect(elevenLabsModelId('multilingual_v2', 'fr-FR')).toBe('eleven_multilingual_v2');
  });

  it('takes a model the socket does not offer as a bad request, not a refused key', async () => {
    const error = await caughtError(open(el, BROWSER_AUDIO, { model: 'eleven_v3' }));
    expect(error).toMatchObject({ kind: 'bad_request', status: 403 });
  });
});

describe('Cartesia TTS websocket', () => {
  const ca = CASES[1]!;

  it('sends one context: continuations with the format, voice, language and generation config, then continue:false', async () => {
    const { stream, events, record: r } = await open(ca, PHONE_AUDIO, { speed: 3, volume: 0.1 });
    const record = r as CartesiaRecord;
    for (const sentence of SENTENCES) stream.sendText(sentence);
    stream.end();
    await vi.waitFor(() => expect(events.at(-1)?.type).toBe('done'));
    expect(record.apiKey).toBe(cartesia.key);
    expect(record.version).toBe(CARTESIA_VERSION);
    const contextId = record.requests[0]!.context_id;
    expect(typeof contextId).toBe('string');
    const common = {
      model_id: 'sonic-3',
      voice: { mode: 'id', id: 'voice-7Kx' },
      language: 'es',
      context_id: contextId,
      output_format: { container: 'raw', encoding: 'pcm_mulaw', sample_rate: 8000 },
      generation_config: { speed: 1.5, volume: 0.5 },
    };
    expect(record.requests).toEqual([
      { ...common, transcript: `${SENTENCES[0]} `, continue: true },
      { ...common, transcript: `${SENTENCES[1]} `, continue: true },
      { ...common, transcript: '', continue: false },
    ]);
    expect(cartesiaModelId('multilingual_v2')).toBe('sonic-3');
  });

  it('sends cancel for its context on barge-in', async () => {
    cartesia.chunkIntervalMs = 25;
    const { stream, events, record: r } = await open(ca, BROWSER_AUDIO);
    const record = r as CartesiaRecord;
    stream.sendText(LONG);
    await vi.waitFor(() => expect(audioOf(events).length).toBeGreaterThan(0));
    stream.cancel();
    await record.whenClosed;
    expect(record.cancels).toEqual([record.requests[0]!.context_id]);
  });

  it('turns an error message for its context into an error event with the provider status', async () => {
    const { stream, events } = await open(ca, BROWSER_AUDIO, { voiceId: '' });
    stream.sendText('Hola.');
    await vi.waitFor(() => expect(events).toHaveLength(1));
    expect(events[0]).toMatchObject({ type: 'error', error: { provider: 'cartesia', kind: 'bad_request', status: 400 } });
    expect((events[0] as { error: ProviderError }).error.message).toContain('Invalid voice');
  });
});

describe('the TTS fakes refuse what the providers refuse', () => {
  const upgrade = rawUpgrade;
  const closeAfter = (ws: WebSocket, messages: unknown[]) =>
    new Promise<{ code: number; reason: string }>((resolve) => {
      ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
      for (const m of messages) ws.send(JSON.stringify(m));
    });
  const replies = (ws: WebSocket, messages: unknown[], count: number) =>
    new Promise<Record<string, unknown>[]>((resolve) => {
      const got: Record<string, unknown>[] = [];
      ws.on('message', (data) => {
        got.push(JSON.parse(data.toString()));
        if (got.length === count) resolve(got);
      });
      for (const m of messages) ws.send(JSON.stringify(m));
    });

  it('ElevenLabs: the key, the model, the output format and language_code on the upgrade', async () => {
    const base = `${elevenlabs.url}/v1/text-to-speech/v1/stream-input`;
    const key = { 'xi-api-key': elevenlabs.key };
    expect(await upgrade(`${base}?model_id=eleven_flash_v2&output_format=pcm_16000`, { 'xi-api-key': 'nope' })).toMatchObject({
      status: 401,
    });
    expect(await upgrade(`${base}?model_id=eleven_v3&output_format=pcm_16000`, key)).toMatchObject({ status: 403 });
    expect(await upgrade(`${base}?model_id=eleven_flash_v2&output_format=pcm_12345`, key)).toMatchObject({ status: 400 });
    expect(await upgrade(`${base}?model_id=eleven_flash_v2&output_format=pcm_16000&language_code=es`, key)).toMatchObject({
      status: 400,
    });
    const ok = await upgrade(`${base}?model_id=eleven_flash_v2_5&output_format=ulaw_8000&language_code=es`, key);
    expect(ok).toBeInstanceOf(WebSocket);
    (ok as WebSocket).close();
  });

  it('ElevenLabs: the first message, the voice settings and the key sent in the first message', async () => {
    const url = `${elevenlabs.url}/v1/text-to-speech/v1/stream-input?model_id=eleven_flash_v2&output_format=pcm_16000`;
    const key = { 'xi-api-key': elevenlabs.key };
    const cases: [Record<string, string>, unknown[], string][] = [
      [key, [{ text: 'Hello' }], 'single space'],
      [key, [{ text: ' ', voice_settings: { speed: 2 } }], 'speed'],
      [
        key,
        [
          { text: ' ', voice_settings: { stability: 0.5 } },
          { text: 'Hi ', voice_settings: { stability: 0.9 } },
        ],
        'voice_settings field',
      ],
      [key, [{ text: ' ', generation_config: { chunk_length_schedule: [10] } }], 'chunk_length_schedule'],
      [{}, [{ text: ' ', xi_api_key: 'nope' }], 'invalid_api_key'],
      [key, ['not an object'], 'Invalid message'],
    ];
    for (const [headers, messages, reason] of cases) {
      const ws = (await upgrade(url, headers)) as WebSocket;
      const closed = await closeAfter(ws, messages);
      expect(closed.code).toBe(1008);
      expect(closed.reason).toContain(reason);
    }
    const ws = (await upgrade(`${url.replace('pcm_16000', 'pcm_8000')}&inactivity_timeout=1`, key)) as WebSocket;
    expect(await closeAfter(ws, [{ text: ' ' }])).toMatchObject({
      code: 1008,
      reason: expect.stringContaining('within the timeout of 1 seconds'),
    });
  });

  it('Cartesia: the key and the version on the upgrade, then each request', async () => {
    const url = `${cartesia.url}/tts/websocket`;
    expect(await upgrade(url, { 'X-API-Key': 'nope', 'Cartesia-Version': CARTESIA_VERSION })).toMatchObject({ status: 401 });
    expect(await upgrade(url, { 'X-API-Key': cartesia.key })).toMatchObject({ status: 400 });
    expect(await upgrade(`${url}?api_key=${cartesia.key}&cartesia_version=1999-01-01`, {})).toMatchObject({ status: 400 });
    const ws = (await upgrade(url, {
      Authorization: `Bearer ${cartesia.key}`,
      'Cartesia-Version': CARTESIA_VERSION,
    })) as WebSocket;
    const request = {
      model_id: 'sonic-3',
      transcript: 'Hola. ',
      voice: { mode: 'id', id: 'v' },
      context_id: 'c1',
      output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 16000 },
      continue: true,
    };
    const answers = await replies(
      ws,
      [
        { ...request, model_id: 'sonic-9' },
        { ...request, context_id: 'c2', output_format: { container: 'raw', encoding: 'pcm_s24le', sample_rate: 16000 } },
        { ...request, context_id: 'c3', output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 12000 } },
        { ...request, context_id: 'c4', generation_config: { speed: 2 } },
        { ...request, context_id: 'c5', language: 'xx' },
        'not an object',
        { ...request, context_id: 'c6', chunkMs: 1, transcript: 'a' },
        { ...request, context_id: 'c6', voice: { mode: 'id', id: 'other' } },
      ],
      8,
    );
    const errors = answers.filter((a) => a.type === 'error');
    expect(errors.map((e) => [e.context_id, e.status_code, e.title])).toEqual([
      ['c1', 400, 'Invalid model'],
      ['c2', 400, 'Invalid output format'],
      ['c3', 400, 'Invalid output format'],
      ['c4', 400, 'Invalid generation config'],
      ['c5', 400, 'Invalid language'],
      [undefined, 400, 'Invalid request'],
      ['c6', 400, 'Invalid continuation'],
    ]);
    expect(answers.filter((a) => a.type === 'chunk').map((a) => a.context_id)).toEqual(['c6']);
    ws.close();
  });
});

describe('ElevenLabs voice list under the configured base URL', () => {
  it('reads the account voices from the same base as the TTS socket, with the key checked', async () => {
    const voices = await fetchElevenLabsVoices({}, elevenlabs.key, `${elevenlabs.url}/`);
    expect(voices).toEqual([
      { voice_id: 'fake-voice-1', name: 'Fake Receptionist', labels: { gender: 'female' }, source: 'elevenlabs' },
    ]);
    await expect(fetchElevenLabsVoices({}, 'nope', elevenlabs.url)).rejects.toMatchObject({ kind: 'rejected' });
    expect(ELEVENLABS_VOICES_URL).toBe('https://api.elevenlabs.io/v1/voices');
  });
});
