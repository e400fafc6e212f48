/**
 * Cartesia text-to-speech over its TTS WebSocket, one socket and one context per agent turn
 * (https://docs.cartesia.ai/api-reference/tts/websocket, https://docs.cartesia.ai/use-the-api/api-conventions).
 *
 * Wire: `wss://<host>/tts/websocket`, headers `X-API-Key` and `Cartesia-Version: 2025-04-16`. Each sentence is
 * `{"model_id","transcript":"<sentence> ","voice":{"mode":"id","id"},"language","context_id",
 * "output_format":{"container":"raw","encoding":"pcm_s16le"|"pcm_mulaw","sample_rate"},
 * "generation_config":{"speed","volume"},"continue":true}`; the end is the same with `"transcript":"",
 * "continue":false`; barge-in sends `{"context_id","cancel":true}` and closes. Answers (JSON, per context):
 * `{"type":"chunk","data":"<base64>"}`, `{"type":"done"}`, `{"type":"error","status_code","title","message"}`;
 * `timestamps` and `flush_done` are ignored. A refused key is a 401 on the upgrade.
 */
import { randomUUID } from 'node:crypto';
import { openSocket, socketUrl, statusError } from '../socket.js';
import { clamp, streamTts, type TtsTimeLimits, type TtsWireEvent, ttsTimeLimits } from '../tts-stream.js';
import type { TtsOptions, TtsProvider } from '../types.js';

/** The API version this adapter speaks (sent on every connection). */
export const CARTESIA_VERSION = '2025-04-16';
/** sonic-3: `generation_config.speed` (0.6-1.5) and `volume` (0.5-2.0) act on it, not on sonic-2. */
export const CARTESIA_MODEL = 'sonic-3';
export const CARTESIA_SPEED = { min: 0.6, max: 1.5 } as const;
export const CARTESIA_VOLUME = { min: 0.5, max: 2 } as const;

/**
 * The Cartesia model for an agent's voice model. The editor's voice models are ElevenLabs' (turbo, flash,
 * multilingual...); Cartesia has one current family that is fast and multilingual, so every one maps to it.
 */
export function cartesiaModelId(_voiceModel: string): string {
  return CARTESIA_MODEL;
}

export function createCartesiaTts(config: TtsTimeLimits = {}): TtsProvider {
  const { connectTimeoutMs, responseTimeoutMs } = ttsTimeLimits(config);
  return {
    name: 'cartesia',
    async connect(options: TtsOptions, onEvent, signal) {
      const ws = await openSocket({
        provider: 'cartesia',
        url: socketUrl('cartesia', options.baseUrl, '/tts/websocket'),
        headers: { 'X-API-Key': options.apiKey, 'Cartesia-Version': CARTESIA_VERSION },
        timeoutMs: connectTimeoutMs,
        signal,
      });
      const contextId = randomUUID();
      const request = {
        model_id: options.model,
        voice: { mode: 'id', id: options.voiceId },
        language: options.language.split('-')[0]!.toLowerCase(),
        context_id: contextId,
        output_format: {
          container: 'raw',
          encoding: options.format.encoding === 'mulaw' ? 'pcm_mulaw' : 'pcm_s16le',
          sample_rate: options.format.sampleRate,
        },
        ...(options.model.startsWith('sonic-3')
          ? {
              generation_config: {
                speed: clamp(options.speed, CARTESIA_SPEED.min, CARTESIA_SPEED.max),
                volume: clamp(options.volume, CARTESIA_VOLUME.min, CARTESIA_VOLUME.max),
              },
            }
          : {}),
      };
      return streamTts(
        ws,
        {
          provider: 'cartesia',
          text: (body) => JSON.stringify({ ...request, transcript: body, continue: true }),
          end: () => JSON.stringify({ ...request, transcript: '', continue: false }),
          cancel: () => JSON.stringify({ context_id: contextId, cancel: true }),
          read: (message): TtsWireEvent[] => {
            if (message.context_id !== undefined && message.context_id !== contextId) return [];
            if (message.type === 'chunk' && typeof message.data === 'string') {
              return [{ type: 'audio', chunk: Buffer.from(message.data, 'base64') }];
            }
            if (message.type === 'done') return [{ type: 'done' }];
            if (message.type === 'error') {
              const status = typeof message.status_code === 'number' ? message.status_code : 500;
              const detail = [message.title, message.message, message.error].filter((x) => typeof x === 'string').join(': ');
              return [{ type: 'error', error: statusError('cartesia', status, detail) }];
            }
            return [];
          },
        },
        // with sonic-3 Cartesia sets the volume itself; other models get it as gain here
        {
          format: options.format,
          gain: options.model.startsWith('sonic-3') ? 1 : clamp(options.volume, 0, 2),
          responseTimeoutMs,
        },
        onEvent,
        signal,
      );
    },
  };
}

export const cartesiaTts = createCartesiaTts();
