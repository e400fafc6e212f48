/**
 * Plivo's bidirectional audio stream as a stream dialect (<Stream bidirectional="true"
 * keepCallAlive="true" contentType="audio/x-mulaw;rate=8000">), written from Plivo's Audio Streaming
 * documents (https://www.plivo.com/docs/voice/xml/the-stream-element, .../audio-streaming/bidirectional):
 *
 * - in: `start` (start.callId, start.streamId, start.mediaFormat {encoding audio/x-mulaw, sampleRate 8000}),
 *   `media` (media.payload base64 mu-law of the inbound track), `dtmf`, `playedStream` (a checkpoint's
 *   audio has played), `clearedAudio`, `stop`;
 * - out: `playAudio` {media: {contentType, sampleRate, payload}}, `checkpoint` {name}, `clearAudio`.
 *
 * The line itself is server/carriers/stream.ts: paced playout, checkpoints as the heard position,
 * clearAudio on a barge-in, hang-up through Plivo's API.
 */
import { commonStreamEvent, type StreamDialect } from '../types.js';

export const PLIVO_DIALECT: StreamDialect = {
  name: 'plivo',
  parse(msg) {
    switch (msg.event) {
      case 'start': {
        const start = msg.start as Record<string, unknown> | undefined;
        const fmt = start?.mediaFormat as { encoding?: unknown; sampleRate?: unknown } | undefined;
        const streamId = typeof msg.streamId === 'string' ? msg.streamId : start?.streamId;
        if (typeof streamId !== 'string' || typeof start?.callId !== 'string') return { type: 'other' };
        return {
          type: 'start',
          start: { streamSid: streamId, callSid: start.callId, customParameters: {} },
          formatOk: fmt?.encoding === 'audio/x-mulaw' && Number(fmt.sampleRate) === 8000,
          encoding: String(fmt?.encoding),
        };
      }
      case 'playedStream':
        return typeof msg.name === 'string' ? { type: 'mark', name: msg.name } : { type: 'other' };
      default:
        return commonStreamEvent(msg);
    }
  },
  media: (streamId, payload) => ({
    event: 'playAudio',
    streamId,
    media: { contentType: 'audio/x-mulaw', sampleRate: 8000, payload },
  }),
  mark: (streamId, name) => ({ event: 'checkpoint', streamId, name }),
  clear: (streamId) => ({ event: 'clearAudio', streamId }),
};
