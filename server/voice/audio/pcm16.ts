/**
 * PCM16 (signed 16-bit little-endian) views and conversions between the two call formats. On a
 * little-endian machine (every platform Node ships for) a PCM16 byte buffer and an Int16Array share memory:
 * `pcm16Samples` returns a view without copying when the bytes are 2-byte aligned, and copies otherwise.
 */
import { endianness } from 'node:os';
import type { AudioEncoding, AudioFormat } from '../providers/types.js';
import { mulawDecode, mulawEncode } from './mulaw.js';

const LITTLE_ENDIAN = endianness() === 'LE';

/** The samples of PCM16 little-endian bytes (an odd trailing byte is ignored). A view when it can be. */
export function pcm16Samples(bytes: Uint8Array): Int16Array {
  const count = bytes.byteLength >> 1;
  if (LITTLE_ENDIAN && bytes.byteOffset % 2 === 0) return new Int16Array(bytes.buffer, bytes.byteOffset, count);
  const out = new Int16Array(count);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < count; i++) out[i] = view.getInt16(i * 2, true);
  return out;
}

/** The PCM16 little-endian bytes of samples. A view when it can be. */
export function pcm16Bytes(samples: Int16Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
  const out = new Uint8Array(samples.length * 2);
  const view = new DataView(out.buffer);
  for (let i = 0; i < samples.length; i++) view.setInt16(i * 2, samples[i]!, true);
  return out;
}

/** Samples of one frame in `format` (mu-law is decoded; PCM16 is viewed). */
export function toSamples(frame: Uint8Array, format: AudioFormat): Int16Array {
  return format.encoding === 'mulaw' ? mulawDecode(frame) : pcm16Samples(frame);
}

/** Bytes of samples in `encoding` (mu-law is encoded; PCM16 is viewed). */
export function fromSamples(samples: Int16Array, encoding: AudioEncoding): Uint8Array {
  return encoding === 'mulaw' ? mulawEncode(samples) : pcm16Bytes(samples);
}

/** Audio in `encoding` multiplied by `gain` (clipped to 16 bits); a new buffer. */
export function applyGain(frame: Uint8Array, encoding: AudioEncoding, gain: number): Uint8Array {
  const samples = encoding === 'mulaw' ? mulawDecode(frame) : pcm16Samples(frame).slice();
  for (let i = 0; i < samples.length; i++) samples[i] = Math.max(-32768, Math.min(32767, Math.round(samples[i]! * gain)));
  return fromSamples(samples, encoding);
}
