// Decodes an uploaded photo and encodes its pixels again, in a worker thread (server/platform/uploads/photos.ts
// starts one per photo with memory and time limits). Plain JavaScript so the same file runs under tsx,
// vitest and the esbuild bundle (scripts/build.mjs copies it beside dist/server/main.js).
//
// In:  { bytes: Uint8Array, type: 'image/jpeg' | 'image/png' | 'image/webp', maxPixels, maxSide }
// Out: { ok: true, bytes: Uint8Array, width, height } | { ok: false, reason: 'unreadable' | 'too-many-pixels' | 'too-complex' }
//
// The dimensions are read from the header first and checked against maxPixels / maxSide before any pixel
// buffer is allocated; the decoders get their own limits on top (jpeg-js: resolution and memory; pngjs:
// the inflated size of a non-interlaced image; an interlaced PNG is inflated here with a bound first).
// Only the decoded pixels reach the encoder: metadata, comments, extra chunks and trailing bytes are gone.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import zlib from 'node:zlib';
import jpeg from 'jpeg-js';
import pngjs from 'pngjs';

const require = createRequire(import.meta.url);
const JPEG_QUALITY = 90;
const WEBP_QUALITY = 90;

class Refusal extends Error {
  constructor(reason) {
    super(reason);
    this.reason = reason;
  }
}

const u32be = (b, at) => b.readUInt32BE(at);
const u16be = (b, at) => b.readUInt16BE(at);

/** { width, height } from the file's header, without decoding anything. */
function dimensions(b, type) {
  if (type === 'image/png') {
    // signature (8), IHDR length (4) + 'IHDR' (4), then width, height
    if (b.length < 33 || b.toString('latin1', 12, 16) !== 'IHDR') throw new Refusal('unreadable');
    return { width: u32be(b, 16), height: u32be(b, 20), interlaced: b[28] === 1 };
  }
  if (type === 'image/jpeg') {
    // walk the markers to the first start of frame (SOF0..SOF15 but DHT C4, JPG C8, DAC CC)
    let at = 2;
    while (at + 9 < b.length) {
      if (b[at] !== 0xff) throw new Refusal('unreadable');
      const marker = b[at + 1];
      if (marker === 0xff) {
        at++;
        continue;
      }
      const length = u16be(b, at + 2);
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
        return { width: u16be(b, at + 7), height: u16be(b, at + 5) };
      if (marker === 0xd9 || marker === 0xda || length < 2) break;
      at += 2 + length;
    }
    throw new Refusal('unreadable');
  }
  // WEBP: 'RIFF' size 'WEBP', then the first chunk
  if (b.length < 30) throw new Refusal('unreadable');
  const chunk = b.toString('latin1', 12, 16);
  // a key frame's start code / the lossless signature, or this is no image
  if (chunk === 'VP8 ' && b[23] === 0x9d && b[24] === 0x01 && b[25] === 0x2a)
    return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
  if (chunk === 'VP8L' && b[20] === 0x2f) {
    const bits = b.readUInt32LE(21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === 'VP8X') {
    // animation is not a photo
    if (b[20] & 0x02) throw new Refusal('unreadable');
    return { width: b.readUIntLE(24, 3) + 1, height: b.readUIntLE(27, 3) + 1 };
  }
  throw new Refusal('unreadable');
}

/** The PNG up to the end of its IEND chunk (bytes after it are no part of the image). */
function pngWithoutTrailer(b) {
  for (let at = 8; at + 12 <= b.length; ) {
    const length = u32be(b, at);
    if (b.toString('latin1', at + 4, at + 8) === 'IEND') return b.subarray(0, at + 12 + length);
    at += 12 + length;
  }
  return b;
}

/** The zlib stream of a PNG's IDAT chunks, inflated with a bound (interlaced images only; pngjs bounds the rest). */
function checkInterlacedPng(b, width, height) {
  const parts = [];
  for (let at = 8; at + 8 <= b.length; ) {
    const length = u32be(b, at);
    const name = b.toString('latin1', at + 4, at + 8);
    if (name === 'IDAT') parts.push(b.subarray(at + 8, at + 8 + length));
    if (name === 'IEND') break;
    at += 12 + length;
  }
  // 8 bytes a pixel at most (16-bit RGBA), a filter byte per row of each of the 7 passes
  const bound = width * height * 8 + 7 * height + 1024;
  try {
    zlib.inflateSync(Buffer.concat(parts), { maxOutputLength: bound });
  } catch (e) {
    throw new Refusal(e instanceof RangeError ? 'too-complex' : 'unreadable');
  }
}

let webp;
/** @jsquash/webp with its WebAssembly handed over (it would fetch it, as in a browser, otherwise). */
async function webpCodec() {
  if (webp) return webp;
  const dir = path.dirname(require.resolve('@jsquash/webp/package.json'));
  const [dec, enc, { simd }] = await Promise.all([
    import('@jsquash/webp/decode.js'),
    import('@jsquash/webp/encode.js'),
    import('wasm-feature-detect'),
  ]);
  const wasm = (file) => new WebAssembly.Module(fs.readFileSync(path.join(dir, 'codec', file)));
  await dec.init(wasm('dec/webp_dec.wasm'));
  // encode.js picks its SIMD build when the runtime has SIMD: hand it the matching binary
  await enc.init(wasm((await simd()) ? 'enc/webp_enc_simd.wasm' : 'enc/webp_enc.wasm'));
  webp = { decode: dec.default, encode: enc.default };
  return webp;
}

async function reencode({ bytes, type, maxPixels, maxSide }) {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { width, height, interlaced } = dimensions(b, type);
  if (!(width >= 1 && height >= 1)) throw new Refusal('unreadable');
  if (width > maxSide || height > maxSide || width * height > maxPixels) throw new Refusal('too-many-pixels');

  let rgba;
  try {
    if (type === 'image/jpeg') {
      const image = jpeg.decode(b, {
        useTArray: true,
        formatAsRGBA: true,
        maxResolutionInMP: maxPixels / 1e6,
        maxMemoryUsageInMB: 256,
      });
      rgba = image.data;
    } else if (type === 'image/png') {
      if (interlaced) checkInterlacedPng(b, width, height);
      rgba = pngjs.PNG.sync.read(pngWithoutTrailer(b)).data;
    } else {
      rgba = (await (await webpCodec()).decode(b)).data;
    }
  } catch (e) {
    if (e instanceof Refusal) throw e;
    throw new Refusal(/limit exceeded/.test(String(e?.message)) ? 'too-complex' : 'unreadable');
  }
  if (rgba.length !== width * height * 4) throw new Refusal('unreadable');

  if (type === 'image/jpeg') return jpeg.encode({ data: rgba, width, height }, JPEG_QUALITY).data;
  if (type === 'image/png') {
    const png = new pngjs.PNG({ width, height });
    png.data = Buffer.from(rgba.buffer, rgba.byteOffset, rgba.byteLength);
    return pngjs.PNG.sync.write(png, { colorType: 6 });
  }
  const data = new Uint8ClampedArray(rgba.buffer, rgba.byteOffset, rgba.byteLength);
  return new Uint8Array(await (await webpCodec()).encode({ data, width, height }, { quality: WEBP_QUALITY }));
}

parentPort?.on('message', async (job) => {
  try {
    const out = await reencode(job);
    const copy = new Uint8Array(out);
    parentPort.postMessage({ ok: true, bytes: copy }, [copy.buffer]);
  } catch (e) {
    parentPort.postMessage({ ok: false, reason: e instanceof Refusal ? e.reason : 'unreadable' });
  }
});
