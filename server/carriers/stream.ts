/**
 * A phone call's line over a carrier's bidirectional media stream; the carrier's protocol is its dialect
 * (server/carriers/twilio/stream.ts, server/carriers/plivo/stream.ts; the StreamDialect of types.ts):
 *
 * The agent's audio is paced by a Playout (one 20 ms frame ahead of real time), so a `clear` drops little.
 * What the caller has heard is what the carrier says it has played: a progress mark follows every few
 * frames, and the heard position is the last one the carrier echoed. The engine's own marks (a sentence
 * heard, a turn heard) are sent after the last frame of their audio and fire on the carrier's echo. After a
 * `clear`, the echoes of marks past the heard position are ignored (their audio was dropped).
 *
 * The audio is mu-law 8 kHz both ways, as the engine asks the speech and voice providers for it: nothing
 * is transcoded. Hanging up goes through the carrier's API (the `hangUpCall` given by the service).
 *
 * Keys: a key the caller pressed (the carrier's `dtmf` message) goes to the engine's `digit` handler (kept
 * until the engine starts). press_digit's keys are played in-band: the DTMF tones are queued in the
 * playout after the agent audio already queued, paced like it, and `playDigits` resolves once the carrier
 * has played them (its echo of a mark after the last tone).
 */

import type { WebCallServerEvent } from '@contract/call-runtime.js';
import type WebSocket from 'ws';
import { dtmfAudio, isDtmfDigits } from '../voice/audio/dtmf.js';
import { fromSamples } from '../voice/audio/pcm16.js';
import { SocketLine } from '../voice/lines/socket-line.js';
import type { AudioLine, AudioLineHandlers, WarmTransfer, WarmTransferEnd } from '../voice/lines/types.js';
import { PHONE_AUDIO } from '../voice/providers/types.js';
import type { StreamDialect, StreamStart } from './types.js';

/** a media payload larger than this (bytes of mu-law) is dropped: carriers send 160-byte (20 ms) chunks */
export const PHONE_FRAME_MAX_BYTES = 160 * 16;
/** a progress mark after this many frames (60 ms): the granularity of the heard position */
const PROGRESS_FRAMES = 3;
/** a key the caller can press (the carriers report 0-9, *, #, A-D) */
const KEY = /^[0-9*#A-D]$/;
/** keys kept before the engine starts (more are dropped) */
const EARLY_KEYS_MAX = 64;
/** how long the `start` message may take after the socket opened */
export const START_TIMEOUT_MS = 10_000;

/** how often the hold tone sounds while a warm transfer dials */
const HOLD_EVERY_MS = 2_000;

/** The hold tone: 300 ms of a quiet 440 Hz tone, fading in and out (the rest of each period is silence). */
function holdTone(sampleRate: number, encoding: 'pcm16' | 'mulaw'): Uint8Array {
  const n = Math.round((sampleRate * 300) / 1000);
  const samples = new Int16Array(n);
  for (let i = 0; i < n; i++) {
    const fade = Math.min(1, i / (n / 6), (n - i) / (n / 6));
    samples[i] = Math.round(0.08 * fade * Math.sin((2 * Math.PI * 440 * i) / sampleRate) * 32767);
  }
  return fromSamples(samples, encoding);
}

export interface PhoneLineControl {
  /** ends the call through the carrier's API (end_call, a timeout, an error) */
  hangUpCall(): Promise<void>;
  /** moves the caller to `number` through the carrier's API (transfer_call) */
  transferCall?(number: string): Promise<void>;
  /** dials `number` on a consult leg, and joins the caller to it once the person has answered (warm transfer_call) */
  warmTransferCall?(transfer: WarmTransfer): Promise<WarmTransferEnd>;
  /** a problem worth a log line (never a secret) */
  warn(message: string, fields?: Record<string, unknown>): void;
}

interface PendingMark {
  /** byte offset of the playout after which it fires */
  at: number;
  onHeard?: () => void;
}

/** A carrier's bidirectional media stream as a call's line, speaking the carrier's dialect. */
export class CarrierStreamTransport extends SocketLine implements AudioLine {
  readonly kind = 'phone' as const;
  readonly format = PHONE_AUDIO;
  private streamSid = '';
  /** bytes sent to the carrier since the stream began (the playout's timeline) */
  private sentBytes = 0;
  /** bytes the carrier has reported played (by the last echoed mark) */
  private heardBytes = 0;
  private framesSinceMark = 0;
  private markSeq = 0;
  /** marks sent to the carrier, by name, until echoed */
  private sentMarks = new Map<string, PendingMark>();
  /** the engine's marks whose audio has not all been sent yet, in order */
  private waiting: PendingMark[] = [];
  /** the caller (or the carrier) ended the stream */
  private stoppedByCaller = false;
  /** keys the caller pressed before the engine started (delivered on start) */
  private earlyKeys: string[] = [];
  /** resolves with the `start` message (rejects when the socket closes first) */
  readonly started: Promise<StreamStart>;
  private resolveStart!: (s: StreamStart) => void;
  private rejectStart!: (e: Error) => void;

  constructor(
    socket: WebSocket,
    private readonly control: PhoneLineControl,
    private readonly dialect: StreamDialect,
  ) {
    super(socket, PHONE_AUDIO, (frame) => this.sendFrame(frame));
    // only a carrier that can dial a consult leg offers warm transfers (the engine falls back to a cold one)
    const warm = control.warmTransferCall;
    if (warm)
      this.warmTransfer = (transfer) =>
        this.closed ? Promise.reject(new Error('the line has closed')) : this.holdWhile(warm(transfer));
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
      case 'dtmf': {
        if (!this.streamSid || !KEY.test(e.digit)) return;
        if (this.handlers) this.handlers.digit?.(e.digit, performance.now());
        else if (this.earlyKeys.length < EARLY_KEYS_MAX) this.earlyKeys.push(e.digit);
        return;
      }
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
    // marks past what the carrier reported played belong to audio it now drops: their echoes are ignored
    for (const [name, m] of this.sentMarks) if (m.at > this.heardBytes) this.sentMarks.delete(name);
    this.send(this.dialect.clear(this.streamSid));
  }

  heardMs(): number {
    return this.heardBytes / 8;
  }

  notify(_event: WebCallServerEvent): void {}

  override start(handlers: AudioLineHandlers): void {
    super.start(handlers);
    const keys = this.earlyKeys;
    this.earlyKeys = [];
    for (const key of keys) handlers.digit?.(key, performance.now());
  }

  /**
   * press_digit: `digits` as DTMF tones (100 ms tone, 100 ms gap each) after the agent audio already
   * queued; resolves once the carrier has played them, rejects when `signal` aborts first or the line is
   * closed. A barge-in's clear drops the tones not yet played like any agent audio.
   */
  playDigits(digits: string, signal: AbortSignal): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the call has ended'));
    if (!isDtmfDigits(digits)) return Promise.reject(new Error('DTMF keys are 0-9, *, # and A-D'));
    if (signal.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
    return new Promise<void>((resolve, reject) => {
      const abort = () => reject(signal.reason ?? new Error('aborted'));
      signal.addEventListener('abort', abort, { once: true });
      this.playout.play(dtmfAudio(digits, this.format));
      this.mark(() => {
        signal.removeEventListener('abort', abort);
        resolve();
      });
    });
  }

  /** transfer_call: the carrier moves the caller to `number` (the stream then stops). */
  async transfer(number: string): Promise<void> {
    if (this.closed || !this.control.transferCall) throw new Error('transfer is not available on this line');
    await this.control.transferCall(number);
  }

  /** warm transfer_call, when the carrier can (PhoneLineControl.warmTransferCall) */
  readonly warmTransfer?: (transfer: WarmTransfer) => Promise<WarmTransferEnd>;

  /**
   * While the carrier dials the person of a warm transfer, the caller hears a soft hold tone on this stream
   * (after what the agent is saying); the tone stops when the dial ends either way.
   */
  private async holdWhile(dialling: Promise<WarmTransferEnd>): Promise<WarmTransferEnd> {
    const tone = holdTone(this.format.sampleRate, this.format.encoding);
    const hold = setInterval(() => {
      // only when nothing else plays (the agent's sentence first)
      if (!this.closed && this.queuedEndMs() <= this.sentMs()) this.playout.play(tone);
    }, HOLD_EVERY_MS);
    try {
      return await dialling;
    } finally {
      clearInterval(hold);
    }
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
