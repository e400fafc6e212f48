import { describe, expect, it } from 'vitest';
import type { AudioLine } from '../../../server/voice/lines/types.js';
import { PRESS_DIGIT_MESSAGES, pressDigitTool, toolPhoneLine } from '../../../server/voice/tools/press-digit/index.js';
import { TOOL_KINDS } from '../../../server/voice/tools/registry.js';
import type { ToolEnv, ToolPhoneLine } from '../../../server/voice/tools/types.js';

const fn = { id: 1, name: 'press_digit', type: 'press_digit' as const, description: '', speak_during: '', timeout_ms: 8000 };

function envWith(phone: ToolPhoneLine | undefined): ToolEnv {
  return {
    phone,
    signal: new AbortController().signal,
    call: {
      call_id: 'c',
      agent_id: 'a',
      type: phone ? 'phone_call' : 'web_call',
      from_number: null,
      to_number: null,
      dynamic_variables: {},
    },
  } as unknown as ToolEnv;
}

describe('press_digit', () => {
  it('is the registry’s press_digit; the model sees one string of keys', async () => {
    expect(TOOL_KINDS.press_digit).toBe(pressDigitTool);
    const [tool] = await pressDigitTool.prepare(fn, envWith(undefined));
    expect(tool?.spec.name).toBe('press_digit');
    expect(tool?.spec.parameters).toMatchObject({ type: 'object', required: ['digits'] });
  });

  it('plays the keys on a phone line and says which', async () => {
    const played: string[] = [];
    const phone: ToolPhoneLine = { carrier: 'twilio', playDigits: async (d) => void played.push(d) };
    const [tool] = await pressDigitTool.prepare(fn, envWith(phone));
    expect(await tool?.run({ digits: '12#' }, envWith(phone))).toEqual({ ok: true, result: 'Pressed 1 2 #' });
    expect(played).toEqual(['12#']);
  });

  it('is refused in a web call or a chat, and for keys that are not keys; nothing is played', async () => {
    const played: string[] = [];
    const phone: ToolPhoneLine = { carrier: 'twilio', playDigits: async (d) => void played.push(d) };
    const [tool] = await pressDigitTool.prepare(fn, envWith(undefined));
    expect(await tool?.run({ digits: '1' }, envWith(undefined))).toEqual({
      ok: false,
      result: 'Pressing keys only works on phone calls',
    });
    for (const digits of ['', '12E', 'x', 5, '1'.repeat(33)])
      expect(await tool?.run({ digits }, envWith(phone))).toEqual({ ok: false, result: PRESS_DIGIT_MESSAGES.badDigits });
    expect(played).toEqual([]);
  });

  it('a web line has no keypad; a phone line that plays keys has', () => {
    const web = { kind: 'web' } as unknown as AudioLine;
    expect(toolPhoneLine(web, 'twilio')).toBeUndefined();
    expect(toolPhoneLine(undefined, 'twilio')).toBeUndefined();
    const phone = { kind: 'phone', playDigits: async () => {} } as unknown as AudioLine;
    expect(toolPhoneLine(phone, 'plivo')?.carrier).toBe('plivo');
  });
});
