/**
 * A fake of ElevenLabs' text-to-speech stream-input WebSocket, faithful to the documents read for it:
 * - https://elevenlabs.io/docs/api-reference/text-to-speech/v-1-text-to-speech-voice-id-stream-input
 *   (https://elevenlabs.io/docs/api-reference/websocket): query model_id, output_format, language_code,
 *   inactivity_timeout; header xi-api-key (or xi_api_key in the first message); the first message is a single
 *   space with voice_settings and generation_config.chunk_length_schedule; text messages with `flush`;
 *   `{"text":""}` ends the input; answers `{"audio":base64,"isFinal":false,"normalizedAlignment","alignment"}`
 *   then `{"isFinal":true}`.
 * - https://elevenlabs.io/docs/api-reference/authentication (401 invalid_api_key)
 * - observed behaviour in public threads: a model not offered on the socket (eleven_v3) is a 403 on the
 *   upgrade (community.livekit.io/t/.../1007); settings or inactivity problems close the socket with 1008 and
 *   a reason, e.g. "voice_settings field must be provided in the first message and then either be not
 *   provided or not change." (github.com/pipecat-ai/pipecat/issues/4541) and the 20 s inactivity message
 *   (github.com/elevenlabs/elevenlabs-docs/issues/426); language_code only on the 2.5 models
 *   (pipecat's ElevenLabs service keeps that list).
 *
 * Speech is `msPerChar` ms of a 440 Hz tone per character, generated when the buffered text reaches the next
 * chunk_length_schedule step, on `flush`, or at the end; sent in `chunkMs` pieces after `firstByteDelayMs`,
 * `chunkIntervalMs` apart. The stream input has no cancel: a client stops it by closing the socket, and the
 * fake then sends nothing more. Formats it cannot make (mp3, opus, alaw) are refused as not implemented.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { FakeProvider, refuseUpgrade, type StreamRecord } from './server.js';
import { FakeVoice, Outbox } from './speech.js';

const MODELS = new Set([
  'eleven_turbo_v2',
  'eleven_flash_v2',
  'eleven_turbo_v2_5',
  'eleven_flash_v2_5',
  'eleven_multilingual_v2',
  'eleven_monolingual_v1',
  'eleven_multilingual_v1',
]);
const NOT_ON_SOCKET = new Set(['eleven_v3']);
const LANGUAGE_CODE_MODELS = new Set(['eleven_turbo_v2_5', 'eleven_flash_v2_5']);
const OUTPUT_FORMAT =
  /^(mp3_(22050_32|44100_(32|64|96|128|192))|pcm_(8000|16000|22050|24000|44100|48000)|ulaw_8000|alaw_8000|opus_48000_(32|64|96|128|192))$/;
const INACTIVITY_MESSAGE =
  'Have not received a new text input within the timeout of {n} seconds. Streaming input terminated. Please make sure to ' +
  'either feed the input in the timely manner, or to send the end of input text (empty string "") when done.';
const VOICE_SETTINGS_MESSAGE =
  'voice_settings field must be provided in the first message and then either be not provided or not change.';

export interface StreamInputRecord extends StreamRecord {
  voiceId: string;
  query: URLSearchParams;
  voiceSettings: Record<string, unknown> | null;
  generationConfig: Record<string, unknown> | null;
  /** the text of every message after the first, as received (the end's "" included) */
  texts: string[];
  /** how many of them asked to flush */
  flushes: number;
  /** audio messages sent */
  audioMessages: number;
}

const range = (value: unknown, min: number, max: number) => typeof value === 'number' && value >= min && value <= max;

/** Why ElevenLabs would close the socket over these voice settings (1008), or null. */
function voiceSettingsProblem(settings: unknown): string | null {
  if (typeof settings !== 'object' || settings === null) return 'voice_settings must be an object';
  const s = settings as Record<string, unknown>;
  for (const name of ['stability', 'similarity_boost', 'style'] as const) {
    if (name in s && !range(s[name], 0, 1)) return `voice_settings.${name} must be between 0 and 1`;
  }
  if ('speed' in s && !range(s.speed, 0.7, 1.2)) return 'voice_settings.speed must be between 0.7 and 1.2';
  if ('use_speaker_boost' in s && typeof s.use_speaker_boost !== 'boolean')
    return 'voice_settings.use_speaker_boost must be a boolean';
  return null;
}

export class ElevenLabsFake extends FakeProvider<StreamInputRecord> {
  key = 'xi-fake-key';
  protected readonly failure = {
    code: 1011,
    reason: 'We are sorry, something went wrong. You are not charged for this request.',
  };
  msPerChar = 65;
  chunkMs = 100;
  firstByteDelayMs = 0;
  chunkIntervalMs = 0;

  /** the account's voices, served at GET /v1/voices */
  voices: { voice_id: string; name: string; labels: Record<string, string> }[] = [
    { voice_id: 'fake-voice-1', name: 'Fake Receptionist', labels: { gender: 'female', accent: 'american' } },
  ];

  static async start(): Promise<ElevenLabsFake> {
    const fake = new ElevenLabsFake();
    await fake.listen();
    return fake;
  }

  /**
   * GET /v1/voices (https://elevenlabs.io/docs/api-reference/voices/search) and GET /v1/user
   * (https://elevenlabs.io/docs/api-reference/user/get, the Providers page's key check): the key, then the
   * account's voices or user.
   */
  protected override request(req: IncomingMessage, res: ServerResponse): void {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    if (req.method !== 'GET' || (path !== '/v1/voices' && path !== '/v1/user')) {
      json(404, { detail: { status: 'not_found', message: 'Not found' } });
    } else if (req.headers['xi-api-key'] !== this.key) {
      json(401, { detail: { status: 'invalid_api_key', message: 'Invalid API key' } });
    } else if (path === '/v1/user') json(200, { user_id: 'fake-user-1', subscription: { tier: 'free' }, is_new_user: false });
    else json(200, { voices: this.voices });
  }

  protected async upgrade(req: IncomingMessage, socket: Duplex, accept: () => Promise<WebSocket>) {
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = /^\/v1\/text-to-speech\/([^/]+)\/stream-input$/.exec(url.pathname);
    const refuse = (status: number, code: string, message: string) =>
      refuseUpgrade(socket, status, { detail: { status: code, message } });
    if (!path) return refuse(404, 'not_found', 'Not found');
    const header = req.headers['xi-api-key'];
    if (header !== undefined && header !== this.key) return refuse(401, 'invalid_api_key', 'Invalid API key');
    const q = url.searchParams;
    const model = q.get('model_id') ?? 'eleven_multilingual_v2';
    if (NOT_ON_SOCKET.has(model))
      return refuse(403, 'model_not_supported', `The model ${model} is not available over WebSockets`);
    if (!MODELS.has(model)) return refuse(400, 'invalid_model_id', `A model with model ID ${model} does not exist`);
    const format = q.get('output_format') ?? 'mp3_44100_128';
    if (!OUTPUT_FORMAT.test(format)) return refuse(400, 'invalid_output_format', `Invalid output format: ${format}`);
    if (!/^(pcm_\d+|ulaw_8000)$/.test(format))
      return refuse(400, 'not_implemented', `fake: output format ${format} is not implemented`);
    if (q.has('language_code') && !LANGUAGE_CODE_MODELS.has(model)) {
      return refuse(400, 'unsupported_language', `Model '${model}' does not support the language_code parameter`);
    }
    const ssml = q.get('enable_ssml_parsing');
    if (ssml !== null && ssml !== 'true' && ssml !== 'false')
      return refuse(400, 'invalid_request', 'enable_ssml_parsing must be true or false');
    const inactivity = q.get('inactivity_timeout') ?? '20';
    if (!/^\d+$/.test(inactivity) || Number(inactivity) < 1 || Number(inactivity) > 180) {
      return refuse(400, 'invalid_inactivity_timeout', 'inactivity_timeout must be between 1 and 180');
    }
    const ws = await accept();
    const voice = new FakeVoice({
      encoding: format === 'ulaw_8000' ? 'mulaw' : 'pcm16',
      sampleRate: format === 'ulaw_8000' ? 8000 : Number(format.slice(4)),
      msPerChar: this.msPerChar,
      chunkMs: this.chunkMs,
    });
    const outbox = new Outbox({ firstByteDelayMs: this.firstByteDelayMs, chunkIntervalMs: this.chunkIntervalMs });
    let idle: NodeJS.Timeout | null = null;
    const record = this.track(
      ws,
      {
        voiceId: decodeURIComponent(path[1]!),
        query: q,
        voiceSettings: null,
        generationConfig: null,
        texts: [],
        flushes: 0,
        audioMessages: 0,
      },
      () => {
        outbox.cancel();
        if (idle) clearTimeout(idle);
      },
    );
    const policy = (reason: string) => {
      outbox.cancel();
      this.closeStream(ws, 1008, reason);
    };
    const resetIdle = () => {
      if (idle) clearTimeout(idle);
      idle = setTimeout(() => policy(INACTIVITY_MESSAGE.replace('{n}', inactivity)), Number(inactivity) * 1000);
    };
    resetIdle();
    let schedule = [120, 160, 250, 290];
    let step = 0;
    let buffered = '';
    let first = true;
    let ended = false;
    const generate = () => {
      if (!/\S/.test(buffered)) return;
      const text = buffered;
      buffered = '';
      step = Math.min(step + 1, schedule.length - 1);
      voice.speak(text).forEach((chunk, i) => {
        outbox.push(() => {
          record.audioMessages++;
          const alignment =
            i === 0
              ? {
                  chars: [...text],
                  charStartTimesMs: [...text].map((_, c) => c * this.msPerChar),
                  charDurationsMs: [...text].map(() => this.msPerChar),
                }
              : null;
          ws.send(
            JSON.stringify({
              audio: Buffer.from(chunk).toString('base64'),
              isFinal: false,
              normalizedAlignment: alignment,
              alignment,
            }),
          );
        });
      });
    };

    ws.on('message', (data: Buffer, isBinary) => {
      if (record.closed || ended) return;
      resetIdle();
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(data.toString());
        if (isBinary || typeof message !== 'object' || message === null || typeof message.text !== 'string') throw new Error();
      } catch {
        return policy('Invalid message received: expected JSON with a text field');
      }
      const text = message.text as string;
      if (first) {
        first = false;
        if (header === undefined && message.xi_api_key !== this.key) return policy('invalid_api_key: Invalid API key');
        if (text !== ' ') return policy('The first message must contain a single space as text');
        if (message.voice_settings !== undefined) {
          const problem = voiceSettingsProblem(message.voice_settings);
          if (problem) return policy(problem);
          record.voiceSettings = message.voice_settings as Record<string, unknown>;
        }
        const config = message.generation_config as { chunk_length_schedule?: unknown } | undefined;
        if (config !== undefined) {
          const s = config.chunk_length_schedule;
          if (s !== undefined && (!Array.isArray(s) || s.length === 0 || !s.every((n) => range(n, 50, 500)))) {
            return policy('generation_config.chunk_length_schedule values must be between 50 and 500');
          }
          if (Array.isArray(s)) schedule = s as number[];
          record.generationConfig = config as Record<string, unknown>;
        }
        return;
      }
      if (
        message.voice_settings !== undefined &&
        JSON.stringify(message.voice_settings) !== JSON.stringify(record.voiceSettings)
      ) {
        return policy(VOICE_SETTINGS_MESSAGE);
      }
      record.texts.push(text);
      if (text === '') {
        ended = true;
        if (idle) clearTimeout(idle);
        generate();
        outbox.push(() => {
          ws.send(JSON.stringify({ isFinal: true }));
          this.closeStream(ws, 1000, '');
        });
        return;
      }
      buffered += text;
      if (message.flush === true) {
        record.flushes++;
        generate();
      } else if (buffered.length >= schedule[step]!) generate();
    });
  }
}
