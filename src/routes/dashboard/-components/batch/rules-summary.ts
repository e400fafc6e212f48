/** How the batch detail words a batch's dialling rules. */
import type { BatchRules } from '../../../../machines/batchRules.machine';

/** Monday first, as a week is read; the value is the contract's day (0 = Sunday). */
export const WEEK = [
  { day: 1, name: 'Monday', short: 'Mon' },
  { day: 2, name: 'Tuesday', short: 'Tue' },
  { day: 3, name: 'Wednesday', short: 'Wed' },
  { day: 4, name: 'Thursday', short: 'Thu' },
  { day: 5, name: 'Friday', short: 'Fri' },
  { day: 6, name: 'Saturday', short: 'Sat' },
  { day: 0, name: 'Sunday', short: 'Sun' },
] as const;

/** 'Mon–Fri', 'Mon, Wed, Sat–Sun', 'Every day': runs of three days or more joined with a dash. */
export function daysSummary(days: readonly number[]): string {
  const on = WEEK.filter((d) => days.includes(d.day));
  if (on.length === WEEK.length) return 'Every day';
  const runs: (typeof WEEK)[number][][] = [];
  for (const d of on) {
    const last = runs.at(-1);
    const prev = last?.at(-1);
    if (last && prev && WEEK.indexOf(prev) + 1 === WEEK.indexOf(d)) last.push(d);
    else runs.push([d]);
  }
  return runs
    .map((run) => (run.length >= 3 ? `${run[0]?.short}–${run.at(-1)?.short}` : run.map((d) => d.short).join(', ')))
    .join(', ');
}

/** "Any time" or "Mon–Fri 09:00–17:00 (America/New_York)". */
export function windowSummary(rules: BatchRules): string {
  const w = rules.callingWindow;
  return w ? `${daysSummary(w.days)} ${w.start}–${w.end} (${rules.timeZone})` : 'Any time';
}

/** "2 attempts, 120 s apart" or "1 attempt, no retry". */
export function attemptsSummary(rules: BatchRules): string {
  return rules.maxAttempts === 1 ? '1 attempt, no retry' : `${rules.maxAttempts} attempts, ${rules.retryDelaySeconds} s apart`;
}
