import { describe, expect, it } from 'vitest';
import { isId, newId } from '../../server/platform/crypto/ids.js';

/** Row ids: time-ordered, 24 hex like before, and nothing in them counts other tenants' objects. */

const random = (id: string) => BigInt(`0x${id.slice(11)}`);
const counterOf = (id: string) => Number.parseInt(id.slice(-6), 16);

describe('newId', () => {
  it('keeps the 24-hex format isId and the contract accept', () => {
    for (let i = 0; i < 100; i++) expect(isId(newId())).toBe(true);
  });

  it('orders ids by creation time to the millisecond, and ids of one instant in the order they were made', () => {
    const t = Date.parse('2026-11-22T10:00:00.000Z');
    const ids = [newId(new Date(t)), newId(new Date(t + 1)), newId(new Date(t + 999)), newId(new Date(t + 1000))];
    expect([...ids].sort()).toEqual(ids);
    const fixed = new Date(t + 5000);
    const same = Array.from({ length: 1000 }, () => newId(fixed));
    expect([...same].sort()).toEqual(same);
    expect(new Set(same).size).toBe(same.length);
    // after the ids of the first format (seconds + per-process value + counter) made in the same second
    expect(newId(new Date(t)) > `${Math.floor(t / 1000).toString(16)}0000000000000000`).toBe(true);
  });

  it('tells nothing of how many ids were made in between: the distance of two ids is not the count', () => {
    const t = Date.parse('2026-11-22T11:00:00.000Z');
    for (const between of [0, 1, 10, 500]) {
      for (let trial = 0; trial < 20; trial++) {
        const base = t + trial * 10_000 + between * 3;
        const a = newId(new Date(base));
        for (let i = 0; i < between; i++) newId(new Date(base + 1 + i));
        const b = newId(new Date(base + between + 1));
        // a counter (the first format) moves by exactly between + 1; random parts do not
        expect(counterOf(b) - counterOf(a)).not.toBe(between + 1);
      }
    }
  });

  it('draws at least 48 random bits per millisecond', () => {
    const t = Date.parse('2026-11-22T12:00:00.000Z');
    const parts = Array.from({ length: 2000 }, (_, i) => random(newId(new Date(t + i))));
    expect(new Set(parts).size).toBe(parts.length);
    // the top bits vary too (not a small number padded with zeros)
    const high = new Set(parts.map((p) => Number(p >> 44n)));
    expect(high.size).toBeGreaterThan(64);
  });
});
