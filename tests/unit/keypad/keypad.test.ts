import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  deliverEntry,
  KEYPAD_MAX_KEYS,
  Keypad,
  type KeypadTarget,
  keypadSettings,
  keypadText,
} from '../../../server/voice/engine/keypad.js';

describe("the caller's keypad: keys collected into one entry", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const collect = (maxDigits: number, timeoutMs: number) => {
    const entries: string[] = [];
    const keypad = new Keypad({ maxDigits, timeoutMs }, (keys) => entries.push(keypadText(keys)));
    return { keypad, entries };
  };

  it("'#' ends the entry at once, with the '#'", () => {
    const { keypad, entries } = collect(0, 3000);
    for (const k of '1234#') keypad.press(k);
    expect(entries).toEqual(['The caller pressed 1 2 3 4 #']);
    vi.advanceTimersByTime(10_000);
    expect(entries).toHaveLength(1);
  });

  it('the agent’s digit count ends the entry', () => {
    const { keypad, entries } = collect(4, 3000);
    for (const k of '123') keypad.press(k);
    expect(entries).toEqual([]);
    keypad.press('4');
    expect(entries).toEqual(['The caller pressed 1 2 3 4']);
    keypad.press('9');
    keypad.press('#');
    expect(entries).toEqual(['The caller pressed 1 2 3 4', 'The caller pressed 9 #']);
  });

  it('silence ends the entry, counted from the last key', () => {
    const { keypad, entries } = collect(0, 3000);
    keypad.press('5');
    vi.advanceTimersByTime(2000);
    keypad.press('*');
    vi.advanceTimersByTime(2999);
    expect(entries).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(entries).toEqual(['The caller pressed 5 *']);
  });

  it('no count (0) collects until # or silence; a runaway entry is cut at the cap; non-keys are ignored', () => {
    const { keypad, entries } = collect(0, 3000);
    for (let i = 0; i < KEYPAD_MAX_KEYS + 3; i++) keypad.press('7');
    expect(entries).toHaveLength(1);
    expect(entries[0]?.split(' ').length).toBe(3 + KEYPAD_MAX_KEYS);
    keypad.press('x');
    keypad.press('12');
    vi.advanceTimersByTime(3000);
    expect(entries).toEqual([entries[0], 'The caller pressed 7 7 7']);
  });

  it('after the call ends nothing is delivered', () => {
    const { keypad, entries } = collect(0, 3000);
    keypad.press('1');
    keypad.stop();
    vi.advanceTimersByTime(5000);
    keypad.press('#');
    expect(entries).toEqual([]);
  });

  it('the settings come from the agent, with the defaults when absent', () => {
    expect(keypadSettings({ dtmf_max_digits: 4, dtmf_timeout_ms: 5000 })).toEqual({ maxDigits: 4, timeoutMs: 5000 });
    expect(keypadSettings({})).toEqual({ maxDigits: 0, timeoutMs: 3000 });
  });
});

describe('an entry reaches the conversation when the agent listens', () => {
  it('now when listening; else on the first change to listening, one entry per turn, in order', () => {
    let listening = false;
    let listener: (() => void) | undefined;
    const turns: string[] = [];
    const target: KeypadTarget = {
      listening: () => listening,
      subscribe: (fn) => {
        listener = fn;
        return () => {
          listener = undefined;
        };
      },
      callerTurn: (text) => {
        turns.push(text);
        listening = false; // the agent's turn starts
      },
    };
    const queue: string[] = [];
    deliverEntry(target, 'The caller pressed 1 #', queue);
    deliverEntry(target, 'The caller pressed 2 #', queue);
    expect(turns).toEqual([]);
    listener?.();
    expect(turns).toEqual([]);
    listening = true;
    listener?.();
    expect(turns).toEqual(['The caller pressed 1 #']);
    listening = true;
    listener?.();
    expect(turns).toEqual(['The caller pressed 1 #', 'The caller pressed 2 #']);
    expect(listener).toBeUndefined();
    listening = true;
    deliverEntry(target, 'The caller pressed 3', queue);
    expect(turns.at(-1)).toBe('The caller pressed 3');
  });
});
