import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { createDeepgramStt, deepgramStt } from '../../../server/voice/providers/deepgram/stt.js';
import {
  type AudioFormat,
  BROWSER_AUDIO,
  PHONE_AUDIO,
  ProviderError,
  type SttEvent,
  type SttOptions,
} from '../../../server/voice/providers/types.js';
import { LANGUAGE_CODES } from '../../../src/api/contract/models.js';
import { DeepgramFake } from '../../fakes/deepgram.js';
import { rawUpgrade } from '../../fakes/server.js';
import { callerFrames } from '../../fakes/speech.js';

let fake: DeepgramFake;
beforeAll(async () => {
  fake = await DeepgramFake.start();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.key = 'dg-test-key-3b1f';
  fake.script = [];
  fake.connectDelayMs = 0;
  fake.idleTimeoutMs = 10_000;
  fake.failAfterAudioMs = Number.POSITIVE_INFINITY;
  fake.streams.length = 0;
});

const options = (format: AudioFormat, extra: Partial<SttOptions> = {}): SttOptions => ({
  apiKey: fake.key,
  baseUrl: fake.url,
  language: 'en-US',
  model: 'nova-2',
  format,
  keywords: ['Parley', 'Doctor Smith', 'Parley'],
  endpointingMs: 300,
  utteranceEndMs: 1000,
  ...extra,
});

async function open(format: AudioFormat, extra: Partial<SttOptions> = {}, provider = deepgramStt) {
  const events: SttEvent[] = [];
  const controller = new AbortController();
  const stream = await provider.connect(options(format, extra), (e) => events.push(e), controller.signal);
  return { stream, events, controller, record: fake.streams.at(-1)! };
}

/** the rejection of a promise that must reject (a resolved value fails the assertions that follow) */
const caughtError = (promise: Promise<unknown>) =>
  promise.then(
    (value) => value as ProviderError,
    (error: ProviderError) => error,
  );

describe.each([
  ['PCM16 16 kHz', BROWSER_AUDIO, 'linear16'],
  ['mu-law 8 kHz', PHONE_AUDIO, 'mulaw'],
] as const)('Deepgram live (%s)', (_name, format, encoding) => {
  it('asks for the format and settings and turns what the caller said into events', async () => {
    fake.script = ['I need to move my appointment'];
    const { stream, events, record } = await open(format);
    expect(Object.fromEntries([...record.query].filter(([k]) => k !== 'keywords'))).toEqual({
      model: 'nova-2',
      language: 'en-US',
      encoding,
      sample_rate: String(format.sampleRate),
      channels: '1',
      interim_results: 'true',
      endpointing: '300',
      utterance_end_ms: '1000',
      vad_events: 'true',
      smart_format: 'true',
    });
    expect(record.query.getAll('keywords')).toEqual(['Parley:2', 'Doctor:2', 'Smith:2']);

    for (const frame of callerFrames(format, [
      ['silence', 200],
      ['speech', 900],
      ['silence', 1500],
    ]))
      stream.sendAudio(frame);
    await vi.waitFor(() => expect(events.map((e) => e.type)).toContain('utterance_end'));

    const transcripts = events.filter((e) => e.type === 'transcript');
    const final = transcripts.at(-1)!;
    expect(events[0]!.type).toBe('speech_started');
    expect(final).toMatchObject({ text: 'I need to move my appointment', isFinal: true, speechFinal: true });
    const interims = transcripts.slice(0, -1);
    expect(interims.length).toBeGreaterThan(1);
    for (const interim of interims) {
      expect(interim.isFinal).toBe(false);
      expect('I need to move my appointment'.startsWith(interim.text)).toBe(true);
    }
    expect(events.at(-1)!.type).toBe('utterance_end');
    expect(stream.audioSeconds).toBeCloseTo(2.6, 5);
    expect(record.audioBytes).toBe(2.6 * format.sampleRate * (encoding === 'mulaw' ? 1 : 2));

    await stream.close();
    expect(record.controls.at(-1)).toBe('CloseStream');
    expect(record.closed).toMatchObject({ code: 1000, by: 'fake' });
    expect(events.some((e) => e.type === 'error')).toBe(false);
  });

  it('finalises what it has heard when asked to', async () => {
    fake.script = ['yes please'];
    const { stream, events, record } = await open(format);
    for (const frame of callerFrames(format, [['speech', 500]])) stream.sendAudio(frame);
    stream.finalize();
    await vi.waitFor(() => expect(events.some((e) => e.type === 'transcript' && e.isFinal)).toBe(true));
    expect(events.find((e) => e.type === 'transcript' && e.isFinal)).toMatchObject({ text: 'yes please', speechFinal: false });
    expect(record.controls).toEqual(['Finalize']);
    await stream.close();
  });
});

describe('Deepgram live: keywords, failures and lifecycle', () => {
  it('boosts keywords with keyterm on Nova-3, phrases whole', async () => {
    const { stream, record } = await open(BROWSER_AUDIO, { model: 'nova-3', language: 'fr-FR' });
    expect(record.query.getAll('keyterm')).toEqual(['Parley', 'Doctor Smith']);
    expect(record.query.has('keywords')).toBe(false);
    expect(record.query.get('language')).toBe('fr');
    await stream.close();
  });

  it('asks for every language of the editor in a form Nova-2 takes', async () => {
    const asked: string[] = [];
    for (const language of LANGUAGE_CODES) {
      const { stream, record } = await open(PHONE_AUDIO, { language });
      asked.push(record.query.get('language')!);
      await stream.close();
    }
    expect(asked).toEqual(['en-US', 'es', 'fr', 'de', 'it', 'pt-BR', 'zh-CN', 'ja', 'ko-KR', 'ru']);
  });

  it('rejects a refused key as auth, without the key in the message', async () => {
    const error = await caughtError(open(BROWSER_AUDIO, { apiKey: 'dg-wrong-key-77' }));
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: 'deepgram', kind: 'auth', status: 401 });
    expect(error.message).not.toContain('dg-wrong-key-77');
    expect(fake.streams).toEqual([]);
  });

  it('rejects what Deepgram refuses as a bad request naming the problem', async () => {
    const error = await caughtError(open(BROWSER_AUDIO, { model: 'whisper-giant' }));
    expect(error).toMatchObject({ kind: 'bad_request', status: 400 });
    expect(error.message).toContain('No such model: whisper-giant');
  });

  it('reports a stream that fails mid-way as unavailable', async () => {
    const { stream, events } = await open(BROWSER_AUDIO);
    for (const frame of callerFrames(BROWSER_AUDIO, [['speech', 200]])) stream.sendAudio(frame);
    fake.failStreams();
    await vi.waitFor(() => expect(events.some((e) => e.type === 'error')).toBe(true));
    const error = events.find((e) => e.type === 'error')!.error;
    expect(error).toMatchObject({ provider: 'deepgram', kind: 'unavailable' });
    expect(error.message).toContain('1011');
    await stream.close();
  });

  it('gives up on a provider slower than the connect time limit', async () => {
    fake.connectDelayMs = 1000;
    const error = await caughtError(open(BROWSER_AUDIO, {}, createDeepgramStt({ connectTimeoutMs: 100 })));
    expect(error).toMatchObject({ provider: 'deepgram', kind: 'timeout' });
  });

  it('closes the socket at once on abort, without an error event', async () => {
    const { stream, events, controller, record } = await open(BROWSER_AUDIO);
    controller.abort();
    await record.whenClosed;
    expect(record.closed?.by).toBe('client');
    stream.sendAudio(callerFrames(BROWSER_AUDIO, [['speech', 20]])[0]!);
    expect(record.audioBytes).toBe(0);
    expect(events).toEqual([]);
    await stream.close();
  });

  it('an abort before the upgrade is answered rejects with the abort reason', async () => {
    fake.connectDelayMs = 1000;
    const controller = new AbortController();
    const pending = deepgramStt.connect(options(BROWSER_AUDIO), () => {}, controller.signal);
    controller.abort(new Error('hung up'));
    await expect(pending).rejects.toThrow('hung up');
  });

  it('keeps a silent stream open with KeepAlive past the idle limit', async () => {
    fake.idleTimeoutMs = 2000;
    const { stream, record } = await open(BROWSER_AUDIO, {}, createDeepgramStt({ keepAliveMs: 100 }));
    // 25 KeepAlives take 2.5 s: longer than the fake's idle limit, so the stream lived past it
    await vi.waitFor(() => expect(record.controls.filter((c) => c === 'KeepAlive').length).toBeGreaterThanOrEqual(25), {
      timeout: 10_000,
    });
    expect(record.closed).toBeNull();
    await stream.close();
    expect(record.closed).toMatchObject({ code: 1000, by: 'fake' });
  });
});

describe('the Deepgram fake refuses what Deepgram refuses', () => {
  const upgrade = async (query: string, headers: Record<string, string> = { Authorization: `Token ${fake.key}` }) => {
    const answer = await rawUpgrade(`${fake.url}/v1/listen?${query}`, headers);
    if (!(answer instanceof WebSocket)) return answer;
    answer.close();
    return 'open';
  };
  const good = 'model=nova-2&language=en-US&encoding=linear16&sample_rate=16000&channels=1';

  it('checks the key first', async () => {
    expect(await upgrade(good)).toBe('open');
    expect(await upgrade(good, { Authorization: 'Token nope' })).toMatchObject({ status: 401 });
    expect(await upgrade(good, {})).toMatchObject({ status: 401 });
    expect(await upgrade('encoding=wav', { Authorization: 'Bearer nope' })).toMatchObject({ status: 401 });
  });

  it('checks the audio format, model, language and keyword parameters', async () => {
    for (const [query, message] of [
      ['model=nova-2&encoding=wav&sample_rate=16000', 'Invalid encoding: wav'],
      ['model=nova-2&encoding=linear16', 'sample_rate is required for raw audio'],
      ['model=nova-2&language=xx-YY&encoding=mulaw&sample_rate=8000', 'No such model/language combination'],
      ['model=nova-3&encoding=linear16&sample_rate=16000&keywords=Parley:2', 'Keywords are not supported for Nova-3'],
      ['model=nova-2&encoding=linear16&sample_rate=16000&keyterm=Parley', 'Keyterm prompting is only available for Nova-3'],
      [
        'model=nova-2&encoding=linear16&sample_rate=16000&utterance_end_ms=1000',
        'utterance_end_ms requires interim_results=true',
      ],
    ]) {
      const answer = await upgrade(query!);
      expect(answer).toMatchObject({ status: 400 });
      expect(JSON.parse((answer as { body: string }).body).err_msg).toContain(message);
    }
  });

  it('closes a stream that sends an unknown message, and one that sends nothing', async () => {
    fake.idleTimeoutMs = 200;
    const closeOf = (send?: string) =>
      new Promise<{ code: number; reason: string }>((resolve) => {
        const ws = new WebSocket(`${fake.url.replace('http', 'ws')}/v1/listen?${good}`, {
          headers: { Authorization: `Token ${fake.key}` },
        });
        ws.on('open', () => send && ws.send(send));
        ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
      });
    expect(await closeOf('{"type":"Hello"}')).toMatchObject({ code: 1008 });
    expect(await closeOf('not json')).toMatchObject({ code: 1008 });
    expect((await closeOf()).reason).toContain('NET-0001');
  });
});
