/**
 * PCM helpers of the web call: 16 kHz mono PCM16 little-endian, 20 ms frames, both ways.
 * Plain functions, no browser API: the capture worklet (public/pcm-capture.worklet.js) does the same
 * conversion on the audio thread.
 */
export const CALL_SAMPLE_RATE = 16_000;
export const FRAME_SAMPLES = 320;

/** Float samples (-1..1) as PCM16 little-endian bytes. */
export function floatToPcm16(samples: Float32Array): ArrayBuffer {
  const out = new DataView(new ArrayBuffer(samples.length * 2));
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i] ?? 0));
    out.setInt16(i * 2, s < 0 ? Math.round(s * 0x8000) : Math.round(s * 0x7fff), true);
  }
  return out.buffer;
}

/** PCM16 little-endian bytes as float samples (an odd last byte is ignored). */
export function pcm16ToFloat(bytes: ArrayBuffer): Float32Array<ArrayBuffer> {
  const view = new DataView(bytes);
  const out = new Float32Array(Math.floor(bytes.byteLength / 2));
  for (let i = 0; i < out.length; i++) out[i] = view.getInt16(i * 2, true) / 0x8000;
  return out;
}

/** Root mean square of float samples (0..1). */
export function rms(samples: Float32Array): number {
  if (!samples.length) return 0;
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / samples.length);
}

/** A level for a meter (0..1) from an RMS: -60 dBFS and below is 0, 0 dBFS is 1. */
export function meterLevel(rmsValue: number): number {
  if (rmsValue <= 0) return 0;
  const db = 20 * Math.log10(rmsValue);
  return Math.max(0, Math.min(1, (db + 60) / 60));
}

/**
 * Resamples a stream of float samples from `fromRate` to `toRate` by linear interpolation, keeping its
 * phase across calls (the worklet's algorithm, here so it can be tested). Output sample n is input position
 * n * from/to - 1: it interpolates from the sample before, so it needs no look-ahead (one input sample of
 * delay).
 */
export class LinearResampler {
  private pos = 0;
  private last = 0;
  private readonly step: number;
  constructor(fromRate: number, toRate: number) {
    this.step = fromRate / toRate;
  }
  push(input: Float32Array): Float32Array {
    const out: number[] = [];
    // positions are relative to the previous block's last sample (index -1)
    while (this.pos < input.length) {
      const i = Math.floor(this.pos);
      const frac = this.pos - i;
      const a = i === 0 ? this.last : (input[i - 1] ?? 0);
      const b = input[i] ?? 0;
      out.push(a + (b - a) * frac);
      this.pos += this.step;
    }
    this.pos -= input.length;
    if (input.length) this.last = input[input.length - 1] ?? 0;
    return Float32Array.from(out);
  }
}
