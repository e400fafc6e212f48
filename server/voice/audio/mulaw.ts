/**
 * G.711 mu-law, exactly as the ITU-T reference (G.191 Software Tools Library, g711.c: ulaw_compress and
 * ulaw_expand). Both directions are table lookups: 256 decoded values, and 16384 encoded bytes indexed by
 * the top 14 bits of the sample (the reference drops the two low bits before it compresses, and takes the
 * one's complement of a negative sample, so -1 encodes as negative zero, 0x7F).
 */

const BIAS = 33;
const CLIP = 0x1fff;

/** ITU G.191 ulaw_compress of one 16-bit sample. */
function compress(sample: number): number {
  let magnitude = (sample < 0 ? ~sample : sample) >> 2;
  magnitude += BIAS;
  if (magnitude > CLIP) magnitude = CLIP;
  let segment = 1;
  for (let i = magnitude >> 6; i !== 0; i >>= 1) segment++;
  const high = 8 - segment;
  const low = 0x0f - ((magnitude >> segment) & 0x0f);
  const code = (high << 4) | low;
  return sample >= 0 ? code | 0x80 : code;
}

/** ITU G.191 ulaw_expand of one byte. */
function expand(code: number): number {
  const sign = code < 0x80 ? -1 : 1;
  const inverted = ~code;
  const exponent = (inverted >> 4) & 0x07;
  const mantissa = inverted & 0x0f;
  const step = 4 << (exponent + 1);
  return sign * ((0x80 << exponent) + step * mantissa + step / 2 - 4 * BIAS);
}

/** byte -> 16-bit sample */
export const MULAW_DECODE_TABLE: Int16Array = Int16Array.from({ length: 256 }, (_, code) => expand(code));

/** (sample >> 2) + 8192 -> byte; the reference only reads the top 14 bits. */
const ENCODE_TABLE = Uint8Array.from({ length: 16384 }, (_, index) => compress((index - 8192) * 4));

/** Encodes 16-bit samples to mu-law bytes (into `out` when given, which must be at least as long). */
export function mulawEncode(samples: Int16Array, out: Uint8Array = new Uint8Array(samples.length)): Uint8Array {
  for (let i = 0; i < samples.length; i++) out[i] = ENCODE_TABLE[(samples[i]! >> 2) + 8192]!;
  return out;
}

/** Decodes mu-law bytes to 16-bit samples (into `out` when given, which must be at least as long). */
export function mulawDecode(bytes: Uint8Array, out: Int16Array = new Int16Array(bytes.length)): Int16Array {
  for (let i = 0; i < bytes.length; i++) out[i] = MULAW_DECODE_TABLE[bytes[i]!]!;
  return out;
}
