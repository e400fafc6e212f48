/**
 * A budget of log lines per window (a fixed window of the injected clock): `take` answers whether one more
 * line fits, and, on the first take of a new window, how many were refused in the windows before, so the
 * caller logs that count once instead of every line.
 */
export function logBudget(perWindow: number, windowMs: number) {
  let windowStart = Number.NEGATIVE_INFINITY;
  let used = 0;
  let dropped = 0;
  return {
    take(now: Date): { allowed: boolean; dropped: number } {
      const t = now.getTime();
      let report = 0;
      if (t - windowStart >= windowMs) {
        windowStart = t;
        used = 0;
        report = dropped;
        dropped = 0;
      }
      if (used < perWindow) {
        used++;
        return { allowed: true, dropped: report };
      }
      dropped++;
      return { allowed: false, dropped: report };
    },
  };
}
