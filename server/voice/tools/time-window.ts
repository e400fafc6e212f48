/**
 * Dates and times of the calendar tools, in an IANA time zone, with the platform's Intl only: the window
 * the model asks for (a start date, an end date or a number of days), a start time it gives back (with an
 * offset, or a wall-clock time in the function's zone), and the compact list of free start times it reads.
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/;
const WITH_OFFSET = /(Z|[+-]\d{2}:?\d{2})$/i;
const DAY_MS = 86_400_000;

/** At most this many start times are listed for the model. */
export const MAX_SLOTS = 20;

export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const formats = new Map<string, Intl.DateTimeFormat>();
function formatOf(tz: string): Intl.DateTimeFormat {
  let f = formats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(tz, f);
  }
  return f;
}

/** The wall clock of `ms` in `tz`. */
function wallClock(ms: number, tz: string) {
  const parts: Record<string, number> = {};
  for (const p of formatOf(tz).formatToParts(ms)) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return {
    year: parts.year ?? 1970,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: (parts.hour ?? 0) % 24,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  };
}

const pad = (n: number) => String(n).padStart(2, '0');

/** 'YYYY-MM-DD' and 'HH:mm' of an instant in `tz`. */
export function localParts(ms: number, tz: string): { date: string; time: string } {
  const w = wallClock(ms, tz);
  return { date: `${w.year}-${pad(w.month)}-${pad(w.day)}`, time: `${pad(w.hour)}:${pad(w.minute)}` };
}

/** The instant whose wall clock in `tz` reads the given time (the later one across a DST change). */
export function zonedToUtc(year: number, month: number, day: number, hour: number, minute: number, second: number, tz: string) {
  const guess = Date.UTC(year, month - 1, day, hour, minute, second);
  const offset = (ms: number) => {
    const w = wallClock(ms, tz);
    return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(ms / 1000) * 1000;
  };
  const first = guess - offset(guess);
  return guess - offset(first);
}

function parseDate(value: string): { y: number; m: number; d: number } | null {
  const m = DATE.exec(value);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const check = new Date(Date.UTC(y, mo - 1, d));
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return null;
  return { y, m: mo, d };
}

export interface Window {
  startDate: string;
  endDate: string;
  /** the first instant of startDate in the zone */
  fromMs: number;
  /** the first instant after endDate in the zone */
  toMs: number;
}

/**
 * The window of whole days the model asked for: `start_date` (default today in `tz`), then `end_date` or
 * `days` (default 1), at most `maxDays` days. A string answer is the problem in words.
 */
export function windowOf(args: Record<string, unknown>, tz: string, nowMs: number, maxDays: number): Window | string {
  const today = localParts(nowMs, tz).date;
  const startText = typeof args.start_date === 'string' && args.start_date.trim() ? args.start_date.trim() : today;
  const start = parseDate(startText);
  if (!start) return 'start_date must be a date like 2025-03-14';
  const startDay = Date.UTC(start.y, start.m - 1, start.d);
  let days = 1;
  if (typeof args.end_date === 'string' && args.end_date.trim()) {
    const end = parseDate(args.end_date.trim());
    if (!end) return 'end_date must be a date like 2025-03-14';
    days = Math.round((Date.UTC(end.y, end.m - 1, end.d) - startDay) / DAY_MS) + 1;
    if (days < 1) return 'end_date must not be before start_date';
  } else if (args.days !== undefined) {
    const n = Number(args.days);
    if (!Number.isInteger(n) || n < 1) return 'days must be a whole number of at least 1';
    days = n;
  }
  if (days > maxDays) return `the window can be at most ${maxDays} days: ask for fewer days`;
  const endDay = new Date(startDay + (days - 1) * DAY_MS);
  const after = new Date(startDay + days * DAY_MS);
  return {
    startDate: startText,
    endDate: endDay.toISOString().slice(0, 10),
    fromMs: zonedToUtc(start.y, start.m, start.d, 0, 0, 0, tz),
    toMs: zonedToUtc(after.getUTCFullYear(), after.getUTCMonth() + 1, after.getUTCDate(), 0, 0, 0, tz),
  };
}

/** A start time the model gave: ISO with Z or an offset, or a wall-clock time in `tz`; null when unreadable. */
export function startOf(value: string, tz: string): number | null {
  const text = value.trim();
  if (WITH_OFFSET.test(text)) {
    const ms = Date.parse(text);
    return Number.isNaN(ms) ? null : ms;
  }
  const m = LOCAL.exec(text);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (!parseDate(`${m[1]}-${m[2]}-${m[3]}`) || h > 23 || mi > 59 || s > 59) return null;
  return zonedToUtc(y, mo, d, h, mi, s, tz);
}

/** The free start times as the model reads them: by local date, 'HH:mm', at most MAX_SLOTS. */
export function slotList(startsMs: number[], tz: string, window: Window) {
  const sorted = [...new Set(startsMs)].sort((a, b) => a - b);
  const free: Record<string, string[]> = {};
  for (const ms of sorted.slice(0, MAX_SLOTS)) {
    const { date, time } = localParts(ms, tz);
    const day = free[date] ?? [];
    day.push(time);
    free[date] = day;
  }
  return {
    timezone: tz,
    from: window.startDate,
    to: window.endDate,
    free,
    shown: Math.min(sorted.length, MAX_SLOTS),
    total: sorted.length,
    note:
      sorted.length === 0
        ? 'No free times in this window.'
        : `Times are in ${tz}. To book, give the start as YYYY-MM-DDTHH:mm in ${tz}.`,
  };
}

/** An instant as the caller hears it: 'YYYY-MM-DD HH:mm' in `tz`. */
export function spoken(ms: number, tz: string): string {
  const { date, time } = localParts(ms, tz);
  return `${date} ${time}`;
}
