/**
 * The web call's microphone: getUserMedia with echo cancellation on, and an AudioWorklet
 * (public/pcm-capture.worklet.js) that hands over 20 ms frames of 16 kHz mono PCM16 LE.
 */
import { meterLevel } from './pcm';

export const CAPTURE_WORKLET_URL = '/pcm-capture.worklet.js';

export type MicrophoneProblem = 'denied' | 'missing' | 'failed';

/** Why the microphone could not be opened. */
export class MicrophoneError extends Error {
  override readonly name = 'MicrophoneError';
  constructor(
    readonly problem: MicrophoneProblem,
    message: string,
  ) {
    super(message);
  }
}

/** The problem behind a getUserMedia rejection. */
export function microphoneProblemOf(error: unknown): MicrophoneProblem {
  const name = typeof error === 'object' && error !== null && 'name' in error ? String(error.name) : '';
  if (name === 'NotAllowedError' || name === 'SecurityError' || name === 'PermissionDeniedError') return 'denied';
  if (name === 'NotFoundError' || name === 'DevicesNotFoundError' || name === 'OverconstrainedError') return 'missing';
  return 'failed';
}

export interface Microphone {
  /** the context the capture runs on (the call's playback shares it) */
  context: AudioContext;
  /** each 20 ms frame (640 bytes) as it is captured */
  onFrame(listener: (frame: ArrayBuffer) => void): void;
  /** the level of the last frame, for a meter (0..1) */
  level(): number;
  setMuted(muted: boolean): void;
  /**
   * Stops the capture and releases the microphone at once (the browser's indicator goes off); the audio
   * context, which also plays the agent, is closed `contextAfterMs` later (the agent's last words).
   */
  close(contextAfterMs?: number): void;
}

export async function openMicrophone(messages: Record<MicrophoneProblem, string>): Promise<Microphone> {
  if (!navigator.mediaDevices?.getUserMedia) throw new MicrophoneError('failed', messages.failed);
  let stream: MediaStream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({
      audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1 },
    });
  } catch (error) {
    const problem = microphoneProblemOf(error);
    throw new MicrophoneError(problem, messages[problem]);
  }
  const context = new AudioContext({ latencyHint: 'interactive' });
  try {
    await context.audioWorklet.addModule(CAPTURE_WORKLET_URL);
    if (context.state === 'suspended') await context.resume();
  } catch {
    for (const t of stream.getTracks()) t.stop();
    void context.close();
    throw new MicrophoneError('failed', messages.failed);
  }
  const source = context.createMediaStreamSource(stream);
  const node = new AudioWorkletNode(context, 'pcm-capture', { numberOfInputs: 1, numberOfOutputs: 0, channelCount: 1 });
  source.connect(node);
  let lastLevel = 0;
  let listener: (frame: ArrayBuffer) => void = () => {};
  node.port.onmessage = (e: MessageEvent<{ frame: ArrayBuffer; level: number }>) => {
    lastLevel = meterLevel(e.data.level);
    listener(e.data.frame);
  };
  let closed = false;
  return {
    context,
    onFrame: (l) => {
      listener = l;
    },
    level: () => lastLevel,
    setMuted: (muted) => node.port.postMessage({ muted }),
    close(contextAfterMs = 0) {
      if (closed) return;
      closed = true;
      node.port.onmessage = null;
      source.disconnect();
      node.disconnect();
      for (const t of stream.getTracks()) t.stop();
      if (contextAfterMs > 0) setTimeout(() => void context.close(), contextAfterMs);
      else void context.close();
    },
  };
}
