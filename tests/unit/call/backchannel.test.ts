import { describe, expect, it } from 'vitest';
import { Backchannel, DEFAULT_WORDS, WORDS_PER_MOMENT } from '../../../server/voice/engine/backchannel.js';

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

describe('backchannel', () => {
  it('speaks at the agent frequency of the moments, its own words in turn', () => {
    const said: string[] = [];
    const b = new Backchannel('yes, I see', 0.5, (w) => said.push(w));
    b.heard(words(WORDS_PER_MOMENT - 1));
    expect(said).toEqual([]);
    b.heard(words(WORDS_PER_MOMENT * 4));
    expect(said).toEqual(['yes', 'I see']);
  });

  it('frequency 0 never speaks; 1 speaks at every moment; the default words serve when none are set', () => {
    const never: string[] = [];
    new Backchannel('', 0, (w) => never.push(w)).heard(words(WORDS_PER_MOMENT * 10));
    expect(never).toEqual([]);
    const always: string[] = [];
    new Backchannel('', 1, (w) => always.push(w)).heard(words(WORDS_PER_MOMENT * 3));
    expect(always).toEqual(DEFAULT_WORDS.slice(0, 3));
  });

  it('interim text growing word by word counts each moment once; a new turn counts anew', () => {
    const said: string[] = [];
    const b = new Backchannel('mm', 1, (w) => said.push(w));
    for (let n = 1; n <= WORDS_PER_MOMENT * 2; n++) b.heard(words(n));
    expect(said).toEqual(['mm', 'mm']);
    b.reset();
    b.heard(words(WORDS_PER_MOMENT));
    expect(said).toHaveLength(3);
  });
});
