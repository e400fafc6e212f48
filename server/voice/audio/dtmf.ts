/**
 * DTMF: the keypad's tones (ITU-T Q.23: each key is one low "row" frequency plus one high "column"
 * frequency played together), generated into a line's format (mu-law 8 kHz for phones, PCM16 16 kHz for
 * the browser), and a Goertzel detector that finds them again in audio.
 *
 * The generator is what press_digit plays into a phone call: 100 ms of tone, then 100 ms of silence, per
 * key (well above the 40 ms tone and 40 ms pause Q.24 receivers need). The detector measures the power of
 * the eight frequencies in 20 ms blocks (Goertzel's algorithm: one filter per frequency, no FFT); a key is
 * the strongest row with the strongest column, both clearly above the other frequencies of their group
 * and together most of the block's energy, for two blocks in a row. The fake IVR of the tests hears the
 * agent's keys with it.
 */
import type { AudioFormat } from '../providers/types.js';
import { fromSamples, toSamples } from './pcm16.js';

/** The keys, each with its row and column frequency (Hz). */
export const DTMF_KEYS: Readonly<Record<string, readonly [number, number]>> = {
  '1': [697, 1209],
  '2': [697, 1336],
  '3': [697, 1477],
  A: [697, 1633],
  '4': [770, 1209],
  '5': [770, 1336],
  '6': [770, 1477],
  B: [770, 1633],
  '7': [852, 1209],
  '8': [852, 1336],
  '9': [852, 1477],
  C: [852, 1633],
  '*': [941, 1209],
  '0': [941, 1336],
  '#': [941, 1477],
  D: [941, 1633],
};

export const DTMF_ROWS = [697, 770, 852, 941] as const;
export const DTMF_COLUMNS = [1209, 1336, 1477, 1633] as const;

export const DTMF_TONE_MS = 100;
export const DTMF_GAP_MS = 100;
/** each of the two frequencies at this fraction of full scale (together about -9 dBFS: loud, never clipped) */
const TONE_AMPLITUDE = 0.25;

/** A string of keys (0-9, *, #, A-D), at least one. */
export const DTMF_DIGITS_PATTERN = /^[0-9*#A-D]+$/;

export const isDtmfDigits = (s: string) => DTMF_DIGITS_PATTERN.test(s);

/** Samples of `digits` as DTMF at `sampleRate`: each key's tone, then its gap. Throws on a non-key. */
export function dtmfSamples(digits: string, sampleRate: number, timing: { toneMs?: number; gapMs?: number } = {}): Int16Array {
  if (!isDtmfDigits(digits)) throw new Error('DTMF keys are 0-9, *, # and A-D');
  const tone = Math.round(((timing.toneMs ?? DTMF_TONE_MS) * sampleRate) / 1000);
  const gap = Math.round(((timing.gapMs ?? DTMF_GAP_MS) * sampleRate) / 1000);
  const out = new Int16Array(digits.length * (tone + gap));
  let at = 0;
  for (const key of digits) {
    const [low, high] = DTMF_KEYS[key] as readonly [number, number];
    for (let i = 0; i < tone; i++) {
      const t = i / sampleRate;
      const v = TONE_AMPLITUDE * (Math.sin(2 * Math.PI * low * t) + Math.sin(2 * Math.PI * high * t));
      out[at + i] = Math.round(v * 32767);
    }
    at += tone + gap; // the gap stays zeros: silence
  }
  return out;
}

/** `digits` as DTMF audio in the line's format (mu-law or PCM16 little-endian). */
export function dtmfAudio(digits: string, format: AudioFormat, timing?: { toneMs?: number; gapMs?: number }): Uint8Array {
  return fromSamples(dtmfSamples(digits, format.sampleRate, timing), format.encoding);
}

/** Power of `freq` in `samples` (Goertzel's algorithm). */
export function goertzelPower(samples: ArrayLike<number>, freq: number, sampleRate: number): number {
  const coeff = 2 * Math.cos((2 * Math.PI * freq) / sampleRate);
  let s1 = 0;
  let s2 = 0;
  for (let i = 0; i < samples.length; i++) {
    const s0 = (samples[i] as number) + coeff * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return s1 * s1 + s2 * s2 - coeff * s1 * s2;
}

/** The strongest of `freqs` and how much stronger it is than the next one. */
function strongest(samples: ArrayLike<number>, freqs: readonly number[], sampleRate: number) {
  const powers = freqs.map((f) => goertzelPower(samples, f, sampleRate));
  let best = 0;
  for (let i = 1; i < powers.length; i++) if ((powers[i] as number) > (powers[best] as number)) best = i;
  const second = Math.max(0, ...powers.filter((_, i) => i !== best));
  return {
    freq: freqs[best] as number,
    power: powers[best] as number,
    ratio: second === 0 ? Infinity : (powers[best] as number) / second,
  };
}

/** the strongest row and column each at least this many times the next of their group */
const GROUP_RATIO = 4;
/** the two tones' share of the block's energy (a voice, or a tone plus speech, falls below) */
const TONE_SHARE = 0.6;
/** the weaker tone at least this fraction of the stronger (twist) */
const TWIST = 0.2;
/** a block quieter than this mean-square (about -50 dBFS) is silence */
const SILENCE = (32767 * 0.003) ** 2;

/** The key sounding in one block of samples, or null. */
export function detectKey(samples: ArrayLike<number>, sampleRate: number): string | null {
  const n = samples.length;
  if (n === 0) return null;
  let energy = 0;
  for (let i = 0; i < n; i++) energy += (samples[i] as number) ** 2;
  if (energy / n < SILENCE) return null;
  const row = strongest(samples, DTMF_ROWS, sampleRate);
  const col = strongest(samples, DTMF_COLUMNS, sampleRate);
  if (row.ratio < GROUP_RATIO || col.ratio < GROUP_RATIO) return null;
  if (Math.min(row.power, col.power) < TWIST * Math.max(row.power, col.power)) return null;
  // a pure tone of amplitude A over n samples has Goertzel power (A n / 2)^2, and energy A^2 n / 2
  const toneEnergy = ((row.power + col.power) * 2) / n;
  if (toneEnergy < TONE_SHARE * energy) return null;
  for (const [key, [low, high]] of Object.entries(DTMF_KEYS)) if (low === row.freq && high === col.freq) return key;
  return null;
}

/** A key heard: which, and when its tone began (ms from the detector's start). */
export interface HeardKey {
  key: string;
  atMs: number;
}

/** the detector's block (ms) */
export const DETECT_BLOCK_MS = 20;

/**
 * Finds keys in a stream of audio fed in any chunk sizes. A key counts once it sounds for two blocks in a
 * row (40 ms); the same key again needs a block without it first (a pause).
 */
export class DtmfDetector {
  private readonly block: Int16Array;
  private filled = 0;
  private blocks = 0;
  private candidate: string | null = null;
  private run = 0;
  private reported: string | null = null;

  constructor(
    readonly format: AudioFormat,
    private readonly onKey: (heard: HeardKey) => void = () => {},
  ) {
    this.block = new Int16Array((format.sampleRate * DETECT_BLOCK_MS) / 1000);
  }

  /** Audio in the detector's format. */
  push(bytes: Uint8Array): void {
    this.pushSamples(toSamples(bytes, this.format));
  }

  pushSamples(samples: Int16Array): void {
    let i = 0;
    while (i < samples.length) {
      const take = Math.min(samples.length - i, this.block.length - this.filled);
      this.block.set(samples.subarray(i, i + take), this.filled);
      this.filled += take;
      i += take;
      if (this.filled === this.block.length) {
        this.filled = 0;
        this.step(detectKey(this.block, this.format.sampleRate));
      }
    }
  }

  private step(key: string | null) {
    this.blocks++;
    if (key === null || key !== this.candidate) {
      this.candidate = key;
      this.run = key === null ? 0 : 1;
      if (key === null) this.reported = null;
      else if (key !== this.reported) this.reported = null;
      return;
    }
    this.run++;
    if (this.run === 2 && this.reported !== key) {
      this.reported = key;
      this.onKey({ key, atMs: (this.blocks - 2) * DETECT_BLOCK_MS });
    }
  }
}

/** Every key in `audio` (in `format`), in order. */
export function detectKeys(audio: Uint8Array, format: AudioFormat): HeardKey[] {
  const out: HeardKey[] = [];
  new DtmfDetector(format, (k) => out.push(k)).push(audio);
  return out;
}
