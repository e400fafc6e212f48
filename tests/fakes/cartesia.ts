/**
 * A fake of Cartesia's TTS WebSocket (`/tts/websocket`), faithful to the documents read for it:
 * - https://docs.cartesia.ai/api-reference/tts/websocket: generation requests (model_id, transcript,
 *   voice {mode:'id', id}, language, context_id, output_format {container:'raw', encoding, sample_rate},
 *   generation_config, continue), cancel `{context_id, cancel:true}`; answers `chunk` (base64 `data`),
 *   `done`, `error` (status_code, title, message, error_code), `timestamps`, `flush_done`
 * - https://docs.cartesia.ai/use-the-api/api-conventions and /get-started/authenticate-your-client-applications:
 *   the key as `X-API-Key`, `Authorization: Bearer` or `?api_key=`; the version as `Cartesia-Version` or
 *   `?cartesia_version=` (the query wins), one of the dated versions
 * - https://docs.cartesia.ai/api-reference/voices/list: GET /voices with the same key and version headers,
 *   answering {data: [voice], has_more} (the Providers page's key check)
 * - https://docs.cartesia.ai/build-with-cartesia/capability-guides/stream-inputs-using-continuations (contexts)
 * - https://docs.cartesia.ai/build-with-cartesia/capability-guides/volume-speed-emotion (speed 0.6-1.5,
 *   volume 0.5-2.0), /api-reference/tts/bytes (encodings pcm_f32le/pcm_s16le/pcm_mulaw/pcm_alaw; sample
 *   rates 8000-48000)
 *
 * A wrong or missing key is a 401 on the upgrade, a missing or unknown version a 400. A request that Cartesia
 * would refuse gets an `error` message for its context (bad model, voice, format, language, generation_config,
 * a continuation that changes the model/voice/format, input on a finished context). Speech is `msPerChar`
 * ms of a 440 Hz tone per character of each transcript, sent in `chunkMs` chunks after `firstByteDelayMs`,
 * `chunkIntervalMs` apart; `continue:false` (or no continue) adds `done` after the audio; a cancel drops
 * what the context has not sent. pcm_f32le and pcm_alaw are refused as not implemented.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { FakeProvider, refuseUpgrade, type StreamRecord } from './server.js';
import { FakeVoice, Outbox } from './speech.js';

const VERSIONS = new Set(['2024-06-10', '2024-11-13', '2025-04-16', '2026-03-01']);
const MODEL = /^sonic(-(2|3|3\.5|turbo|english|multilingual|latest))?(-\d{4}-\d{2}-\d{2})?$/;
const ENCODINGS = new Set(['pcm_f32le', 'pcm_s16le', 'pcm_mulaw', 'pcm_alaw']);
const SAMPLE_RATES = new Set([8000, 16000, 22050, 24000, 44100, 48000]);
const LANGUAGES = new Set(
  'en fr de es pt zh ja hi it ko nl pl ru sv tr tl bg ro ar cs el fi hr ms sk da ta uk hu no vi bn th he ka id te gu kn ml mr pa'.split(
    ' ',
  ),
);

export interface CartesiaRecord extends StreamRecord {
  apiKey: string | null;
  version: string | null;
  /** every generation request received, as sent */
  requests: Record<string, unknown>[];
  /** context ids cancelled */
  cancels: string[];
  /** chunk messages sent */
  chunks: number;
}

interface Context {
  signature: string;
  outbox: Outbox;
  voice: FakeVoice;
  finished: boolean;
}

class RequestError extends Error {
  constructor(
    readonly title: string,
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

const inRange = (value: unknown, min: number, max: number) => typeof value === 'number' && value >= min && value <= max;

/** Checks a generation request as Cartesia does; throws a RequestError. */
function checkRequest(m: Record<string, unknown>): void {
  if (typeof m.model_id !== 'string' || !MODEL.test(m.model_id)) {
    throw new RequestError('Invalid model', 'The model is not valid, make sure it is a valid model ID.', 'model_not_found');
  }
  if (typeof m.transcript !== 'string')
    throw new RequestError('Invalid request', 'transcript must be a string', 'invalid_request');
  const voice = m.voice as { mode?: unknown; id?: unknown } | undefined;
  if (voice?.mode !== 'id' || typeof voice.id !== 'string' || !voice.id) {
    throw new RequestError('Invalid voice', 'voice must be {"mode":"id","id":"<voice id>"}', 'invalid_voice');
  }
  const format = m.output_format as { container?: unknown; encoding?: unknown; sample_rate?: unknown } | undefined;
  if (format?.container !== 'raw' || !ENCODINGS.has(String(format.encoding)) || !SAMPLE_RATES.has(Number(format.sample_rate))) {
    throw new RequestError(
      'Invalid output format',
      'output_format must be raw with a supported encoding and sample rate',
      'invalid_output_format',
    );
  }
  if (format.encoding !== 'pcm_s16le' && format.encoding !== 'pcm_mulaw') {
    throw new RequestError('Invalid output format', `fake: ${String(format.encoding)} is not implemented`, 'not_implemented');
  }
  if (m.language !== undefined && !LANGUAGES.has(String(m.language))) {
    throw new RequestError('Invalid language', `Language ${String(m.language)} is not supported`, 'invalid_language');
  }
  const config = m.generation_config as { speed?: unknown; volume?: unknown } | undefined;
  if (config !== undefined) {
    if (config.speed !== undefined && !inRange(config.speed, 0.6, 1.5)) {
      throw new RequestError(
        'Invalid generation config',
        'generation_config.speed must be between 0.6 and 1.5',
        'invalid_request',
      );
    }
    if (config.volume !== undefined && !inRange(config.volume, 0.5, 2)) {
      throw new RequestError(
        'Invalid generation config',
        'generation_config.volume must be between 0.5 and 2.0',
        'invalid_request',
      );
    }
  }
  if (m.continue !== undefined && typeof m.continue !== 'boolean') {
    throw new RequestError('Invalid request', 'continue must be a boolean', 'invalid_request');
  }
}

export class CartesiaFake extends FakeProvider<CartesiaRecord> {
  key = 'sk_car_fake';
  protected readonly failure = { code: 1011, reason: 'internal server error' };
  msPerChar = 65;
  chunkMs = 100;
  firstByteDelayMs = 0;
  chunkIntervalMs = 0;

  static async start(): Promise<CartesiaFake> {
    const fake = new CartesiaFake();
    await fake.listen();
    return fake;
  }

  /** GET /voices (List Voices): the key and the version as the socket checks them, then one voice. */
  protected override request(req: IncomingMessage, res: ServerResponse): void {
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const url = new URL(req.url ?? '/', 'http://fake');
    if (req.method !== 'GET' || url.pathname !== '/voices') {
      json(404, { error: 'Not found' });
      return;
    }
    const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const apiKey = (req.headers['x-api-key'] as string | undefined) ?? bearer ?? null;
    if (apiKey !== this.key) {
      json(401, { error: 'Invalid API key' });
      return;
    }
    const version = (req.headers['cartesia-version'] as string | undefined) ?? null;
    if (version === null || !VERSIONS.has(version)) {
      json(400, { error: `Invalid Cartesia-Version: ${version ?? '(missing)'}` });
      return;
    }
    json(200, { data: [{ id: 'fake-voice-1', name: 'Fake', language: 'en', is_public: true }], has_more: false });
  }

  protected async upgrade(req: IncomingMessage, socket: Duplex, accept: () => Promise<WebSocket>) {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname !== '/tts/websocket') return refuseUpgrade(socket, 404, { error: 'Not found' });
    const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const apiKey = url.searchParams.get('api_key') ?? (req.headers['x-api-key'] as string | undefined) ?? bearer ?? null;
    if (apiKey !== this.key) return refuseUpgrade(socket, 401, { error: 'Invalid API key' });
    const version = url.searchParams.get('cartesia_version') ?? (req.headers['cartesia-version'] as string | undefined) ?? null;
    if (version === null || !VERSIONS.has(version)) {
      return refuseUpgrade(socket, 400, { error: `Invalid Cartesia-Version: ${version ?? '(missing)'}` });
    }
    const ws = await accept();
    const contexts = new Map<string, Context>();
    const record = this.track(ws, { apiKey, version, requests: [], cancels: [], chunks: 0 }, () => {
      for (const context of contexts.values()) context.outbox.cancel();
    });
    const send = (message: Record<string, unknown>) => {
      if (!record.closed) ws.send(JSON.stringify(message));
    };
    const error = (contextId: unknown, e: RequestError) =>
      send({
        type: 'error',
        ...(typeof contextId === 'string' ? { context_id: contextId } : {}),
        status_code: 400,
        done: true,
        title: e.title,
        message: e.message,
        error_code: e.code,
      });

    ws.on('message', (data: Buffer, isBinary) => {
      let m: Record<string, unknown>;
      try {
        m = JSON.parse(data.toString());
        if (isBinary || typeof m !== 'object' || m === null || Array.isArray(m)) throw new Error();
      } catch {
        return error(undefined, new RequestError('Invalid request', 'The message is not a JSON object', 'invalid_request'));
      }
      if (m.cancel === true) {
        if (typeof m.context_id !== 'string')
          return error(undefined, new RequestError('Invalid request', 'cancel needs a context_id', 'invalid_request'));
        record.cancels.push(m.context_id);
        const context = contexts.get(m.context_id);
        if (context) {
          context.outbox.cancel();
          context.finished = true;
        }
        return;
      }
      try {
        checkRequest(m);
      } catch (e) {
        return error(m.context_id, e as RequestError);
      }
      record.requests.push(m);
      const contextId = typeof m.context_id === 'string' ? m.context_id : randomUUID();
      const format = m.output_format as { encoding: string; sample_rate: number };
      const signature = JSON.stringify([m.model_id, m.voice, m.output_format, m.language ?? null]);
      let context = contexts.get(contextId);
      if (context?.finished) {
        return error(contextId, new RequestError('Context closed', 'This context has already finished', 'context_closed'));
      }
      if (context && context.signature !== signature) {
        return error(
          contextId,
          new RequestError(
            'Invalid continuation',
            'A continuation must keep the model, voice and output format',
            'invalid_request',
          ),
        );
      }
      if (!context) {
        context = {
          signature,
          outbox: new Outbox({ firstByteDelayMs: this.firstByteDelayMs, chunkIntervalMs: this.chunkIntervalMs }),
          voice: new FakeVoice({
            encoding: format.encoding === 'pcm_mulaw' ? 'mulaw' : 'pcm16',
            sampleRate: format.sample_rate,
            msPerChar: this.msPerChar,
            chunkMs: this.chunkMs,
          }),
          finished: false,
        };
        contexts.set(contextId, context);
      }
      for (const chunk of context.voice.speak(m.transcript as string)) {
        context.outbox.push(() => {
          record.chunks++;
          send({
            type: 'chunk',
            data: Buffer.from(chunk).toString('base64'),
            done: false,
            status_code: 206,
            step_time: 10,
            context_id: contextId,
          });
        });
      }
      if (m.continue !== true) {
        context.finished = true;
        context.outbox.push(() => send({ type: 'done', done: true, status_code: 206, context_id: contextId }));
      }
    });
  }
}
