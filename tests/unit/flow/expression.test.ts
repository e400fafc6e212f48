import { describe, expect, it } from 'vitest';
import {
  EXPRESSION_MAX_DEPTH,
  EXPRESSION_MAX_LENGTH,
  evaluateExpression,
  expressionHolds,
  parseExpression,
} from '../../../src/api/contract/agent/flow-expression';

const holds = (src: string, vars: Record<string, string | number | boolean | null> = {}) => {
  const p = parseExpression(src);
  if (!p.ok) throw new Error(`${src}: ${p.message}`);
  return evaluateExpression(p.expression, vars);
};
const problem = (src: string) => {
  const p = parseExpression(src);
  return p.ok ? undefined : p.message;
};

describe('flow expressions: meaning', () => {
  it('compares numbers', () => {
    expect(holds('age >= 65', { age: 65 })).toBe(true);
    expect(holds('age >= 65', { age: 64 })).toBe(false);
    expect(holds('age > 65', { age: 65 })).toBe(false);
    expect(holds('age < 18', { age: 17.5 })).toBe(true);
    expect(holds('age <= 18', { age: 18 })).toBe(true);
    expect(holds('balance > -3', { balance: -2 })).toBe(true);
    expect(holds('x == 2.5', { x: 2.5 })).toBe(true);
  });
  it('compares texts, with both quotes and escapes', () => {
    expect(holds('insurance == "none"', { insurance: 'none' })).toBe(true);
    expect(holds("insurance != 'none'", { insurance: 'none' })).toBe(false);
    expect(holds('name == "say \\"hi\\""', { name: 'say "hi"' })).toBe(true);
    expect(holds('day < "2026-05-02"', { day: '2026-05-01' })).toBe(true);
  });
  it('never equates values of different types', () => {
    expect(holds('age == "65"', { age: 65 })).toBe(false);
    expect(holds('age != "65"', { age: 65 })).toBe(true);
    expect(holds('age < "70"', { age: 65 })).toBe(false);
    expect(holds('ok == 1', { ok: true })).toBe(false);
  });
  it('treats a variable without a value as equal to nothing and ordered with nothing', () => {
    expect(holds('age >= 0')).toBe(false);
    expect(holds('age < 0')).toBe(false);
    expect(holds('age == 0', { age: null })).toBe(false);
    expect(holds('age != 0')).toBe(true);
    expect(holds('!age')).toBe(true);
  });
  it('combines with &&, || and ! in the usual precedence', () => {
    const vars = { a: true, b: false, c: true, verified: false };
    expect(holds('a && (b || c)', vars)).toBe(true);
    expect(holds('a && b || c', vars)).toBe(true);
    expect(holds('b && c || b', vars)).toBe(false);
    expect(holds('!verified', vars)).toBe(true);
    expect(holds('!!verified', vars)).toBe(false);
    expect(holds('!(a && c)', vars)).toBe(false);
    expect(holds('true && !false')).toBe(true);
  });
  it('reads numbers and texts as true unless 0 or empty', () => {
    expect(holds('n', { n: 3 })).toBe(true);
    expect(holds('n', { n: 0 })).toBe(false);
    expect(holds('s', { s: '' })).toBe(false);
    expect(holds('s', { s: 'x' })).toBe(true);
  });
  it('lists the variables it reads', () => {
    const p = parseExpression('age >= 65 && insurance == "none" || age < 3');
    expect(p.ok && p.variables.sort()).toEqual(['age', 'insurance']);
  });
  it('does not read inherited properties as variables', () => {
    expect(holds('constructor')).toBe(false);
    expect(holds('toString == "x"')).toBe(false);
    expect(holds('__proto__')).toBe(false);
  });
});

describe('flow expressions: problems', () => {
  it.each([
    ['', 'empty'],
    ['   ', 'empty'],
    ['age >=', 'ends too early'],
    ['age = 65', 'Use =='],
    ['a & b', 'Use &&'],
    ['a | b', 'Use ||'],
    ['(a && b', 'not closed'],
    ['a && b)', 'after the expression'],
    ['"open', 'not closed'],
    ['1 < a < 3', 'chained'],
    ['65years', 'followed by letters'],
    ['1.', 'cannot end'],
    ['a ; b', 'Unexpected character'],
    ['&& a', 'Expected a value'],
    ['"\\n"', 'Unknown escape'],
    ['age >= 65 age', 'after the expression'],
  ])('%j is refused (%s)', (src, message) => {
    expect(problem(src)).toContain(message);
  });
  it('says where the problem is', () => {
    const p = parseExpression('age >= 65 && ; x');
    expect(p.ok).toBe(false);
    if (!p.ok) expect(p.at).toBe(13);
  });
});

describe('flow expressions: hostile input', () => {
  it('refuses an expression longer than the limit before reading it', () => {
    expect(problem(`a${' '.repeat(EXPRESSION_MAX_LENGTH)}`)).toContain('too long');
    expect(parseExpression('a'.repeat(EXPRESSION_MAX_LENGTH)).ok).toBe(true);
  });
  it('refuses deep nesting instead of overflowing the stack', () => {
    const deep = (n: number) => `${'('.repeat(n)}a${')'.repeat(n)}`;
    expect(parseExpression(deep(EXPRESSION_MAX_DEPTH)).ok).toBe(true);
    expect(problem(deep(EXPRESSION_MAX_DEPTH + 1))).toContain('nested too deeply');
    expect(problem(`${'!'.repeat(EXPRESSION_MAX_DEPTH + 1)}a`)).toContain('nested too deeply');
    expect(problem('('.repeat(400))).toContain('nested too deeply');
  });
  it('is never code: function calls, property access and assignments are refused', () => {
    for (const src of [
      'process.exit()',
      'constructor.constructor("return process")()',
      'a = 1',
      '`x`',
      'a[0]',
      'globalThis.x',
      '1; while(true){}',
    ])
      expect(parseExpression(src).ok, src).toBe(false);
    // a bare word is a variable name, never a JavaScript value
    expect(expressionHolds('this', {})).toBe(false);
  });
  it('evaluates the longest chain the limit allows', () => {
    const chain = Array.from({ length: 125 }, () => 'a').join('&&');
    expect(chain.length).toBeLessThanOrEqual(EXPRESSION_MAX_LENGTH);
    expect(holds(chain, { a: true })).toBe(true);
  });
  it('refuses what is not a text', () => {
    expect(parseExpression(42 as unknown as string).ok).toBe(false);
  });
});
