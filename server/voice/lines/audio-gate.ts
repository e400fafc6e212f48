/**
 * Holds a line's caller audio to real time, whatever the client sends: a token bucket filled at the
 * line's own byte rate (from its AudioFormat: 16 kHz PCM16 is 32,000 bytes a second, 8 kHz mu-law 8,000)
 * that holds `burstMs` of audio, so network jitter and the frames bunched after a short stall pass, and
 * the excess is dropped (whole samples are kept: a frame may pass in part) and counted. What the engine
 * hears, records and bills can then never run ahead of the call's clock by more than the burst.
 *
 * A line that keeps sending faster than real time floods: the audio it dropped, less what a window
 * forgives (`floodMs` of audio every `floodWindowMs`, leaking steadily), passing `floodMs`. At twice real
 * time that takes about 10 s; as fast as a socket takes frames, a few dozen frames. SocketLine then hangs up
 * (LINE_FLOOD_REASON). The clock is injected: performance.now() in production, a fake in tests.
 */
import { CALL_RUNTIME_MESSAGES } from '@contract/call-runtime.js';
import type { CallEndReason } from '../../../src/machines/callSession.machine.js';
import { type AudioFormat, bytesPerMs } from '../providers/types.js';

/**
 * Audio that may come ahead of real time at once (ms): what a browser keeps queued while its socket is
 * slow (src/audio/call-line.ts, 1 s), so the frames bunched after a network stall are all heard.
 */
export const GATE_BURST_MS = 1000;
/** Dropped audio (ms) that makes a line a flood ... */
export const FLOOD_DROPPED_MS = 5000;
/** ... within this window (the meter leaks FLOOD_DROPPED_MS per window). */
export const FLOOD_WINDOW_MS = 10_000;

/** Why a flooding line's call ended, and what its caller is told. */
export const LINE_FLOOD_REASON = 'error_audio_flood' satisfies CallEndReason;
export const LINE_FLOOD_MESSAGE = CALL_RUNTIME_MESSAGES.audioFlood;

export interface AudioGateOptions {
  /** ms of audio let through ahead of real time (default GATE_BURST_MS) */
  burstMs?: number;
  /** dropped audio (ms) within `floodWindowMs` that makes the line a flood (default FLOOD_DROPPED_MS) */
  floodMs?: number;
  floodWindowMs?: number;
  /** the clock (ms); default performance.now */
  now?: () => number;
}

/** The caller's audio as a line took it (counters for the log line at the end of a call). */
export interface CallerAudioStats {
  /** the line's clock: when it opened (the clock's ms) */
  openedAt: number;
  receivedBytes: number;
  admittedBytes: number;
  droppedBytes: number;
  /** frames that lost some or all of their audio */
  droppedFrames: number;
}

export class AudioGate {
  readonly stats: CallerAudioStats;
  /** set once the line has flooded; it stays set */
  flooding = false;
  private readonly now: () => number;
  private readonly bytesPerMs: number;
  private readonly sampleBytes: number;
  private readonly capacity: number;
  private readonly floodMs: number;
  private readonly leakPerMs: number;
  /** bytes that may pass now */
  private tokens: number;
  /** ms of dropped audio on the flood meter */
  private floodLevel = 0;
  private last: number;

  constructor(format: AudioFormat, options: AudioGateOptions = {}) {
    this.now = options.now ?? (() => performance.now());
    this.bytesPerMs = bytesPerMs(format);
    this.sampleBytes = format.encoding === 'pcm16' ? 2 : 1;
    this.capacity = (options.burstMs ?? GATE_BURST_MS) * this.bytesPerMs;
    this.floodMs = options.floodMs ?? FLOOD_DROPPED_MS;
    this.leakPerMs = this.floodMs / (options.floodWindowMs ?? FLOOD_WINDOW_MS);
    this.tokens = this.capacity;
    this.last = this.now();
    this.stats = { openedAt: this.last, receivedBytes: 0, admittedBytes: 0, droppedBytes: 0, droppedFrames: 0 };
  }

  /** The part of `frame` that real time allows (a prefix of whole samples), or null when none. */
  admit(frame: Uint8Array): Uint8Array | null {
    this.refill();
    this.stats.receivedBytes += frame.byteLength;
    const allowed = Math.floor(this.tokens / this.sampleBytes) * this.sampleBytes;
    const take = Math.min(frame.byteLength, allowed);
    this.tokens -= take;
    this.stats.admittedBytes += take;
    if (take < frame.byteLength) this.drop(frame.byteLength - take);
    return take > 0 ? (take === frame.byteLength ? frame : frame.subarray(0, take)) : null;
  }

  /** A frame the line refused outright (malformed, oversized): dropped, and on the flood meter. */
  refuse(bytes: number): void {
    this.refill();
    this.stats.receivedBytes += bytes;
    this.drop(bytes);
  }

  private drop(bytes: number) {
    this.stats.droppedBytes += bytes;
    this.stats.droppedFrames++;
    this.floodLevel += bytes / this.bytesPerMs;
    if (this.floodLevel > this.floodMs) this.flooding = true;
  }

  private refill() {
    const now = this.now();
    const elapsed = Math.max(0, now - this.last);
    this.last = now;
    this.tokens = Math.min(this.capacity, this.tokens + elapsed * this.bytesPerMs);
    this.floodLevel = Math.max(0, this.floodLevel - elapsed * this.leakPerMs);
  }
}
