import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { groupThousands } from '../../src/api/contract/number.js';

describe('groupThousands', () => {
  it("writes integers as toLocaleString('en-US') does", () => {
    expect(groupThousands(1_000_000)).toBe('1,000,000');
    expect(groupThousands(999)).toBe('999');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }), (n) => {
        expect(groupThousands(n)).toBe(n.toLocaleString('en-US'));
      }),
    );
  });
});
