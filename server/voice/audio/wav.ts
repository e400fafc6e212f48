/**
 * WAV files: the 44-byte PCM header, and a streaming stereo recorder for calls (caller on the left, agent on
 * the right, 16-bit). The recorder writes to its file as the call goes and patches the header's sizes on
 * close, so a call of any length costs a bounded amount of memory (about two `windowMs` of audio).
 *
 * Both channels share one clock: each frame is placed at the time it was heard (`at`, performance.now()
 * milliseconds, 0 = `startedAt`). Frames that follow each other within `jitterMs` are laid end to end (the
 * network and timers jitter; audio must not gain clicks); a longer gap is silence; a channel that sends
 * nothing for a while is silence on its side. Feed the agent side with the frames as they are sent to the
 * caller at playback pace (not as fast as TTS produces them), so what is dropped by a barge-in is not recorded.
 *
 * The file never grows faster than real time: a side laid end to end more than `aheadMs` past the clock
 * (a line sending faster than real time) has the excess dropped and counted, so the data is at most
 * (duration + aheadMs) × 2 channels × 2 bytes × rate. Writes wait in a queue of at most `maxQueuedBytes`;
 * when the disk falls that far behind, data is dropped and counted (silence in its place) rather than held.
 */
import { type FileHandle, open } from 'node:fs/promises';
import { pcm16Bytes } from './pcm16.js';

export const WAV_HEADER_BYTES = 44;
/** RIFF sizes are 32-bit: a file stops growing just below 4 GiB */
const MAX_DATA_BYTES = 0xffffffff - WAV_HEADER_BYTES;
/** how far a side may run ahead of the clock (ms): above the burst a line lets through (transports/audio-gate.ts) */
export const RECORDING_AHEAD_MS = 1500;
/** writes waiting for the disk (bytes): about 16 s of a 16 kHz stereo call */
export const RECORDING_QUEUE_MAX_BYTES = 1 << 20;

/** The canonical 44-byte header of 16-bit PCM. */
export function wavHeader(dataBytes: number, sampleRate: number, channels: number): Uint8Array {
  const header = new Uint8Array(WAV_HEADER_BYTES);
  const view = new DataView(header.buffer);
  const ascii = (offset: number, text: string) => {
    for (let i = 0; i < text.length; i++) header[offset + i] = text.charCodeAt(i);
  };
  const blockAlign = channels * 2;
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + dataBytes, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, channels, true);
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * blockAlign, true); // byte rate
  view.setUint16(32, blockAlign, true);
  view.setUint16(34, 16, true); // bits per sample
  ascii(36, 'data');
  view.setUint32(40, dataBytes, true);
  return header;
}

export type RecordedSide = 'caller' | 'agent';

export interface StereoWavOptions {
  sampleRate: number;
  /** performance.now() of the first sample (default: when the file is opened) */
  startedAt?: number;
  /** gaps up to this long between a side's frames are taken as jitter and closed (default 60 ms) */
  jitterMs?: number;
  /** audio held before it is written, so a late frame of the other side still lands in place (default 1000 ms) */
  windowMs?: number;
  /** a side laid end to end past the clock by more than this is cut (default RECORDING_AHEAD_MS) */
  aheadMs?: number;
  /** bytes of writes that may wait for the disk; more are dropped (default RECORDING_QUEUE_MAX_BYTES) */
  maxQueuedBytes?: number;
}

interface Chunk {
  /** absolute sample index of samples[0] */
  start: number;
  samples: Int16Array;
}

interface Side {
  /** absolute sample index where this side's next sample goes */
  cursor: number;
  chunks: Chunk[];
}

export interface WavSummary {
  durationMs: number;
  bytes: number;
  /** true when the 4 GiB limit of the format cut the recording */
  truncated: boolean;
  /** ms of audio (per side, summed) cut because a side ran ahead of the clock */
  droppedMs: number;
  /** bytes of data not written because the disk fell behind (silence in the file) */
  unwrittenBytes: number;
}

export class StereoWavRecorder {
  private readonly sides: Record<RecordedSide, Side> = { caller: { cursor: 0, chunks: [] }, agent: { cursor: 0, chunks: [] } };
  /** samples (per channel) already handed to the file */
  private flushed = 0;
  private dataBytes = 0;
  private truncated = false;
  private writing: Promise<void> = Promise.resolve();
  /** bytes handed to `writing` and not written yet */
  private queuedBytes = 0;
  private unwrittenBytes = 0;
  /** samples cut because a side ran ahead of the clock */
  private droppedSamples = 0;
  /** samples of audio heard before `startedAt` (a line's first frames, kept until the call started): they
   * are laid from 0, so the clock allows that much more */
  private before = 0;
  private failure: unknown = null;
  private closing: Promise<WavSummary> | null = null;
  private readonly jitter: number;
  private readonly window: number;
  private readonly ahead: number;
  private readonly maxQueued: number;

  private constructor(
    private readonly file: FileHandle,
    readonly sampleRate: number,
    readonly startedAt: number,
    options: StereoWavOptions,
  ) {
    this.jitter = Math.round(((options.jitterMs ?? 60) * sampleRate) / 1000);
    this.window = Math.round(((options.windowMs ?? 1000) * sampleRate) / 1000);
    this.ahead = Math.round(((options.aheadMs ?? RECORDING_AHEAD_MS) * sampleRate) / 1000);
    this.maxQueued = options.maxQueuedBytes ?? RECORDING_QUEUE_MAX_BYTES;
  }

  /** Creates (or replaces) the file at `path` and writes a provisional header. */
  static async open(path: string, options: StereoWavOptions): Promise<StereoWavRecorder> {
    const file = await open(path, 'w');
    const recorder = new StereoWavRecorder(file, options.sampleRate, options.startedAt ?? performance.now(), options);
    recorder.write(wavHeader(0, options.sampleRate, 2), 0, true);
    return recorder;
  }

  /** One frame of one side, heard at `at` (performance.now() ms). Never throws; a write failure shows on close. */
  append(side: RecordedSide, samples: Int16Array, at: number = performance.now()): void {
    if (this.closing || this.truncated || samples.length === 0) return;
    const state = this.sides[side];
    const offset = Math.round(((at - this.startedAt) * this.sampleRate) / 1000);
    const due = Math.max(0, offset);
    this.before = Math.max(this.before, -offset);
    const start = Math.max(this.flushed, due - state.cursor > this.jitter ? due : state.cursor);
    // the side may not run ahead of the clock: what lies past due + ahead is cut
    const keep = Math.min(samples.length, due + this.ahead + this.before - start);
    if (keep < samples.length) this.droppedSamples += samples.length - Math.max(0, keep);
    if (keep <= 0) return;
    state.chunks.push({ start, samples: samples.slice(0, keep) });
    state.cursor = start + keep;
    const ahead = Math.max(this.sides.caller.cursor, this.sides.agent.cursor);
    if (ahead - this.flushed > 2 * this.window) this.flush(ahead - this.window);
  }

  /** Writes what is held, patches the header and closes the file. */
  close(): Promise<WavSummary> {
    this.closing ??= (async () => {
      this.flush(Math.max(this.sides.caller.cursor, this.sides.agent.cursor));
      this.write(wavHeader(this.dataBytes, this.sampleRate, 2), 0, true);
      await this.writing;
      // data dropped at the end of the file still counts in the header: the file is as long as it says
      if (this.unwrittenBytes > 0 && !this.failure)
        await this.file.truncate(WAV_HEADER_BYTES + this.dataBytes).catch((e) => {
          this.failure = e;
        });
      await this.file.close();
      if (this.failure) throw this.failure;
      return {
        durationMs: (this.dataBytes / 4 / this.sampleRate) * 1000,
        bytes: WAV_HEADER_BYTES + this.dataBytes,
        truncated: this.truncated,
        droppedMs: (this.droppedSamples / this.sampleRate) * 1000,
        unwrittenBytes: this.unwrittenBytes,
      };
    })();
    return this.closing;
  }

  /** Interleaves samples [flushed, upTo) of both sides (silence where a side has none) and writes them. */
  private flush(upTo: number): void {
    const frames = Math.min(upTo - this.flushed, Math.floor((MAX_DATA_BYTES - this.dataBytes) / 4));
    if (frames < upTo - this.flushed) this.truncated = true;
    if (frames <= 0) {
      this.sides.caller.chunks = [];
      this.sides.agent.chunks = [];
      return;
    }
    const end = this.flushed + frames;
    const out = new Int16Array(frames * 2);
    (['caller', 'agent'] as const).forEach((side, channel) => {
      const state = this.sides[side];
      while (state.chunks.length > 0) {
        const chunk = state.chunks[0]!;
        if (chunk.start >= end) break;
        const take = Math.min(chunk.samples.length, end - chunk.start);
        for (let i = 0; i < take; i++) out[(chunk.start - this.flushed + i) * 2 + channel] = chunk.samples[i]!;
        if (take < chunk.samples.length) {
          state.chunks[0] = { start: end, samples: chunk.samples.subarray(take) };
          break;
        }
        state.chunks.shift();
      }
    });
    this.write(pcm16Bytes(out), WAV_HEADER_BYTES + this.dataBytes);
    this.dataBytes += frames * 4;
    this.flushed = end;
  }

  /** Queues a write; data past `maxQueuedBytes` of waiting writes is dropped and counted (headers never). */
  private write(bytes: Uint8Array, position: number, always = false): void {
    if (!always && this.queuedBytes + bytes.byteLength > this.maxQueued) {
      this.unwrittenBytes += bytes.byteLength;
      return;
    }
    this.queuedBytes += bytes.byteLength;
    this.writing = this.writing.then(async () => {
      try {
        if (!this.failure) await this.file.write(bytes, 0, bytes.byteLength, position);
      } catch (error) {
        this.failure = error;
      } finally {
        this.queuedBytes -= bytes.byteLength;
      }
    });
  }
}

/**
 * Makes a recording left by a process that died mid-call playable: its header still says 0 bytes of data
 * (the sizes are patched on close), and its last write may have stopped inside a sample frame. The data is
 * cut to whole frames and the header rewritten with that size. Answers the summary, or null when the file
 * is missing or is not a 16-bit PCM WAV of this format (left alone).
 */
export async function repairWav(path: string): Promise<WavSummary | null> {
  let file: FileHandle;
  try {
    file = await open(path, 'r+');
  } catch {
    return null;
  }
  try {
    const { size } = await file.stat();
    if (size < WAV_HEADER_BYTES) return null;
    const header = new Uint8Array(WAV_HEADER_BYTES);
    await file.read(header, 0, WAV_HEADER_BYTES, 0);
    const view = new DataView(header.buffer);
    const text = (offset: number) => String.fromCharCode(...header.subarray(offset, offset + 4));
    const channels = view.getUint16(22, true);
    const sampleRate = view.getUint32(24, true);
    const pcm16 = text(0) === 'RIFF' && text(8) === 'WAVE' && text(12) === 'fmt ' && text(36) === 'data';
    if (!pcm16 || view.getUint16(20, true) !== 1 || view.getUint16(34, true) !== 16 || channels < 1 || sampleRate < 1)
      return null;
    const blockAlign = channels * 2;
    const dataBytes = Math.min(MAX_DATA_BYTES, Math.floor((size - WAV_HEADER_BYTES) / blockAlign) * blockAlign);
    if (size !== WAV_HEADER_BYTES + dataBytes) await file.truncate(WAV_HEADER_BYTES + dataBytes);
    await file.write(wavHeader(dataBytes, sampleRate, channels), 0, WAV_HEADER_BYTES, 0);
    return {
      durationMs: (dataBytes / blockAlign / sampleRate) * 1000,
      bytes: WAV_HEADER_BYTES + dataBytes,
      truncated: dataBytes === MAX_DATA_BYTES,
      // what the dead process cut or could not write is not known any more
      droppedMs: 0,
      unwrittenBytes: 0,
    };
  } finally {
    await file.close();
  }
}
