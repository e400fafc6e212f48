/**
 * Linear-interpolation resampling of 16-bit mono audio (16 kHz <-> 24 kHz for OpenAI Realtime in
 * server/voice/providers/openai/realtime.ts, 8 kHz <-> 16 kHz for recordings). `LinearResampler` keeps its place between frames, so a call's audio resampled
 * frame by frame is one continuous signal: no clicks at frame edges and no drift (positions are kept as
 * exact fractions of the output rate). It lags the input by less than one sample. No anti-alias filter:
 * speech above the lower rate's Nyquist frequency folds back, which linear interpolation accepts.
 */
export class LinearResampler {
  /** position of the next output sample in the current input chunk, in 1/toRate input samples (may be -toRate..0) */
  private position = 0;
  /** the last input sample of the previous chunk (input index -1 of the next) */
  private previous = 0;

  constructor(
    readonly fromRate: number,
    readonly toRate: number,
  ) {
    if (!Number.isInteger(fromRate) || !Number.isInteger(toRate) || fromRate <= 0 || toRate <= 0) {
      throw new RangeError('sample rates must be positive integers');
    }
  }

  /** Resamples the next chunk of the stream. */
  push(input: Int16Array): Int16Array {
    const { fromRate, toRate } = this;
    if (fromRate === toRate) return input.slice();
    const n = input.length;
    if (n === 0) return new Int16Array(0);
    const last = (n - 1) * toRate;
    const count = this.position > last ? 0 : Math.floor((last - this.position) / fromRate) + 1;
    const out = new Int16Array(count);
    let position = this.position;
    for (let k = 0; k < count; k++, position += fromRate) {
      const index = Math.floor(position / toRate);
      const rest = position - index * toRate;
      const a = index < 0 ? this.previous : input[index]!;
      out[k] = rest === 0 ? a : Math.round(a + ((input[index + 1]! - a) * rest) / toRate);
    }
    this.position = position - n * toRate;
    this.previous = input[n - 1]!;
    return out;
  }
}

/** Resamples a whole buffer (a new resampler each time; use `LinearResampler` for a stream). */
export function resample(input: Int16Array, fromRate: number, toRate: number): Int16Array {
  return new LinearResampler(fromRate, toRate).push(input);
}
