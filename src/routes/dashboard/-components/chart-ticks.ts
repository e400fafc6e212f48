/**
 * The value axis of the dashboard's small charts (Call History's overview, Billing's Usage): three ticks,
 * 0, the middle and the top, each a distinct value the axis can print as it is.
 *
 * `unit` is the smallest step the axis's format shows (1 for counts, seconds and milliseconds, 0.01 for
 * dollars, 0.001 for a rate printed to 0.1%, 0.1 for minutes printed to one decimal). The top is a round
 * number (1, 2, 4 or 10 times a power of ten, so the middle is round too) at or above the data's maximum and
 * at least two units, so the middle is a whole unit: an all-zero chart reads '0, 1, 2', never '0, 1, 1'
 * (a half unit rounded up) or '0 ms, 1 ms, 1 ms'.
 */
export function axisTicks(max: number, unit = 1): [number, number, number] {
  const top = niceMax(Math.max(Number.isFinite(max) ? max : 0, 2 * unit));
  // rounded to the unit: 0.01 * 2 must print and compare as 0.02, not 0.020000000000000004
  const snap = (v: number) => {
    const units = Math.round(v / unit);
    return unit < 1 ? units / Math.round(1 / unit) : units * unit;
  };
  return [0, snap(top / 2), snap(top)];
}

/** A round axis maximum at or above `max` (1, 2 or 4 times a power of ten: its half is round too). */
export function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 4, 10]) if (step * power >= max * (1 - 1e-9)) return step * power;
  return 10 * power;
}
