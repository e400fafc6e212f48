/**
 * Backchanneling: short acknowledgements ('mm-hmm', 'I see') the agent says while the caller talks at
 * length, without taking the turn (the caller is not interrupted and the machine stays in userSpeaking).
 * A moment is due every WORDS_PER_MOMENT words of one caller turn (from the recogniser's interim words); the
 * agent's backchannel frequency (0..1) is the share of those moments it speaks at, spread evenly (a credit
 * that grows by the frequency each moment: at 0.8, four moments of five). The words are the agent's own
 * (comma-separated), else DEFAULT_WORDS, taken in turn.
 */
import { commaList } from './text.js';

export const WORDS_PER_MOMENT = 12;
export const DEFAULT_WORDS = ['mm-hmm', 'I see', 'right', 'okay'];

export class Backchannel {
  private readonly words: string[];
  private credit = 0;
  private next = 0;
  /** words of the caller's turn at the last moment */
  private lastMoment = 0;

  constructor(
    wordsText: string,
    private readonly frequency: number,
    private readonly speak: (word: string) => void,
  ) {
    const own = commaList(wordsText);
    this.words = own.length > 0 ? own : DEFAULT_WORDS;
  }

  /** The caller's words so far in this turn (interim). */
  heard(text: string): void {
    const count = text.split(/\s+/).filter(Boolean).length;
    while (count - this.lastMoment >= WORDS_PER_MOMENT) {
      this.lastMoment += WORDS_PER_MOMENT;
      this.credit += Math.min(1, Math.max(0, this.frequency));
      if (this.credit >= 1 - 1e-9) {
        this.credit -= 1;
        const word = this.words[this.next % this.words.length] as string;
        this.next++;
        this.speak(word);
      }
    }
  }

  /** The caller's turn ended: count anew. */
  reset(): void {
    this.lastMoment = 0;
  }
}
