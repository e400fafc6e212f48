import { describe, expect, it } from 'vitest';
import { formatCallDuration } from '../../src/api/contract/call';
import { daysSoFar } from '../../src/routes/dashboard/-components/billing/UsageChart';
import { axisTicks, niceMax } from '../../src/routes/dashboard/-components/chart-ticks';
import { formatCount, formatUsd } from '../../src/routes/dashboard/-components/format';

const ms = (n: number) => `${formatCount(Math.round(n))} ms`;
const rate = (n: number) => `${(n * 100).toFixed(1)}%`;
const count = (n: number) => formatCount(Math.round(n));
const labels = (max: number, unit: number, format: (n: number) => string) => axisTicks(max, unit).map(format);

describe('axisTicks', () => {
  it('gives an all-zero chart three distinct labels in each of the overview formats', () => {
    expect(labels(0, 1, formatCallDuration)).toEqual(['0m 00s', '0m 01s', '0m 02s']);
    expect(labels(0, 1, ms)).toEqual(['0 ms', '1 ms', '2 ms']);
    expect(labels(0, 1, count)).toEqual(['0', '1', '2']);
    expect(labels(0, 0.01, formatUsd)).toEqual(['$0.00', '$0.01', '$0.02']);
    expect(labels(0, 0.001, rate)).toEqual(['0.0%', '0.1%', '0.2%']);
    expect(labels(0, 0.1, formatCount)).toEqual(['0', '0.1', '0.2']);
  });

  it('never prints a tick that is not its value, at any maximum', () => {
    const formats: [number, (n: number) => string][] = [
      [1, formatCallDuration],
      [1, ms],
      [1, count],
      [0.01, formatUsd],
      [0.001, rate],
      [0.1, formatCount],
    ];
    for (const [unit, format] of formats) {
      for (const max of [0, 0.2, 0.5, 0.7, 1, 1.4, 2, 3, 7, 9.99, 12, 99, 101, 950, 1234.5, 86_400]) {
        const ticks = axisTicks(max, unit);
        const printed = ticks.map(format);
        expect(new Set(printed).size, `${max} by ${unit}: ${printed.join(', ')}`).toBe(3);
        expect(ticks[0]).toBe(0);
        expect(ticks[2]).toBeGreaterThanOrEqual(max);
        expect(ticks[1] * 2).toBeCloseTo(ticks[2], 9);
        // every tick a whole number of units (what the format prints is exactly the value)
        for (const tick of ticks) expect(Math.abs(tick / unit - Math.round(tick / unit))).toBeLessThan(1e-9);
      }
    }
  });

  it('keeps a round top at or above the data', () => {
    expect(axisTicks(3)).toEqual([0, 2, 4]);
    expect(axisTicks(100)).toEqual([0, 50, 100]);
    expect(axisTicks(0.34, 0.01)).toEqual([0, 0.2, 0.4]);
    expect(axisTicks(1, 0.001)).toEqual([0, 0.5, 1]);
    expect(axisTicks(Number.NaN)).toEqual([0, 1, 2]);
  });

  it('niceMax is 1, 2, 4 or 10 times a power of ten', () => {
    expect([0, 0.03, 1, 1.5, 3, 5, 40, 41].map(niceMax)).toEqual([1, 0.04, 1, 2, 4, 10, 40, 100]);
  });
});

describe('daysSoFar (Usage: an open month stops at today)', () => {
  const month = Array.from({ length: 30 }, (_, i) => ({ date: `2026-11-${String(i + 1).padStart(2, '0')}` }));

  it('keeps the days up to today and leaves the rest of the month out', () => {
    const drawn = daysSoFar(month, new Date('2026-11-07T12:00:00Z'));
    expect(drawn.map((d) => d.date).at(-1)).toBe('2026-11-07');
    expect(drawn).toHaveLength(7);
  });

  it('draws a past month whole', () => {
    expect(daysSoFar(month, new Date('2026-12-07T12:00:00Z'))).toHaveLength(30);
  });
});
