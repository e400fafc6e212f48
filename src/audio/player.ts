/**
 * Playing the agent's voice: a stream of 16 kHz PCM16 frames played back to back (the web
 * call), and a whole WAV (Test Audio). Web Audio only: no media element, so no blob: URL for the CSP.
 */
import { CALL_SAMPLE_RATE, meterLevel, pcm16ToFloat } from './pcm';

/** How far ahead of the clock the first frame after a gap starts (absorbs network jitter). */
export const PLAYOUT_LEAD_S = 0.06;

export interface StreamPlayer {
  /** Queues one frame of PCM16 LE to play after the ones queued before it. */
  push(frame: ArrayBuffer): void;
  /** Drops every frame not yet played (a barge-in: the server sent `clear`). */
  clear(): void;
  /** The level of what is playing now (0..1), for a meter. */
  level(): number;
  /** seconds of audio queued and not yet played */
  buffered(): number;
  close(): void;
}

export function createStreamPlayer(context: AudioContext): StreamPlayer {
  const analyser = context.createAnalyser();
  analyser.fftSize = 512;
  analyser.connect(context.destination);
  const scratch = new Float32Array(analyser.fftSize);
  let cursor = 0;
  const playing = new Set<AudioBufferSourceNode>();
  return {
    push(frame) {
      const samples = pcm16ToFloat(frame);
      if (!samples.length) return;
      const buffer = context.createBuffer(1, samples.length, CALL_SAMPLE_RATE);
      buffer.copyToChannel(samples, 0);
      const node = context.createBufferSource();
      node.buffer = buffer;
      node.connect(analyser);
      const now = context.currentTime;
      if (cursor < now) cursor = now + PLAYOUT_LEAD_S;
      node.start(cursor);
      cursor += buffer.duration;
      playing.add(node);
      node.onended = () => playing.delete(node);
    },
    clear() {
      for (const node of playing) {
        node.onended = null;
        try {
          node.stop();
        } catch {
          // not started yet in some engines: disconnecting is enough
        }
        node.disconnect();
      }
      playing.clear();
      cursor = 0;
    },
    level() {
      analyser.getFloatTimeDomainData(scratch);
      let sum = 0;
      for (const s of scratch) sum += s * s;
      return meterLevel(Math.sqrt(sum / scratch.length));
    },
    buffered: () => Math.max(0, cursor - context.currentTime),
    close() {
      this.clear();
      analyser.disconnect();
    },
  };
}

export interface ClipPlayback {
  /** resolves when the clip has played to its end or was stopped */
  finished: Promise<void>;
  stop(): void;
}

/** Plays a WAV (or any format the browser decodes) once. Rejects when it cannot be decoded. */
export async function playClip(bytes: ArrayBuffer): Promise<ClipPlayback> {
  const context = new AudioContext();
  let buffer: AudioBuffer;
  try {
    buffer = await context.decodeAudioData(bytes);
  } catch (error) {
    void context.close();
    throw error;
  }
  const node = context.createBufferSource();
  node.buffer = buffer;
  node.connect(context.destination);
  let settle: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    settle = resolve;
  });
  let stopped = false;
  const end = () => {
    if (stopped) return;
    stopped = true;
    node.onended = null;
    void context.close();
    settle();
  };
  node.onended = end;
  if (context.state === 'suspended') await context.resume().catch(() => {});
  node.start();
  return {
    finished,
    stop() {
      try {
        node.stop();
      } catch {
        // already stopped
      }
      end();
    },
  };
}
