import { describe, expect, it } from 'vitest';
import { AGENT_IMPORT_MESSAGES, parseAgentImport } from '../../src/api/contract/agent/export';
import { JSON_DEPTH_MAX, JsonTooDeepError, jsonNestsDeeper, parseJson } from '../../src/api/contract/json';

const nested = (levels: number) => `${'[{"a":'.repeat(levels)}1${'}]'.repeat(levels)}`;

describe('JSON from outside', () => {
  it('counts nesting, not brackets inside strings or after escaped quotes', () => {
    expect(jsonNestsDeeper(nested(JSON_DEPTH_MAX / 2))).toBe(false);
    expect(jsonNestsDeeper(nested(JSON_DEPTH_MAX / 2 + 1))).toBe(true);
    expect(jsonNestsDeeper(JSON.stringify({ a: '[[[[[[[[', b: 'quote \\" [[[[ "' }), 2)).toBe(false);
    expect(jsonNestsDeeper('{"a":"\\\\"}', 1)).toBe(false);
    expect(jsonNestsDeeper('{"a":"\\\\",[[', 1)).toBe(true);
    expect(parseJson(nested(3))).toEqual([{ a: [{ a: [{ a: 1 }] }] }]);
  });

  it('refuses deep nesting before parsing it, in one pass', () => {
    expect(() => parseJson('['.repeat(5_000_000))).toThrow(JsonTooDeepError);
    expect(() => parseJson('['.repeat(5_000_000))).toThrow(SyntaxError);
  });

  it('an agent import file nested past the limit is not read as an agent', () => {
    const deep = `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`;
    expect(parseAgentImport(`{"name":"x","settings":${deep}}`)).toEqual({
      ok: false,
      message: AGENT_IMPORT_MESSAGES.notJson,
    });
  });
});
