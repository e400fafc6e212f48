/**
 * Paced playout of the agent's audio. Audio arrives from the voice provider in bursts, faster than real
 * time; it is queued here and sent to the caller one 20 ms frame at a time, LOOKAHEAD_FRAMES ahead of real
 * time, so that a barge-in (`clear`) drops almost nothing the caller has already received and the position
 * the caller has heard is known (`heardMs`). Marks placed after a stretch of audio fire once the caller
 * has heard it.
 *
 * One shared ticker (every TICK_MS, only while some playout has audio) serves every call of the process;
 * each playout keeps its own schedule from its start time, so a late tick sends every frame that is due
 * (nothing drifts) and `lateFrames` counts frames sent more than a frame late (a bench figure).
 */
import type { AudioFormat } from '../providers/types.js';

export const FRAME_MS = 20;
export const LOOKAHEAD_FRAMES = 1;
const TICK_MS = 5;

export interface PlayoutSink {
  /** one frame of agent audio, in the transport's format */
  sendFrame(frame: Uint8Array): void;
}

interface Mark {
  /** byte offset in the whole playout after which the mark fires */
  at: number;
  onHeard: () => void;
}

const active = new Set<Playout>();
let ticker: ReturnType<typeof setInterval> | undefined;

function tickAll() {
  const now = performance.now();
  for (const p of active) p.tick(now);
  if (active.size === 0 && ticker) {
    clearInterval(ticker);
    ticker = undefined;
  }
}

function wake(p: Playout) {
  active.add(p);
  ticker ??= setInterval(tickAll, TICK_MS);
}

export class Playout {
  readonly frameBytes: number;
  private readonly silenceByte: number;
  private queue: Uint8Array[] = [];
  private queuedBytes = 0;
  /** bytes of the first queued chunk already sent */
  private headOffset = 0;
  /** bytes sent since the playout began (all turns) */
  private sentBytes = 0;
  /** bytes dropped by clear() (never heard) */
  private marks: Mark[] = [];
  /** when the frame at `sentBytes` is due (performance.now ms); undefined while idle */
  private nextDue: number | undefined;
  private closed = false;
  lateFrames = 0;
  framesSent = 0;
  /** the caller's timeline: when the agent audio sent at byte offset 0 started (ms), for the recording */
  onFrameSent?: (frame: Uint8Array, at: number) => void;

  constructor(
    readonly format: AudioFormat,
    private readonly sink: PlayoutSink,
  ) {
    this.frameBytes = (format.sampleRate / 1000) * FRAME_MS * (format.encoding === 'pcm16' ? 2 : 1);
    this.silenceByte = format.encoding === 'mulaw' ? 0xff : 0;
  }

  /** Queues agent audio; it starts playing at once if the line was idle. */
  play(chunk: Uint8Array): void {
    if (this.closed || chunk.byteLength === 0) return;
    this.queue.push(chunk);
    this.queuedBytes += chunk.byteLength;
    if (this.nextDue === undefined) {
      this.nextDue = performance.now();
      this.tick(this.nextDue);
    }
    wake(this);
  }

  /** Fires `onHeard` once everything queued so far has been heard. */
  mark(onHeard: () => void): void {
    const at = this.sentBytes + this.queuedBytes;
    if (this.heardBytes() >= at) onHeard();
    else this.marks.push({ at, onHeard });
  }

  /** Drops the audio not yet sent. Marks after it never fire. Returns the ms dropped. */
  clear(): number {
    const dropped = this.queuedBytes;
    this.queue = [];
    this.queuedBytes = 0;
    this.headOffset = 0;
    this.marks = this.marks.filter((m) => m.at <= this.sentBytes);
    this.nextDue = undefined;
    // what was sent is heard: fire the marks within it
    this.fireMarks(this.sentBytes);
    return this.bytesToMs(dropped);
  }

  /** ms of agent audio the caller has heard, since the playout began. */
  heardMs(now = performance.now()): number {
    return this.bytesToMs(this.heardBytes(now));
  }

  /** ms sent but not yet heard, plus ms queued. */
  pendingMs(now = performance.now()): number {
    return this.bytesToMs(this.sentBytes - this.heardBytes(now) + this.queuedBytes);
  }

  /** ms of audio sent since the playout began. */
  sentMs(): number {
    return this.bytesToMs(this.sentBytes);
  }

  /** ms position where the queued audio ends (sent + queued). */
  queuedEndMs(): number {
    return this.bytesToMs(this.sentBytes + this.queuedBytes);
  }

  close(): void {
    this.closed = true;
    this.queue = [];
    this.queuedBytes = 0;
    this.marks = [];
    active.delete(this);
  }

  /** Sends every frame due by `now` plus the lookahead; fires the marks the caller has heard. */
  tick(now: number): void {
    if (this.nextDue !== undefined) {
      while (this.queuedBytes > 0 && this.nextDue <= now + LOOKAHEAD_FRAMES * FRAME_MS) {
        if (now - this.nextDue > FRAME_MS) this.lateFrames++;
        this.sendOne(this.nextDue);
        this.nextDue += FRAME_MS;
      }
      if (this.queuedBytes === 0 && this.nextDue < now) this.nextDue = undefined; // ran dry: idle until more audio
    }
    this.fireMarks(this.heardBytes(now));
    if (this.nextDue === undefined && this.marks.length === 0) active.delete(this);
  }

  private sendOne(at: number) {
    const frame = new Uint8Array(this.frameBytes);
    let filled = 0;
    while (filled < this.frameBytes && this.queue.length > 0) {
      const head = this.queue[0] as Uint8Array;
      const take = Math.min(head.byteLength - this.headOffset, this.frameBytes - filled);
      frame.set(head.subarray(this.headOffset, this.headOffset + take), filled);
      filled += take;
      this.headOffset += take;
      if (this.headOffset >= head.byteLength) {
        this.queue.shift();
        this.headOffset = 0;
      }
    }
    if (filled < this.frameBytes) frame.fill(this.silenceByte, filled);
    this.queuedBytes = Math.max(0, this.queuedBytes - filled);
    this.sentBytes += filled;
    this.framesSent++;
    this.sink.sendFrame(frame);
    this.onFrameSent?.(frame, at);
  }

  /** Bytes heard: sent, less what is still ahead of real time. */
  private heardBytes(now = performance.now()): number {
    if (this.nextDue === undefined) return this.sentBytes;
    const aheadMs = Math.max(0, this.nextDue - now);
    return Math.max(0, this.sentBytes - Math.ceil(this.msToBytes(aheadMs)));
  }

  private fireMarks(heard: number) {
    while (this.marks.length > 0 && (this.marks[0] as Mark).at <= heard) (this.marks.shift() as Mark).onHeard();
  }

  private bytesToMs(bytes: number) {
    return (bytes / this.frameBytes) * FRAME_MS;
  }

  private msToBytes(ms: number) {
    return (ms / FRAME_MS) * this.frameBytes;
  }
}
