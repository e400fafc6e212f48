/**
 * Twilio Media Streams (bidirectional, <Connect><Stream>) as a stream dialect, written from Twilio's
 * WebSocket protocol (https://www.twilio.com/docs/voice/media-streams/websocket-messages):
 *
 * - in: `connected`, `start` (streamSid, callSid, mediaFormat audio/x-mulaw 8000 Hz mono), `media`
 *   (base64 mu-law of the inbound track, 20 ms), `dtmf`, `mark` (a mark we sent, played), `stop`;
 * - out: `media` (base64 mu-law), `mark` (named; Twilio echoes it once the audio before it has played),
 *   `clear` (Twilio drops the audio it has buffered and echoes the marks still pending).
 *
 * The line itself is server/carriers/stream.ts.
 */
import { commonStreamEvent, type StreamDialect } from '../types.js';

const stringsOf = (o: unknown): Record<string, string> => {
  const out: Record<string, string> = {};
  if (o && typeof o === 'object') for (const [k, v] of Object.entries(o)) if (typeof v === 'string') out[k] = v;
  return out;
};

/** Twilio Media Streams (bidirectional). */
export const TWILIO_DIALECT: StreamDialect = {
  name: 'twilio',
  parse(msg) {
    switch (msg.event) {
      case 'start': {
        const start = msg.start as Record<string, unknown> | undefined;
        const fmt = start?.mediaFormat as { encoding?: unknown; sampleRate?: unknown; channels?: unknown } | undefined;
        const streamSid = typeof msg.streamSid === 'string' ? msg.streamSid : start?.streamSid;
        if (typeof streamSid !== 'string' || typeof start?.callSid !== 'string') return { type: 'other' };
        return {
          type: 'start',
          start: { streamSid, callSid: start.callSid, customParameters: stringsOf(start.customParameters) },
          formatOk: fmt?.encoding === 'audio/x-mulaw' && Number(fmt.sampleRate) === 8000 && Number(fmt.channels ?? 1) === 1,
          encoding: String(fmt?.encoding),
        };
      }
      case 'mark': {
        const name = (msg.mark as { name?: unknown } | undefined)?.name;
        return typeof name === 'string' ? { type: 'mark', name } : { type: 'other' };
      }
      default:
        return commonStreamEvent(msg);
    }
  },
  media: (streamSid, payload) => ({ event: 'media', streamSid, media: { payload } }),
  mark: (streamSid, name) => ({ event: 'mark', streamSid, mark: { name } }),
  clear: (streamSid) => ({ event: 'clear', streamSid }),
};
