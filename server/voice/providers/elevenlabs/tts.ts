/**
 * ElevenLabs text-to-speech over the stream-input WebSocket, one socket per agent turn
 * (https://elevenlabs.io/docs/api-reference/text-to-speech/v-1-text-to-speech-voice-id-stream-input).
 *
 * Wire: `wss://<host>/v1/text-to-speech/{voice_id}/stream-input?model_id=&output_format=&inactivity_timeout=60`
 * (+ `language_code` for the models that take one), header `xi-api-key`. First message
 * `{"text":" ","voice_settings":{stability,similarity_boost,speed},"generation_config":{"chunk_length_schedule"}}`,
 * then `{"text":"<sentence> ","flush":true}` per sentence (`flush` only when the text ends a sentence), then
 * `{"text":""}` to end. Answers: `{"audio":"<base64>",...}` chunks, then `{"isFinal":true}`, and the server closes.
 * Errors arrive as a refused upgrade (401 key, 403 model not allowed on the socket, 400 bad query) or as a
 * close frame (1008 policy: invalid settings, inactivity, key; 1011 internal).
 */

import { openSocket, safeDetail, socketUrl, statusError } from '../socket.js';
import { clamp, streamTts, type TtsTimeLimits, ttsTimeLimits } from '../tts-stream.js';
import type { AudioFormat, TtsOptions, TtsProvider } from '../types.js';
import { ProviderError } from '../types.js';

/** ElevenLabs' range of `voice_settings.speed`. */
export const ELEVENLABS_SPEED = { min: 0.7, max: 1.2 } as const;

/**
 * The models that read SSML phoneme tags (English only): https://help.elevenlabs.io/hc/en-us/articles/24352686926609
 * ("Eleven English V1, Eleven Flash V2, and Eleven Turbo V2 models support SSML phoneme tags").
 */
export const PHONEME_MODELS = new Set(['eleven_monolingual_v1', 'eleven_flash_v2', 'eleven_turbo_v2']);

/** The agent's voice models (src/api/contract/models.ts) -> ElevenLabs model ids. */
const VOICE_MODELS: Record<string, string> = {
  turbo: 'eleven_turbo_v2',
  flash: 'eleven_flash_v2',
  turbo25: 'eleven_turbo_v2_5',
  flash25: 'eleven_flash_v2_5',
  multilingual_v2: 'eleven_multilingual_v2',
};
/** English-only models and their multilingual twins */
const MULTILINGUAL_TWIN: Record<string, string> = { eleven_turbo_v2: 'eleven_turbo_v2_5', eleven_flash_v2: 'eleven_flash_v2_5' };
/** Models that accept `language_code` (the others refuse it) */
const LANGUAGE_CODE_MODELS = new Set(['eleven_turbo_v2_5', 'eleven_flash_v2_5']);
/** Characters buffered before each of the first generations (each 50-500); a flush sends everything anyway. */
const CHUNK_LENGTH_SCHEDULE = [50, 120, 160, 250];

/**
 * The ElevenLabs model for an agent's voice model and language. `auto` is the fastest model that speaks the
 * language: Flash v2 for English, Flash v2.5 otherwise. An English-only model (turbo, flash) with a
 * non-English agent becomes its 2.5 twin, since the English model would read the text with English sounds.
 */
export function elevenLabsModelId(voiceModel: string, language: string): string {
  const english = language.toLowerCase().startsWith('en');
  const model = VOICE_MODELS[voiceModel] ?? (english ? 'eleven_flash_v2' : 'eleven_flash_v2_5');
  return english ? model : (MULTILINGUAL_TWIN[model] ?? model);
}

/** ElevenLabs' `output_format` for a transport format. */
export function elevenLabsOutputFormat(format: AudioFormat): string {
  if (format.encoding === 'pcm16') return `pcm_${format.sampleRate}`;
  if (format.sampleRate === 8000) return 'ulaw_8000';
  throw new ProviderError('elevenlabs', 'bad_request', `ElevenLabs has no mu-law at ${format.sampleRate} Hz`);
}

export interface ElevenLabsTtsConfig extends TtsTimeLimits {
  /** seconds ElevenLabs keeps a socket with no new text (default 60; theirs is 20, at most 180) */
  inactivityTimeoutS?: number;
}

export function createElevenLabsTts(config: ElevenLabsTtsConfig = {}): TtsProvider {
  const { connectTimeoutMs, responseTimeoutMs } = ttsTimeLimits(config);
  const inactivityTimeoutS = config.inactivityTimeoutS ?? 60;
  return {
    name: 'elevenlabs',
    async connect(options: TtsOptions, onEvent, signal) {
      const query = new URLSearchParams({
        model_id: options.model,
        output_format: elevenLabsOutputFormat(options.format),
        inactivity_timeout: String(inactivityTimeoutS),
      });
      if (LANGUAGE_CODE_MODELS.has(options.model)) query.set('language_code', options.language.split('-')[0]!.toLowerCase());
      if (options.ssml) query.set('enable_ssml_parsing', 'true');
      const path = `/v1/text-to-speech/${encodeURIComponent(options.voiceId)}/stream-input`;
      const ws = await openSocket({
        provider: 'elevenlabs',
        url: socketUrl('elevenlabs', options.baseUrl, path, query),
        headers: { 'xi-api-key': options.apiKey },
        timeoutMs: connectTimeoutMs,
        signal,
        refused: refusedUpgrade,
      });
      ws.send(
        JSON.stringify({
          text: ' ',
          voice_settings: {
            stability: clamp(options.stability, 0, 1),
            similarity_boost: clamp(options.similarity, 0, 1),
            speed: clamp(options.speed, ELEVENLABS_SPEED.min, ELEVENLABS_SPEED.max),
          },
          generation_config: { chunk_length_schedule: CHUNK_LENGTH_SCHEDULE },
        }),
      );
      return streamTts(
        ws,
        {
          provider: 'elevenlabs',
          text: (body, sentenceEnd) => JSON.stringify(sentenceEnd ? { text: body, flush: true } : { text: body }),
          end: () => JSON.stringify({ text: '' }),
          read: (message) => {
            const events = [];
            if (typeof message.audio === 'string' && message.audio.length > 0) {
              events.push({ type: 'audio' as const, chunk: Buffer.from(message.audio, 'base64') });
            }
            if (message.isFinal === true) events.push({ type: 'done' as const });
            else if (typeof message.error === 'string') {
              const detail = typeof message.message === 'string' ? message.message : message.error;
              events.push({ type: 'error' as const, error: statusError('elevenlabs', 400, detail) });
            }
            return events;
          },
        },
        { format: options.format, gain: clamp(options.volume, 0, 2), responseTimeoutMs },
        onEvent,
        signal,
      );
    },
  };
}

/** A 403 that names the model (a model not offered on the socket) is a bad request, not a refused key. */
function refusedUpgrade(status: number, body: string): ProviderError {
  let detail = '';
  try {
    const parsed = JSON.parse(body) as { detail?: { status?: unknown; message?: unknown } | string };
    const d = parsed.detail;
    detail = typeof d === 'string' ? d : [d?.status, d?.message].filter((x) => typeof x === 'string').join(': ');
  } catch {
    // not JSON: no detail
  }
  if (status === 403 && /model/i.test(detail)) {
    return new ProviderError('elevenlabs', 'bad_request', `ElevenLabs refused the request (403): ${safeDetail(detail)}`, 403);
  }
  return statusError('elevenlabs', status, detail);
}

export const elevenLabsTts = createElevenLabsTts();
