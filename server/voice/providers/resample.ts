/**
 * A streaming linear resampler for mono PCM16 (the OpenAI Realtime API speaks only 24 kHz PCM, the browser
 * transport 16 kHz). Kept local to the Realtime adapter until the shared audio utilities
 * (server/voice/audio) land; then this file gives way to theirs.
 *
 * Stateful: the last input sample and the fractional read position carry over between chunks, so a stream
 * cut into 20 ms frames resamples like one continuous signal (no clicks at frame edges). Linear
 * interpolation, no low-pass: fine for speech between 16 and 24 kHz, where the band that matters (up to
 * 8 kHz) survives both ways.
 */
export class LinearResampler {
  private prev: number | null = null;
  /** position of the next output sample, in input samples, relative to the current chunk (-1 = prev) */
  private pos = 0;
  private readonly step: number;

  constructor(
    readonly fromRate: number,
    readonly toRate: number,
  ) {
    this.step = fromRate / toRate;
  }

  /** Resamples one chunk of samples; the output follows on from the previous chunk's. */
  process(input: Int16Array): Int16Array {
    if (input.length === 0) return input;
    if (this.fromRate === this.toRate) return input;
    const n = input.length;
    const out = new Int16Array(Math.ceil((n + 1) / this.step) + 1);
    let count = 0;
    let pos = this.prev === null ? Math.max(0, this.pos) : this.pos;
    while (Math.floor(pos) + 1 < n) {
      const i = Math.floor(pos);
      const frac = pos - i;
      const a = i < 0 ? (this.prev as number) : (input[i] as number);
      const b = input[i + 1] as number;
      out[count++] = Math.round(a + (b - a) * frac);
      pos += this.step;
    }
    this.pos = pos - n;
    this.prev = input[n - 1] as number;
    return out.subarray(0, count);
  }
}

/** PCM16 little-endian bytes -> samples (copies when the bytes are not 2-aligned). */
export function bytesToSamples(bytes: Uint8Array): Int16Array {
  const even = bytes.byteLength & ~1;
  if (bytes.byteOffset % 2 === 0) return new Int16Array(bytes.buffer, bytes.byteOffset, even / 2);
  return new Int16Array(bytes.slice(0, even).buffer);
}

/** Samples -> PCM16 little-endian bytes (a view, no copy). */
export const samplesToBytes = (samples: Int16Array) => new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
