import { lightFormat } from 'date-fns';

// Made on first use: creating a formatter loads the browser's locale data, which pages that never format
// a number should not wait for.
function onFirstUse<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => {
    if (made === undefined) made = make();
    return made;
  };
}
const usd = onFirstUse(() => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2 }));
const count = onFirstUse(() => new Intl.NumberFormat('en-US'));
const monthAndYear = onFirstUse(() => new Intl.DateTimeFormat('en-US', { month: 'long', year: 'numeric' }));

/** Spec section 9: cost in dollars with 2 decimals. */
export const formatUsd = (n: number) => usd().format(n);
export const formatCount = (n: number) => count().format(n);
export const formatMinutes = (n: number) => `${formatCount(n)} min`;
// Numeric date formats use date-fns' lightFormat: `format` brings every token's formatter and the en-US
// locale (about 19 KB of the dashboard's first load) for patterns that need none of them.
/** Spec section 9: time as yyyy-MM-dd HH:mm (in the user's time zone). */
export const formatDateTime = (iso: string | number | Date) => lightFormat(new Date(iso), 'yyyy-MM-dd HH:mm');
/** The value of an `<input type="datetime-local">` for a date (local time). */
export const toDateTimeLocal = (d: Date) => lightFormat(d, "yyyy-MM-dd'T'HH:mm");

/** A duration for people: '45 s', '12 min', '3 h 20 min', '2 d 4 h'. */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`;
}

/** 'yyyy-MM' of a local date, and its title ('November 2026'). */
export const monthOf = (d: Date) => lightFormat(d, 'yyyy-MM');
export const monthTitle = (month: string) => monthAndYear().format(new Date(`${month}-01T00:00:00`));

/** The `n` months up to this one, newest first. */
export function recentMonths(n: number, now = new Date()): string[] {
  return Array.from({ length: n }, (_, i) => monthOf(new Date(now.getFullYear(), now.getMonth() - i, 1)));
}

/** A byte size for people: '812 KB', '48.2 MB'. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${Math.round(n / 1024)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/** A message as a sentence: ends with a full stop unless it already ends a sentence ('.', '!', '?', '…'). */
export function asSentence(message: string): string {
  const text = message.trimEnd();
  return text === '' || /[.!?…]$/.test(text) ? text : `${text}.`;
}
