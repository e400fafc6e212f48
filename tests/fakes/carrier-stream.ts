/**
 * The carrier's side of a bidirectional media stream, shared by the Twilio and Plivo fakes (and the third
 * carrier of tests/server/telephony/third-carrier.test.ts): a signed WebSocket to the server, the caller's
 * mu-law sent every 20 ms on the stream's own clock (silence, or what the test queued), and the server's
 * audio buffered with the named marks (Twilio's `mark`, Plivo's `checkpoint`) in the order they came and
 * "played" at real time, a mark reached once the audio before it has played. A clear drops what was not
 * played; each carrier then says what it does with the marks still pending. Each carrier's fake writes its
 * own messages (its start, media, stop and what it answers).
 */
import WebSocket from 'ws';
import { pcmToMulaw, tone } from './g711.js';

/** one caller frame: 20 ms of mu-law 8 kHz */
export const FRAME_BYTES = 160;
const FRAME_MS = 20;

/** mu-law frames of a 440 Hz tone (speech to the Deepgram fake) or of silence. */
export function mulawFrames(ms: number, loud: boolean): Uint8Array[] {
  const out: Uint8Array[] = [];
  const samples = tone(8000, ms, 440, loud ? 0.3 : 0);
  for (let i = 0; i + FRAME_BYTES <= samples.length; i += FRAME_BYTES) {
    const f = new Uint8Array(FRAME_BYTES);
    for (let j = 0; j < FRAME_BYTES; j++) f[j] = pcmToMulaw(samples[i + j] as number);
    out.push(f);
  }
  return out;
}

type Item = { kind: 'audio'; bytes: Uint8Array } | { kind: 'mark'; name: string };

export class PlayBuffer {
  /** bytes of the server's audio that have been played to the caller */
  playedBytes = 0;
  /** bytes dropped by a clear */
  clearedBytes = 0;
  /** hears the server's audio as it plays (the fake IVR listens here) */
  onPlayed: ((bytes: Uint8Array) => void) | undefined;
  private items: Item[] = [];

  audio(bytes: Uint8Array) {
    this.items.push({ kind: 'audio', bytes });
  }

  mark(name: string) {
    this.items.push({ kind: 'mark', name });
  }

  /** Plays `bytes` of buffered audio; the marks reached on the way go to `reached`, in order. */
  play(bytes: number, reached: (name: string) => void) {
    let left = bytes;
    while (this.items.length > 0) {
      const head = this.items[0] as Item;
      if (head.kind === 'mark') {
        this.items.shift();
        reached(head.name);
        continue;
      }
      if (left === 0) break;
      const take = Math.min(left, head.bytes.byteLength);
      this.onPlayed?.(head.bytes.subarray(0, take));
      this.playedBytes += take;
      left -= take;
      if (take === head.bytes.byteLength) this.items.shift();
      else head.bytes = head.bytes.subarray(take);
    }
  }

  /** Drops the audio not played yet; answers the marks that were still pending, in order. */
  clear(): string[] {
    const pending: string[] = [];
    for (const item of this.items) {
      if (item.kind === 'audio') this.clearedBytes += item.bytes.byteLength;
      else pending.push(item.name);
    }
    this.items = [];
    return pending;
  }
}

export abstract class CarrierStreamFake {
  readonly ws: WebSocket;
  /** the upgrade was refused with this status */
  refused: number | undefined;
  readonly opened: Promise<void>;
  readonly closed: Promise<void>;
  /** messages the server sent (parsed), in order */
  readonly received: Record<string, unknown>[] = [];
  readonly violations: string[] = [];
  stopped = false;
  protected readonly buffer = new PlayBuffer();
  protected callerQueue: Uint8Array[] = [];
  protected seq = 0;
  /** caller frames sent so far */
  protected ticks = 0;
  private t0 = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly url: string,
    headers: Record<string, string>,
  ) {
    this.ws = new WebSocket(url, { headers });
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('unexpected-response', (_req, res) => {
        this.refused = res.statusCode;
        reject(new Error(`stream refused: ${res.statusCode}`));
      });
      this.ws.once('error', reject);
    });
    this.opened.catch(() => {});
    this.closed = new Promise((resolve) => this.ws.once('close', () => resolve()));
    this.ws.on('open', () => {
      this.begin();
      this.t0 = performance.now();
      this.schedule();
    });
    this.ws.on('message', (data, binary) => this.receive(String(data), binary));
    this.ws.on('close', () => this.halt());
  }

  /** bytes of the server's audio that have been played to the caller */
  get playedBytes() {
    return this.buffer.playedBytes;
  }

  /** bytes dropped by a clear */
  get clearedBytes() {
    return this.buffer.clearedBytes;
  }

  /** Hears the server's audio as the caller's side plays it, at real time (mu-law 8 kHz). */
  listenToPlayed(fn: (bytes: Uint8Array) => void) {
    this.buffer.onPlayed = fn;
  }

  /** The caller says something: `ms` of loud audio, then silence. */
  say(ms = 400, silenceMs = 600) {
    this.callerQueue.push(...this.voiced(mulawFrames(ms, true)), ...mulawFrames(silenceMs, false));
  }

  /** The stream ends at the carrier: its stop message, then the socket closes. */
  stop() {
    if (this.stopped) return;
    this.stopped = true;
    this.send(this.stopMessage());
    this.halt();
    this.ws.close(1000);
  }

  of(event: string) {
    return this.received.filter((m) => m.event === event);
  }

  protected send(msg: Record<string, unknown>) {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  /** the carrier's first messages, once the socket is open */
  protected abstract begin(): void;
  protected abstract stopMessage(): Record<string, unknown>;
  /** one frame of the caller's audio, as the carrier's media message */
  protected abstract sendFrame(frame: Uint8Array): void;
  /** a mark's audio has played */
  protected abstract reached(name: string): void;
  protected abstract receive(text: string, binary: boolean): void;

  /** the caller's voiced frames, as queued (a carrier's fake may note them) */
  protected voiced(frames: Uint8Array[]): Uint8Array[] {
    return frames;
  }

  private schedule() {
    const due = this.t0 + (this.ticks + 1) * FRAME_MS;
    this.timer = setTimeout(() => this.tick(), Math.max(0, due - performance.now()));
  }

  /** Every 20 ms of the stream's clock: one caller frame out, 20 ms of the server's audio played. */
  private tick() {
    this.ticks++;
    this.sendFrame(this.callerQueue.shift() ?? (mulawFrames(FRAME_MS, false)[0] as Uint8Array));
    this.buffer.play(FRAME_BYTES, (name) => this.reached(name));
    if (!this.stopped && this.ws.readyState === WebSocket.OPEN) this.schedule();
  }

  private halt() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
