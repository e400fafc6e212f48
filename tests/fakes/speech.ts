/**
 * What the TTS fakes share: a deterministic "voice" (a 440 Hz tone at 0.3 of full scale, `msPerChar`
 * milliseconds of it per character of text, phase-continuous across a turn) in the format a test asked
 * for, and an outbox that sends a provider's messages in order, after a first-byte delay and spaced by a
 * chunk interval, and that a cancel empties at once.
 */
import { mulawEncode } from '../../server/voice/audio/mulaw.js';
import { pcm16Bytes } from '../../server/voice/audio/pcm16.js';
import { wait } from './server.js';

export interface FakeVoiceOptions {
  encoding: 'pcm16' | 'mulaw';
  sampleRate: number;
  msPerChar: number;
  /** audio per message (default 100 ms) */
  chunkMs?: number;
}

export class FakeVoice {
  private sample = 0;
  constructor(readonly options: FakeVoiceOptions) {}

  /** Samples of `text` spoken: its duration is characters * msPerChar. */
  samplesFor(text: string): number {
    return Math.round((text.length * this.options.msPerChar * this.options.sampleRate) / 1000);
  }

  /** The audio of `text`, cut into messages of chunkMs each. */
  speak(text: string): Uint8Array[] {
    const { sampleRate, encoding } = this.options;
    const total = this.samplesFor(text);
    const perChunk = Math.round(((this.options.chunkMs ?? 100) * sampleRate) / 1000);
    const chunks: Uint8Array[] = [];
    for (let done = 0; done < total; done += perChunk) {
      const samples = Int16Array.from({ length: Math.min(perChunk, total - done) }, () =>
        Math.round(0.3 * 32767 * Math.sin((2 * Math.PI * 440 * this.sample++) / sampleRate)),
      );
      chunks.push(encoding === 'mulaw' ? mulawEncode(samples) : new Uint8Array(pcm16Bytes(samples)));
    }
    return chunks;
  }
}

export interface OutboxTiming {
  /** wait before the first message (a slow provider) */
  firstByteDelayMs: number;
  /** wait between messages */
  chunkIntervalMs: number;
}

export class Outbox {
  private items: (() => void)[] = [];
  private running = false;
  private started = false;
  private cancelled = false;

  constructor(private readonly timing: OutboxTiming) {}

  push(item: () => void): void {
    if (this.cancelled) return;
    this.items.push(item);
    if (!this.running) void this.run();
  }

  /** Drops everything not yet sent. */
  cancel(): void {
    this.cancelled = true;
    this.items = [];
  }

  private async run() {
    this.running = true;
    while (this.items.length > 0 && !this.cancelled) {
      const delay = this.started ? this.timing.chunkIntervalMs : this.timing.firstByteDelayMs;
      if (delay > 0) await wait(delay);
      else await new Promise((resolve) => setImmediate(resolve));
      if (this.cancelled) break;
      this.started = true;
      this.items.shift()?.();
    }
    this.running = false;
  }
}

/** A caller's audio as 20 ms frames: speech is a 300 Hz tone at 0.3 of full scale, silence is zeros. */
export function callerFrames(
  format: { encoding: 'pcm16' | 'mulaw'; sampleRate: number },
  parts: ['speech' | 'silence', number][],
): Uint8Array[] {
  const perFrame = format.sampleRate / 50;
  const frames: Uint8Array[] = [];
  let n = 0;
  for (const [kind, ms] of parts) {
    for (let t = 0; t < ms; t += 20) {
      const samples = Int16Array.from({ length: perFrame }, () =>
        kind === 'speech' ? Math.round(0.3 * 32767 * Math.sin((2 * Math.PI * 300 * n++) / format.sampleRate)) : 0,
      );
      frames.push(format.encoding === 'mulaw' ? mulawEncode(samples) : new Uint8Array(pcm16Bytes(samples)));
    }
  }
  return frames;
}
