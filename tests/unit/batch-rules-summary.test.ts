import { describe, expect, it } from 'vitest';
import { attemptsSummary, daysSummary, windowSummary } from '../../src/routes/dashboard/-components/batch/rules-summary';

// How the batch detail words a batch's dialling rules: days Monday first, runs of three or more
// days with a dash, the window with its zone, attempts with their delay.
describe('dialling rules summary', () => {
  it('words the days Monday first, runs of three or more with a dash', () => {
    expect(daysSummary([1, 2, 3, 4, 5])).toBe('Mon–Fri');
    expect(daysSummary([5, 3, 1])).toBe('Mon, Wed, Fri');
    expect(daysSummary([6, 0])).toBe('Sat, Sun');
    expect(daysSummary([0, 1, 2, 3, 5, 6])).toBe('Mon–Wed, Fri–Sun');
    expect(daysSummary([0, 1, 2, 3, 4, 5, 6])).toBe('Every day');
  });

  it("says 'Any time' without a window, else the days, hours and zone; attempts with their delay", () => {
    const rules = { callingWindow: null, timeZone: 'UTC', maxAttempts: 2, retryDelaySeconds: 120 };
    expect(windowSummary(rules)).toBe('Any time');
    expect(
      windowSummary({
        ...rules,
        callingWindow: { days: [1, 2, 3, 4, 5], start: '09:00', end: '17:00' },
        timeZone: 'America/New_York',
      }),
    ).toBe('Mon–Fri 09:00–17:00 (America/New_York)');
    expect(attemptsSummary(rules)).toBe('2 attempts, 120 s apart');
    expect(attemptsSummary({ ...rules, maxAttempts: 1 })).toBe('1 attempt, no retry');
  });
});
