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
 */
import { type FileHandle, open } from 'node:fs/promises';
import { pcm16Bytes } from './pcm16.js';

export const WAV_HEADER_BYTES = 44;
/** RIFF sizes are 32-bit: a file stops growing just below 4 GiB */
const MAX_DATA_BYTES = 0xffffffff - WAV_HEADER_BYTES;

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
}

export class StereoWavRecorder {
  private readonly sides: Record<RecordedSide, Side> = { caller: { cursor: 0, chunks: [] }, agent: { cursor: 0, chunks: [] } };
  /** samples (per channel) already handed to the file */
  private flushed = 0;
  private dataBytes = 0;
  private truncated = false;
  private writing: Promise<void> = Promise.resolve();
  private failure: unknown = null;
  private closing: Promise<WavSummary> | null = null;
  private readonly jitter: number;
  private readonly window: number;

  private constructor(
    private readonly file: FileHandle,
    readonly sampleRate: number,
    readonly startedAt: number,
    options: StereoWavOptions,
  ) {
    this.jitter = Math.round(((options.jitterMs ?? 60) * sampleRate) / 1000);
    this.window = Math.round(((options.windowMs ?? 1000) * sampleRate) / 1000);
  }

  /** Creates (or replaces) the file at `path` and writes a provisional header. */
  static async open(path: string, options: StereoWavOptions): Promise<StereoWavRecorder> {
    const file = await open(path, 'w');
    const recorder = new StereoWavRecorder(file, options.sampleRate, options.startedAt ?? performance.now(), options);
    recorder.write(wavHeader(0, options.sampleRate, 2), 0);
    return recorder;
  }

  /** One frame of one side, heard at `at` (performance.now() ms). Never throws; a write failure shows on close. */
  append(side: RecordedSide, samples: Int16Array, at: number = performance.now()): void {
    if (this.closing || this.truncated || samples.length === 0) return;
    const state = this.sides[side];
    const due = Math.max(0, Math.round(((at - this.startedAt) * this.sampleRate) / 1000));
    const start = Math.max(this.flushed, due - state.cursor > this.jitter ? due : state.cursor);
    state.chunks.push({ start, samples: samples.slice() });
    state.cursor = start + samples.length;
    const ahead = Math.max(this.sides.caller.cursor, this.sides.agent.cursor);
    if (ahead - this.flushed > 2 * this.window) this.flush(ahead - this.window);
  }

  /** Writes what is held, patches the header and closes the file. */
  close(): Promise<WavSummary> {
    this.closing ??= (async () => {
      this.flush(Math.max(this.sides.caller.cursor, this.sides.agent.cursor));
      this.write(wavHeader(this.dataBytes, this.sampleRate, 2), 0);
      await this.writing;
      await this.file.close();
      if (this.failure) throw this.failure;
      return {
        durationMs: (this.dataBytes / 4 / this.sampleRate) * 1000,
        bytes: WAV_HEADER_BYTES + this.dataBytes,
        truncated: this.truncated,
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

  private write(bytes: Uint8Array, position: number): void {
    this.writing = this.writing.then(async () => {
      if (this.failure) return;
      try {
        await this.file.write(bytes, 0, bytes.byteLength, position);
      } catch (error) {
        this.failure = error;
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
    };
  } finally {
    await file.close();
  }
}
