/**
 * A phone call's line through Twilio Media Streams (bidirectional, <Connect><Stream>), speaking Twilio's
 * WebSocket protocol (https://www.twilio.com/docs/voice/media-streams/websocket-messages):
 *
 * - in: `connected`, `start` (streamSid, callSid, mediaFormat audio/x-mulaw 8000 Hz mono), `media`
 *   (base64 mu-law of the inbound track, 20 ms), `dtmf`, `mark` (a mark we sent, played), `stop`;
 * - out: `media` (base64 mu-law), `mark` (named; Twilio echoes it once the audio before it has played),
 *   `clear` (Twilio drops the audio it has buffered and echoes the marks still pending).
 *
 * The agent's audio is paced by a Playout (one 20 ms frame ahead of real time), so a `clear` drops little.
 * What the caller has heard is what Twilio says it has played: a progress mark follows every few frames,
 * and the heard position is the last one Twilio echoed. The engine's own marks (a sentence heard, a turn
 * heard) are sent after the last frame of their audio and fire on Twilio's echo. After a `clear`, the
 * echoes of marks past the heard position are ignored (their audio was dropped).
 *
 * The audio is mu-law 8 kHz both ways, as the engine asks the speech and voice providers for it: nothing
 * is transcoded. Hanging up goes through the carrier's API (the `hangUpCall` given by the service).
 */

import type { WebCallServerEvent } from '@contract/call-runtime.js';
import type WebSocket from 'ws';
import { SocketLine } from '../../voice/lines/socket-line.js';
import type { AudioLine } from '../../voice/lines/types.js';
import { PHONE_AUDIO } from '../../voice/providers/types.js';

/** a media payload larger than this (bytes of mu-law) is dropped: Twilio sends 160-byte (20 ms) chunks */
export const PHONE_FRAME_MAX_BYTES = 160 * 16;
/** a progress mark after this many frames (60 ms): the granularity of the heard position */
const PROGRESS_FRAMES = 3;
/** how long the `start` message may take after the socket opened */
export const START_TIMEOUT_MS = 10_000;

export interface PhoneLineControl {
  /** ends the call through the carrier's API (end_call, a timeout, an error) */
  hangUpCall(): Promise<void>;
  /** moves the caller to `number` through the carrier's API (transfer_call) */
  transferCall?(number: string): Promise<void>;
  /** a problem worth a log line (never a secret) */
  warn(message: string, fields?: Record<string, unknown>): void;
}

interface PendingMark {
  /** byte offset of the playout after which it fires */
  at: number;
  onHeard?: () => void;
}

export interface TwilioStart {
  streamSid: string;
  callSid: string;
  customParameters: Record<string, string>;
}

/** What the carrier sent, in the transport's terms. */
export type StreamEvent =
  | { type: 'start'; start: TwilioStart; formatOk: boolean; encoding: string }
  | { type: 'media'; payload: string }
  | { type: 'mark'; name: string }
  | { type: 'dtmf'; digit: string }
  | { type: 'stop' }
  | { type: 'other' };

/** A carrier's media-stream protocol: its messages in, and the three it takes out. */
export interface StreamDialect {
  name: string;
  parse(msg: Record<string, unknown>): StreamEvent;
  media(streamId: string, payload: string): Record<string, unknown>;
  mark(streamId: string, name: string): Record<string, unknown>;
  clear(streamId: string): Record<string, unknown>;
}

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
      case 'media': {
        const media = msg.media as { track?: unknown; payload?: unknown } | undefined;
        if (typeof media?.payload !== 'string') return { type: 'other' };
        if (media.track !== undefined && media.track !== 'inbound') return { type: 'other' };
        return { type: 'media', payload: media.payload };
      }
      case 'mark': {
        const name = (msg.mark as { name?: unknown } | undefined)?.name;
        return typeof name === 'string' ? { type: 'mark', name } : { type: 'other' };
      }
      case 'dtmf': {
        const digit = (msg.dtmf as { digit?: unknown } | undefined)?.digit;
        return typeof digit === 'string' ? { type: 'dtmf', digit } : { type: 'other' };
      }
      case 'stop':
        return { type: 'stop' };
      default:
        return { type: 'other' };
    }
  },
  media: (streamSid, payload) => ({ event: 'media', streamSid, media: { payload } }),
  mark: (streamSid, name) => ({ event: 'mark', streamSid, mark: { name } }),
  clear: (streamSid) => ({ event: 'clear', streamSid }),
};

/**
 * A carrier's bidirectional media stream as a call's line; the carrier's protocol is its dialect
 * (TWILIO_DIALECT here, PLIVO_DIALECT in plivo.ts).
 */
export class CarrierStreamTransport extends SocketLine implements AudioLine {
  readonly kind = 'phone' as const;
  readonly format = PHONE_AUDIO;
  private streamSid = '';
  /** bytes sent to Twilio since the stream began (the playout's timeline) */
  private sentBytes = 0;
  /** bytes Twilio has reported played (by the last echoed mark) */
  private heardBytes = 0;
  private framesSinceMark = 0;
  private markSeq = 0;
  /** marks sent to Twilio, by name, until echoed */
  private sentMarks = new Map<string, PendingMark>();
  /** the engine's marks whose audio has not all been sent yet, in order */
  private waiting: PendingMark[] = [];
  /** the caller (or Twilio) ended the stream */
  private stoppedByCaller = false;
  dtmf: string[] = [];
  /** resolves with the `start` message (rejects when the socket closes first) */
  readonly started: Promise<TwilioStart>;
  private resolveStart!: (s: TwilioStart) => void;
  private rejectStart!: (e: Error) => void;

  constructor(
    socket: WebSocket,
    private readonly control: PhoneLineControl,
    private readonly dialect: StreamDialect = TWILIO_DIALECT,
  ) {
    super(socket, PHONE_AUDIO, (frame) => this.sendFrame(frame));
    this.started = new Promise((resolve, reject) => {
      this.resolveStart = resolve;
      this.rejectStart = reject;
    });
    this.started.catch(() => {});
    socket.on('message', (data, isBinary) => {
      if (!isBinary) this.receive(String(data));
    });
  }

  private receive(text: string) {
    if (this.closed) return;
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    if (!msg || typeof msg !== 'object') return;
    const e = this.dialect.parse(msg);
    switch (e.type) {
      case 'start': {
        if (!e.formatOk) {
          this.control.warn(`${this.dialect.name} stream refused: unexpected media format`, { encoding: e.encoding });
          this.rejectStart(new Error('unexpected media format'));
          this.socket.close(1003, 'unsupported media format');
          return;
        }
        this.streamSid = e.start.streamSid;
        this.resolveStart(e.start);
        return;
      }
      case 'media': {
        if (!this.streamSid) return;
        if (e.payload.length > (PHONE_FRAME_MAX_BYTES * 4) / 3 + 4) return this.refuse(Math.floor((e.payload.length * 3) / 4));
        const frame = new Uint8Array(Buffer.from(e.payload, 'base64'));
        if (frame.byteLength === 0) return;
        this.deliver(frame, performance.now());
        return;
      }
      case 'mark': {
        const mark = this.sentMarks.get(e.name);
        if (!mark) return;
        // the carrier plays in order: every mark up to this one has played
        for (const [n, m] of this.sentMarks) {
          if (m.at > mark.at) break;
          this.sentMarks.delete(n);
          this.heardBytes = Math.max(this.heardBytes, m.at);
          m.onHeard?.();
        }
        return;
      }
      case 'dtmf':
        if (this.dtmf.length < 64) this.dtmf.push(e.digit.slice(0, 1));
        return;
      case 'stop':
        this.stoppedByCaller = true;
        this.finish();
        return;
      default:
        return;
    }
  }

  private send(message: Record<string, unknown>) {
    if (this.socket.readyState === this.socket.OPEN) this.socket.send(JSON.stringify(message));
  }

  private sendMark(mark: PendingMark) {
    const name = `m${++this.markSeq}`;
    this.sentMarks.set(name, mark);
    this.send(this.dialect.mark(this.streamSid, name));
    this.framesSinceMark = 0;
  }

  private sendFrame(frame: Uint8Array) {
    if (this.closed) return;
    this.send(this.dialect.media(this.streamSid, Buffer.from(frame).toString('base64')));
    this.sentBytes += frame.byteLength;
    this.framesSinceMark++;
    let sent = false;
    while (this.waiting.length > 0 && (this.waiting[0] as PendingMark).at <= this.sentBytes) {
      this.sendMark(this.waiting.shift() as PendingMark);
      sent = true;
    }
    if (!sent && this.framesSinceMark >= PROGRESS_FRAMES) this.sendMark({ at: this.sentBytes });
  }

  play(chunk: Uint8Array): void {
    if (!this.closed) this.playout.play(chunk);
  }

  mark(onHeard: () => void): void {
    if (this.closed) return;
    const at = this.bytesOf(this.playout.queuedEndMs());
    if (at <= this.heardBytes) onHeard();
    else if (at <= this.sentBytes) this.sendMark({ at, onHeard });
    else this.waiting.push({ at, onHeard });
  }

  clear(): void {
    this.playout.clear();
    this.waiting = [];
    // marks past what Twilio reported played belong to audio it now drops: their echoes are ignored
    for (const [name, m] of this.sentMarks) if (m.at > this.heardBytes) this.sentMarks.delete(name);
    this.send(this.dialect.clear(this.streamSid));
  }

  heardMs(): number {
    return this.heardBytes / 8;
  }

  notify(_event: WebCallServerEvent): void {}

  /** transfer_call: the carrier moves the caller to `number` (the stream then stops). */
  async transfer(number: string): Promise<void> {
    if (this.closed || !this.control.transferCall) throw new Error('transfer is not available on this line');
    await this.control.transferCall(number);
  }

  hangUp(reason: string): void {
    if (this.closed) return;
    // a caller who hung up, or a transferred call, needs no hang-up from us
    if (!this.stoppedByCaller && reason !== 'call_transfer')
      this.control.hangUpCall().catch((e) => this.control.warn('hang-up through the carrier failed', { reason: String(e) }));
    this.close(reason);
  }

  protected override finish() {
    this.rejectStart(new Error('the stream closed before it started'));
    super.finish();
  }

  private bytesOf(ms: number) {
    return Math.round(ms * 8);
  }
}

/** Twilio's media stream as a call's line. */
export class TwilioTransport extends CarrierStreamTransport {
  constructor(socket: WebSocket, control: PhoneLineControl) {
    super(socket, control, TWILIO_DIALECT);
  }
}
