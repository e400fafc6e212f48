/**
 * G.711 mu-law and A-law for the fakes (ITU-T G.711; the classic Sun reference algorithm), and a
 * deterministic tone: what a fake provider "speaks".
 */

export function mulawToPcm(byte: number): number {
  const u = ~byte & 0xff;
  const t = (((u & 0x0f) << 3) + 0x84) << ((u & 0x70) >> 4);
  return u & 0x80 ? 0x84 - t : t - 0x84;
}

export function pcmToMulaw(sample: number): number {
  const BIAS = 0x84;
  let s = Math.max(-32635, Math.min(32635, Math.round(sample)));
  const sign = s < 0 ? 0x80 : 0;
  if (s < 0) s = -s;
  s += BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (s & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (s >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

export function alawToPcm(byte: number): number {
  const a = byte ^ 0x55;
  let t = (a & 0x0f) << 4;
  const seg = (a & 0x70) >> 4;
  if (seg === 0) t += 8;
  else if (seg === 1) t += 0x108;
  else t = (t + 0x108) << (seg - 1);
  return a & 0x80 ? t : -t;
}

export function pcmToAlaw(sample: number): number {
  let s = Math.max(-32768, Math.min(32767, Math.round(sample))) >> 3;
  let mask: number;
  if (s >= 0) mask = 0xd5;
  else {
    mask = 0x55;
    s = -s - 1;
  }
  const ends = [0x1f, 0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff];
  let seg = ends.findIndex((end) => s <= end);
  if (seg === -1) seg = 8;
  if (seg >= 8) return 0x7f ^ mask;
  const aval = (seg << 4) | (seg < 2 ? (s >> 1) & 0x0f : (s >> seg) & 0x0f);
  return aval ^ mask;
}

export type FakeAudioFormat = 'audio/pcm' | 'audio/pcmu' | 'audio/pcma';

export const rateOf = (format: FakeAudioFormat) => (format === 'audio/pcm' ? 24000 : 8000);

/** Decodes bytes of `format` into samples. */
export function decode(format: FakeAudioFormat, bytes: Uint8Array): Int16Array {
  if (format === 'audio/pcm') {
    const out = new Int16Array(bytes.length >> 1);
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let i = 0; i < out.length; i++) out[i] = view.getInt16(i * 2, true);
    return out;
  }
  const fn = format === 'audio/pcmu' ? mulawToPcm : alawToPcm;
  return Int16Array.from(bytes, fn);
}

/** Encodes samples as `format`. */
export function encode(format: FakeAudioFormat, samples: Int16Array): Uint8Array {
  if (format === 'audio/pcm') {
    const out = new Uint8Array(samples.length * 2);
    const view = new DataView(out.buffer);
    for (let i = 0; i < samples.length; i++) view.setInt16(i * 2, samples[i] as number, true);
    return out;
  }
  const fn = format === 'audio/pcmu' ? pcmToMulaw : pcmToAlaw;
  return Uint8Array.from(samples, fn);
}

/** A sine tone: `ms` of `hz` at `rate`, amplitude `amp` (0-1), starting at sample `offset` (phase continues). */
export function tone(rate: number, ms: number, hz = 440, amp = 0.25, offset = 0): Int16Array {
  const n = Math.round((rate * ms) / 1000);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.round(Math.sin((2 * Math.PI * hz * (offset + i)) / rate) * amp * 32767);
  return out;
}

/** RMS of samples, 0-1. */
export function rms(samples: Int16Array): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / samples.length) / 32768;
}
