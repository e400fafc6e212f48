import { describe, expect, it } from 'vitest';
import {
  DTMF_GAP_MS,
  DTMF_KEYS,
  DTMF_TONE_MS,
  DtmfDetector,
  detectKey,
  detectKeys,
  dtmfAudio,
  dtmfSamples,
} from '../../../server/voice/audio/dtmf.js';
import { mulawEncode } from '../../../server/voice/audio/mulaw.js';
import { pcm16Bytes } from '../../../server/voice/audio/pcm16.js';
import { BROWSER_AUDIO, PHONE_AUDIO } from '../../../server/voice/providers/types.js';

const FORMATS = [
  ['mu-law 8 kHz', PHONE_AUDIO],
  ['PCM16 16 kHz', BROWSER_AUDIO],
] as const;

/** Two sines at `low` and `high` Hz (a tone pair that is not, or is, a key). */
function pair(low: number, high: number, rate: number, ms: number) {
  const n = (rate * ms) / 1000;
  return Int16Array.from({ length: n }, (_, i) =>
    Math.round(0.25 * 32767 * (Math.sin((2 * Math.PI * low * i) / rate) + Math.sin((2 * Math.PI * high * i) / rate))),
  );
}

describe('DTMF tones (Q.23) and the Goertzel detector', () => {
  for (const [name, format] of FORMATS) {
    it(`each of the 16 keys, generated in ${name}, is detected as itself`, () => {
      const keys = Object.keys(DTMF_KEYS);
      expect(keys).toHaveLength(16);
      for (const key of keys) {
        expect(detectKeys(dtmfAudio(key, format), format).map((k) => k.key)).toEqual([key]);
      }
    });

    it(`a string of keys in ${name}: every key once, in order, repeated keys too, 200 ms apart`, () => {
      const digits = '1123*#0D';
      const heard = detectKeys(dtmfAudio(digits, format), format);
      expect(heard.map((k) => k.key).join('')).toBe(digits);
      expect(heard.map((k) => k.atMs)).toEqual(digits.split('').map((_, i) => i * (DTMF_TONE_MS + DTMF_GAP_MS)));
    });
  }

  it('each key is 100 ms of tone then 100 ms of silence, at both rates', () => {
    for (const rate of [8000, 16000]) {
      const s = dtmfSamples('58', rate);
      const perKey = ((DTMF_TONE_MS + DTMF_GAP_MS) * rate) / 1000;
      const tone = (DTMF_TONE_MS * rate) / 1000;
      expect(s.length).toBe(2 * perKey);
      for (const start of [0, perKey]) {
        const toneRms = Math.sqrt(s.subarray(start, start + tone).reduce((a, v) => a + v * v, 0) / tone);
        expect(toneRms).toBeGreaterThan(5000);
        expect(s.subarray(start + tone, start + perKey).every((v) => v === 0)).toBe(true);
      }
    }
    // mu-law bytes: 8 per ms; PCM16 at 16 kHz: 32 per ms
    expect(dtmfAudio('1', PHONE_AUDIO).byteLength).toBe(8 * 200);
    expect(dtmfAudio('1', BROWSER_AUDIO).byteLength).toBe(32 * 200);
  });

  it('tone pairs at other frequencies, one tone alone, speech-like tones and silence are not keys', () => {
    const rate = 8000;
    // 20 % off both of key 5's frequencies
    expect(detectKey(pair(770 * 1.2, 1336 * 1.2, rate, 20), rate)).toBeNull();
    // between rows and columns
    expect(detectKey(pair(1000, 1100, rate, 20), rate)).toBeNull();
    // only the row tone of key 1
    expect(detectKey(pair(697, 697, rate, 20), rate)).toBeNull();
    // the fakes' voice (440 Hz) and caller (300 Hz)
    expect(detectKey(pair(440, 300, rate, 20), rate)).toBeNull();
    expect(detectKey(new Int16Array(160), rate)).toBeNull();
    // and the real pair is: the test can tell
    expect(detectKey(pair(770, 1336, rate, 20), rate)).toBe('5');
    const wrong = mulawEncode(pair(800, 1400, rate, 200));
    expect(detectKeys(wrong, PHONE_AUDIO)).toEqual([]);
  });

  it('a tone shorter than 40 ms is not a key; the detector takes audio in any chunk sizes', () => {
    const short = dtmfAudio('7', BROWSER_AUDIO, { toneMs: 20, gapMs: 100 });
    expect(detectKeys(short, BROWSER_AUDIO)).toEqual([]);
    const audio = pcm16Bytes(dtmfSamples('90#', 16000));
    const heard: string[] = [];
    const d = new DtmfDetector(BROWSER_AUDIO, (k) => heard.push(k.key));
    for (let i = 0; i < audio.length; i += 98) d.push(audio.subarray(i, i + 98));
    expect(heard).toEqual(['9', '0', '#']);
  });

  it('refuses what is not a key', () => {
    expect(() => dtmfSamples('12E', 8000)).toThrow();
    expect(() => dtmfSamples('', 8000)).toThrow();
  });
});
