import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rmsLevel } from '../../../server/voice/audio/level.js';
import { MULAW_DECODE_TABLE, mulawDecode, mulawEncode } from '../../../server/voice/audio/mulaw.js';
import { pcm16Bytes, pcm16Samples } from '../../../server/voice/audio/pcm16.js';
import { LinearResampler, resample } from '../../../server/voice/audio/resample.js';
import { RECORDING_AHEAD_MS, StereoWavRecorder, wavHeader } from '../../../server/voice/audio/wav.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const range = (from: number, to: number) => Int16Array.from({ length: to - from }, (_, i) => from + i);
const sine = (hz: number, rate: number, count: number, amplitude: number) =>
  Int16Array.from({ length: count }, (_, i) => Math.round(amplitude * 32767 * Math.sin((2 * Math.PI * hz * i) / rate)));

describe('G.711 mu-law', () => {
  // Reference hashes: Python's audioop (CPython's own G.711 code) for the decode table and for every
  // non-negative sample; a transcription of ITU-T G.191 ulaw_compress for the whole 16-bit range (audioop
  // negates negative samples where the ITU reference takes the one's complement, so they differ below zero).
  it('decodes every byte like the reference', () => {
    expect(sha256(pcm16Bytes(MULAW_DECODE_TABLE))).toBe('3dab54339e520bb2c924826e3b72a917a2b612e9fd12fc867500f1d983a75827');
    expect([0x00, 0x01, 0x0f, 0x10, 0x70, 0x7f, 0x80, 0xfe, 0xff].map((b) => MULAW_DECODE_TABLE[b])).toEqual([
      -32124, -31100, -16764, -15996, -120, 0, 32124, 8, 0,
    ]);
  });

  it('encodes every non-negative sample like audioop and every sample like ITU G.191', () => {
    expect(sha256(mulawEncode(range(0, 32768)))).toBe('912062bf9c931c7ebc1dc1fd1d74faf0cfefcd47e8408a3ed4d07aa59f0f1c20');
    expect(sha256(mulawEncode(range(-32768, 32768)))).toBe('90c29de505fb68e766118303bd552a16005dcf810873698bee1d8f3b247ce28c');
    const samples = Int16Array.from([0, 3, 4, 100, 1000, 8000, 12345, 32767, -1, -4, -5, -100, -1000, -8000, -32768]);
    expect([...mulawEncode(samples)]).toEqual([
      0xff, 0xff, 0xfe, 0xf2, 0xce, 0xa0, 0x97, 0x80, 0x7f, 0x7f, 0x7e, 0x73, 0x4e, 0x20, 0x00,
    ]);
  });

  it('round-trips every code except negative zero, which comes back as zero', () => {
    const codes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const back = mulawEncode(mulawDecode(codes));
    const expected = Uint8Array.from(codes, (code) => (code === 0x7f ? 0xff : code));
    expect(back).toEqual(expected);
  });
});

describe('PCM16', () => {
  it('views aligned bytes without a copy and copies odd-aligned bytes', () => {
    const buffer = new Uint8Array([0x00, 0x34, 0x12, 0xff, 0xff, 0x00, 0x80]);
    const aligned = pcm16Samples(buffer.subarray(1, 5));
    expect([...aligned]).toEqual([0x1234, -1]);
    const view = pcm16Samples(buffer.subarray(0, 6));
    expect(view.buffer).toBe(buffer.buffer);
    buffer[0] = 0x01;
    expect(view[0]).toBe(0x3401);
    expect([...pcm16Samples(buffer.subarray(5, 7))]).toEqual([-32768]);
    expect([...pcm16Bytes(Int16Array.from([0x1234, -2]))]).toEqual([0x34, 0x12, 0xfe, 0xff]);
  });
});

describe('level', () => {
  it('is the RMS over full scale', () => {
    expect(rmsLevel(new Int16Array(160))).toBe(0);
    expect(rmsLevel(Int16Array.from({ length: 160 }, (_, i) => (i % 2 ? 16384 : -16384)))).toBe(0.5);
    expect(rmsLevel(sine(400, 16000, 16000, 0.5))).toBeCloseTo(0.5 / Math.SQRT2, 3);
    expect(rmsLevel(new Int16Array(10).fill(-32768))).toBe(1);
  });
});

describe('linear resampler', () => {
  it('keeps the length ratio and the energy of speech-band audio', () => {
    const input = sine(440, 16000, 16000, 0.6);
    const up = resample(input, 16000, 24000);
    expect(up.length).toBe(23999);
    expect(rmsLevel(up)).toBeCloseTo(rmsLevel(input), 2);
    const down = resample(up, 24000, 16000);
    expect(down.length).toBe(15999);
    expect(rmsLevel(down)).toBeCloseTo(rmsLevel(input), 2);
    const narrow = sine(300, 8000, 8000, 0.5);
    const wide = resample(narrow, 8000, 16000);
    expect(wide.length).toBe(15999);
    for (let i = 0; i < narrow.length; i++) expect(wide[2 * i]).toBe(narrow[i]);
    expect(wide[1]).toBe(Math.round((narrow[0]! + narrow[1]!) / 2));
  });

  it('resamples a stream frame by frame exactly as it resamples the whole', () => {
    const input = sine(523, 16000, 16000, 0.7);
    for (const [from, to, frame] of [
      [16000, 24000, 320],
      [24000, 16000, 480],
      [16000, 8000, 320],
      [8000, 16000, 160],
      [16000, 24000, 7],
    ] as const) {
      const source = from === 16000 ? input : resample(input, 16000, from);
      const whole = resample(source, from, to);
      const streamed = new LinearResampler(from, to);
      const parts: number[] = [];
      for (let i = 0; i < source.length; i += frame) parts.push(...streamed.push(source.subarray(i, i + frame)));
      expect(Int16Array.from(parts)).toEqual(whole);
    }
  });
});

describe('WAV', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });
  const tempFile = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'parley-wav-'));
    dirs.push(dir);
    return join(dir, 'call.wav');
  };
  const read = async (path: string) => {
    const bytes = new Uint8Array(await readFile(path));
    const view = new DataView(bytes.buffer);
    const samples = pcm16Samples(bytes.subarray(44));
    return {
      header: bytes.subarray(0, 44),
      riffSize: view.getUint32(4, true),
      dataSize: view.getUint32(40, true),
      left: samples.filter((_, i) => i % 2 === 0),
      right: samples.filter((_, i) => i % 2 === 1),
    };
  };

  it('writes the canonical 16-bit PCM header', () => {
    expect(Buffer.from(wavHeader(64000, 16000, 2)).toString('hex')).toBe(
      [
        '52494646', // RIFF
        '24fa0000', // 36 + 64000
        '57415645', // WAVE
        '666d7420', // fmt
        '10000000', // 16
        '0100', // PCM
        '0200', // stereo
        '803e0000', // 16000 Hz
        '00fa0000', // 64000 bytes/s
        '0400', // block align
        '1000', // 16 bits
        '64617461', // data
        '00fa0000', // 64000
      ].join(''),
    );
  });

  it('records the caller left and the agent right on one clock, silence where a side says nothing', async () => {
    const path = await tempFile();
    const recorder = await StereoWavRecorder.open(path, { sampleRate: 8000, startedAt: 1000 });
    const frame = (value: number) => new Int16Array(160).fill(value);
    recorder.append('caller', frame(100), 1000);
    recorder.append('caller', frame(200), 1023); // 3 ms late: jitter, laid end to end
    recorder.append('caller', frame(300), 1300); // after a 260 ms gap: silence in between
    recorder.append('agent', frame(-5), 1100);
    recorder.append('agent', frame(-6), 1100); // sent early: follows the previous frame
    const summary = await recorder.close();
    const wav = await read(path);
    expect(wav.header).toEqual(wavHeader(wav.dataSize, 8000, 2));
    expect(wav.dataSize).toBe((2400 + 160) * 4);
    expect(wav.riffSize).toBe(36 + wav.dataSize);
    expect(summary).toEqual({ durationMs: 320, bytes: 44 + wav.dataSize, truncated: false, droppedMs: 0, unwrittenBytes: 0 });
    expect([...wav.left.subarray(0, 160)].every((s) => s === 100)).toBe(true);
    expect([...wav.left.subarray(160, 320)].every((s) => s === 200)).toBe(true);
    expect([...wav.left.subarray(320, 2400)].every((s) => s === 0)).toBe(true);
    expect([...wav.left.subarray(2400, 2560)].every((s) => s === 300)).toBe(true);
    expect([...wav.right.subarray(0, 800)].every((s) => s === 0)).toBe(true);
    expect([...wav.right.subarray(800, 960)].every((s) => s === -5)).toBe(true);
    expect([...wav.right.subarray(960, 1120)].every((s) => s === -6)).toBe(true);
    expect([...wav.right.subarray(1120)].every((s) => s === 0)).toBe(true);
  });

  it('keeps every sample in place across many flushes of a long call', async () => {
    const path = await tempFile();
    const rate = 16000;
    const recorder = await StereoWavRecorder.open(path, { sampleRate: rate, startedAt: 0, windowMs: 200 });
    // 6 s of caller audio every 20 ms; agent audio from 2 s to 4 s, each sample telling where it belongs
    const tag = (index: number) => (index % 30000) + 1;
    for (let ms = 0; ms < 6000; ms += 20) {
      const start = (ms * rate) / 1000;
      recorder.append(
        'caller',
        Int16Array.from({ length: 320 }, (_, i) => tag(start + i)),
        ms + (ms % 60 === 0 ? 4 : 0),
      );
      if (ms >= 2000 && ms < 4000)
        recorder.append(
          'agent',
          Int16Array.from({ length: 320 }, (_, i) => -tag(start + i)),
          ms,
        );
    }
    await recorder.close();
    const wav = await read(path);
    expect(wav.left.length).toBe(6 * rate);
    const misplaced = { left: 0, right: 0 };
    for (let i = 0; i < wav.left.length; i++) {
      if (wav.left[i] !== tag(i)) misplaced.left++;
      const agent = i >= 2 * rate && i < 4 * rate ? -tag(i) : 0;
      if (wav.right[i] !== agent) misplaced.right++;
    }
    expect(misplaced).toEqual({ left: 0, right: 0 });
  });

  it('never grows faster than real time: a side sent faster than the clock is cut past 1.5 s ahead, and counted', async () => {
    const path = await tempFile();
    const rate = 16000;
    const recorder = await StereoWavRecorder.open(path, { sampleRate: rate, startedAt: 0 });
    // 2 s of a call in which the caller's side sends 320 ms of audio every 10 ms (32 times real time)
    for (let ms = 0; ms < 2000; ms += 10) recorder.append('caller', new Int16Array(5120).fill(9), ms);
    recorder.append('agent', new Int16Array(320).fill(-1), 2000);
    const summary = await recorder.close();
    const wav = await read(path);
    // (the last frame's 1,990 ms + the 1,500 ms the clock allows ahead) × 2 channels × 2 bytes × 16 kHz
    expect(RECORDING_AHEAD_MS).toBe(1500);
    expect(wav.dataSize).toBe(3490 * 16 * 4);
    expect(summary.bytes).toBe(44 + 3490 * 16 * 4);
    expect(summary.droppedMs).toBe(200 * 320 - 3490);
    expect([...wav.left].every((s) => s === 9)).toBe(true);
  });

  it('keeps what a line heard before the recording opened (its first frames), laid from the start', async () => {
    const path = await tempFile();
    const recorder = await StereoWavRecorder.open(path, { sampleRate: 8000, startedAt: 1000 });
    // 1 s of 20 ms frames that came from 0 to 1000, replayed when the call started
    for (let at = 0; at < 1000; at += 20) recorder.append('caller', new Int16Array(160).fill(3), at);
    recorder.append('caller', new Int16Array(160).fill(4), 1020);
    const summary = await recorder.close();
    const wav = await read(path);
    expect(summary.droppedMs).toBe(0);
    expect(wav.left.length).toBe(51 * 160);
    expect([...wav.left.subarray(0, 8000)].every((s) => s === 3)).toBe(true);
    expect([...wav.left.subarray(8000)].every((s) => s === 4)).toBe(true);
  });

  it('holds at most maxQueuedBytes of writes: more is dropped and counted, and the file is still as long as its header says', async () => {
    const path = await tempFile();
    const rate = 8000;
    const recorder = await StereoWavRecorder.open(path, { sampleRate: rate, startedAt: 0, windowMs: 100, maxQueuedBytes: 8000 });
    // 10 s of both sides in one go: the flushes (3,200 bytes each) come faster than the disk takes them
    for (let ms = 0; ms < 10_000; ms += 20) {
      recorder.append('caller', new Int16Array(160).fill(5), ms);
      recorder.append('agent', new Int16Array(160).fill(-5), ms);
    }
    const summary = await recorder.close();
    const bytes = new Uint8Array(await readFile(path));
    const wav = await read(path);
    expect(summary.unwrittenBytes).toBeGreaterThan(0);
    expect(wav.dataSize).toBe(10 * rate * 4);
    expect(bytes.byteLength).toBe(44 + wav.dataSize);
    expect(wav.header).toEqual(wavHeader(wav.dataSize, rate, 2));
    // what was written is in place; what was dropped is silence
    const written = wav.left.filter((s) => s === 5).length;
    expect(written * 4).toBe(wav.dataSize - summary.unwrittenBytes);
    expect(wav.left.every((s) => s === 5 || s === 0)).toBe(true);
  });
});
