import { describe, expect, it } from 'vitest';
import {
  asSentence,
  formatBytes,
  formatDateTime,
  formatDuration,
  formatUsd,
  monthOf,
  monthTitle,
  recentMonths,
  toDateTimeLocal,
} from '../../src/routes/dashboard/-components/format';

// The dashboard's formatters: numeric dates through date-fns' lightFormat, the month title
// through Intl, so the first load does not carry date-fns' `format` and its locale.
describe('dashboard formatters', () => {
  const local = new Date(2026, 0, 5, 9, 7, 3); // 5 January 2026, 09:07:03 local time

  it('formats a time as yyyy-MM-dd HH:mm in local time, from an ISO string, a Date or epoch milliseconds', () => {
    expect(formatDateTime(local)).toBe('2026-01-05 09:07');
    expect(formatDateTime(local.toISOString())).toBe('2026-01-05 09:07');
    expect(formatDateTime(local.getTime())).toBe('2026-01-05 09:07');
    expect(formatDateTime(new Date(2026, 10, 24, 23, 59))).toBe('2026-11-24 23:59');
  });

  it('gives a datetime-local input value (a literal T between date and time)', () => {
    expect(toDateTimeLocal(local)).toBe('2026-01-05T09:07');
    expect(toDateTimeLocal(new Date(2026, 11, 31, 0, 0))).toBe('2026-12-31T00:00');
  });

  it('names months: yyyy-MM keys and their English titles', () => {
    expect(monthOf(local)).toBe('2026-01');
    expect(monthTitle('2026-01')).toBe('January 2026');
    expect(monthTitle('2026-11')).toBe('November 2026');
    expect(recentMonths(3, new Date(2026, 0, 15))).toEqual(['2026-01', '2025-12', '2025-11']);
    expect(
      recentMonths(13, new Date(2026, 10, 24))
        .map(monthTitle)
        .at(-1),
    ).toBe('November 2025');
  });

  it('refuses an invalid date instead of printing garbage', () => {
    expect(() => formatDateTime('not a date')).toThrow(RangeError);
  });

  it('formats money, sizes and durations', () => {
    expect(formatUsd(1234.5)).toBe('$1,234.50');
    expect(formatBytes(812 * 1024)).toBe('812 KB');
    expect(formatBytes(48.2 * 1024 * 1024)).toBe('48.2 MB');
    expect(formatDuration(45)).toBe('45 s');
    expect(formatDuration(3 * 3600 + 20 * 60)).toBe('3 h 20 min');
    expect(formatDuration(52 * 3600)).toBe('2 d 4 h');
  });

  it('ends a message as a sentence, once', () => {
    expect(asSentence('Connect OpenAI on the Providers page to use GPT 4o')).toBe(
      'Connect OpenAI on the Providers page to use GPT 4o.',
    );
    expect(asSentence('Enter it again on the Providers page.')).toBe('Enter it again on the Providers page.');
    expect(asSentence('Try again? ')).toBe('Try again?');
    expect(asSentence('')).toBe('');
  });
});
