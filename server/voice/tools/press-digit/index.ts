/**
 * press_digit: the agent presses keys on a phone call, to find its way through an IVR menu ('Press 1 for
 * appointments, 2 for billing'). The keys the model gives are played into the call as in-band DTMF tones
 * (ITU-T Q.23, 100 ms tone / 100 ms gap) on the call's own media stream, after what the agent is saying;
 * the tool answers once the carrier has played them. In a web call or a chat there is no keypad: the
 * model is told so, in words it can pass on.
 */
import type { AgentFunctionOf } from '@contract/agent/functions.js';
import { isDtmfDigits } from '../../audio/dtmf.js';
import type { Line } from '../../lines/types.js';
import type { PreparedTool, ToolKind, ToolOutcome, ToolPhoneLine } from '../types.js';

/** at most this many keys in one call of the tool */
export const PRESS_DIGIT_MAX = 32;

export const PRESS_DIGIT_MESSAGES = {
  notPhone: 'Pressing keys only works on phone calls',
  badDigits: `digits must be 1 to ${PRESS_DIGIT_MAX} keys among 0-9, *, # and A-D`,
} as const;

const DESCRIPTION =
  'Press keys on the phone keypad (DTMF), for example to choose an option in an automated phone menu. ' +
  'Give the keys in the order to press them.';

/** The tool's spec: one string of keys. */
export function pressDigitSpec(fn: AgentFunctionOf<'press_digit'>) {
  return {
    name: fn.name,
    description: fn.description?.trim() || DESCRIPTION,
    parameters: {
      type: 'object',
      properties: {
        digits: {
          type: 'string',
          description: `The keys to press, in order: digits 0-9, * , # or A-D (at most ${PRESS_DIGIT_MAX}), like "2" or "1234#".`,
          pattern: `^[0-9*#A-D]{1,${PRESS_DIGIT_MAX}}$`,
        },
      },
      required: ['digits'],
    },
  };
}

/** Plays the keys, or says why not. */
export async function pressDigits(
  args: Record<string, unknown>,
  phone: ToolPhoneLine | undefined,
  signal: AbortSignal,
): Promise<ToolOutcome> {
  if (!phone) return { ok: false, result: PRESS_DIGIT_MESSAGES.notPhone };
  const digits = typeof args.digits === 'string' ? args.digits.replace(/\s+/g, '').toUpperCase() : '';
  if (digits.length > PRESS_DIGIT_MAX || !isDtmfDigits(digits)) return { ok: false, result: PRESS_DIGIT_MESSAGES.badDigits };
  await phone.playDigits(digits, signal);
  return { ok: true, result: `Pressed ${digits.split('').join(' ')}` };
}

export const pressDigitTool: ToolKind<'press_digit'> = {
  type: 'press_digit',
  async prepare(fn): Promise<PreparedTool[]> {
    return [{ spec: pressDigitSpec(fn), fn, actsOnLine: true, run: (args, env) => pressDigits(args, env.phone, env.signal) }];
  },
};

/**
 * The ToolEnv's phone of a call's line: its carrier's keypad when the line can play keys (the carriers'
 * media streams), else undefined (a web call, a chat).
 */
export function toolPhoneLine(line: Line | undefined, carrier: string): ToolPhoneLine | undefined {
  if (line?.kind !== 'phone' || !line.playDigits) return undefined;
  const play = line.playDigits.bind(line);
  return { carrier, playDigits: (digits, signal) => play(digits, signal) };
}
