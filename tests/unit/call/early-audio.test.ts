import { describe, expect, it } from 'vitest';
import { CallerAudio } from '../../../server/voice/engine/caller-audio.js';
import { EARLY_FRAMES_MAX, EarlyAudio } from '../../../server/voice/lines/early-audio.js';

const frame = (n: number) => new Uint8Array([n & 0xff, n >> 8]);

describe('early audio', () => {
  it('keeps the first frames up to its bound, in order, with their times; drained once', () => {
    const early = new EarlyAudio();
    for (let i = 0; i < EARLY_FRAMES_MAX + 20; i++) early.keep(frame(i), i * 20);
    expect(early.size).toBe(EARLY_FRAMES_MAX);
    const got: [number, number][] = [];
    early.drain((f, at) => got.push([(f[0] as number) | ((f[1] as number) << 8), at]));
    expect(got).toHaveLength(EARLY_FRAMES_MAX);
    expect(got[0]).toEqual([0, 0]);
    expect(got.at(-1)).toEqual([EARLY_FRAMES_MAX - 1, (EARLY_FRAMES_MAX - 1) * 20]);
    early.drain(() => got.push([-1, -1]));
    expect(got).toHaveLength(EARLY_FRAMES_MAX);
  });

  it("the engine's caller audio: kept until the stream connects, then straight through; dropped once it is gone", () => {
    const audio = new CallerAudio();
    audio.push(frame(1), 0);
    audio.push(frame(2), 20);
    const sent: number[] = [];
    audio.connect((f) => sent.push(f[0] as number));
    expect(sent).toEqual([1, 2]);
    audio.push(frame(3), 40);
    expect(sent).toEqual([1, 2, 3]);
    audio.disconnect();
    audio.push(frame(4), 60);
    // a stream connected later (a reconnect) starts from what it gets: nothing is kept twice
    audio.connect((f) => sent.push(f[0] as number));
    expect(sent).toEqual([1, 2, 3]);
  });
});
