/**
 * Keypad input from the caller: the keys a phone caller presses (the carrier reports each on the media
 * stream) are collected into one entry, ended by '#', by the agent's digit count (`dtmf_max_digits`, 0 =
 * no count) or by `dtmf_timeout_ms` without a key. The entry reaches the conversation as a caller turn in
 * words the model reads and the transcript shows: 'The caller pressed 1 2 3 4 #'.
 *
 * An entry that ends while the agent is speaking (or the caller is) waits until the agent listens again,
 * then becomes the caller's turn.
 */
import { DTMF_DEFAULTS } from '@contract/agent/functions.js';
import type { Actor } from 'xstate';
import type { callSessionMachine } from '../../../src/machines/callSession.machine.js';

export interface KeypadSettings {
  /** an entry ends after this many keys (0: no count) */
  maxDigits: number;
  /** an entry ends after this long without a key */
  timeoutMs: number;
}

export const KEYPAD_DEFAULTS: KeypadSettings = {
  maxDigits: DTMF_DEFAULTS.dtmf_max_digits,
  timeoutMs: DTMF_DEFAULTS.dtmf_timeout_ms,
};

/** at most this many keys in one entry, whatever the settings (a stuck key cannot grow it) */
export const KEYPAD_MAX_KEYS = 64;

const KEY = /^[0-9*#A-D]$/;

/** The caller turn's words for an entry. */
export const keypadText = (keys: readonly string[]) => `The caller pressed ${keys.join(' ')}`;

/** The keypad settings of an agent's editor settings (defaults for a document written before they existed). */
export function keypadSettings(editor: { dtmf_max_digits?: number; dtmf_timeout_ms?: number }): KeypadSettings {
  return {
    maxDigits: editor.dtmf_max_digits ?? KEYPAD_DEFAULTS.maxDigits,
    timeoutMs: editor.dtmf_timeout_ms ?? KEYPAD_DEFAULTS.timeoutMs,
  };
}

/** Collects the caller's keys into entries. */
export class Keypad {
  private keys: string[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  constructor(
    private readonly settings: KeypadSettings,
    /** an entry is complete: its keys, in order */
    private readonly onEntry: (keys: string[]) => void,
  ) {}

  /** A key the caller pressed (anything that is not a key is ignored). */
  press(key: string): void {
    if (this.stopped || !KEY.test(key)) return;
    this.keys.push(key);
    const max = this.settings.maxDigits;
    if (key === '#' || (max > 0 && this.keys.length >= max) || this.keys.length >= KEYPAD_MAX_KEYS) {
      this.flush();
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), Math.max(1, this.settings.timeoutMs));
    this.timer.unref?.();
  }

  /** The call ended: nothing more is delivered. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.keys = [];
  }

  private flush() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const keys = this.keys;
    this.keys = [];
    if (keys.length > 0 && !this.stopped) this.onEntry(keys);
  }
}

/** What the keypad needs of the conversation's machine: its state, and the caller's turn. */
export interface KeypadTarget {
  /** the agent waits for the caller now */
  listening(): boolean;
  /** calls `fn` on every change of the machine's state; answers the unsubscribe */
  subscribe(fn: () => void): () => void;
  /** the caller's turn, with these words */
  callerTurn(text: string): void;
}

/**
 * Gives `text` to the conversation as the caller's turn now if the agent is listening, else as soon as it
 * is (entries keep their order).
 */
export function deliverEntry(target: KeypadTarget, text: string, queue: string[]): void {
  queue.push(text);
  if (queue.length > 1) return; // a subscription is already waiting
  const drain = () => {
    while (queue.length > 0 && target.listening()) target.callerTurn(queue.shift() as string);
    return queue.length === 0;
  };
  if (drain()) return;
  const off = target.subscribe(() => {
    if (drain()) off();
  });
}

/** The keypad of a conversation's machine: each entry becomes a `caller.message` once the agent listens. */
export function callerKeypad(actor: Actor<typeof callSessionMachine>, settings: KeypadSettings): Keypad {
  const queue: string[] = [];
  const target: KeypadTarget = {
    listening: () => {
      const snap = actor.getSnapshot();
      return snap.status === 'active' && snap.matches({ conversation: 'listening' });
    },
    subscribe: (fn) => {
      const sub = actor.subscribe({ next: fn, error: () => {} });
      return () => sub.unsubscribe();
    },
    callerTurn: (text) => actor.send({ type: 'caller.message', text }),
  };
  return new Keypad(settings, (keys) => deliverEntry(target, keypadText(keys), queue));
}
