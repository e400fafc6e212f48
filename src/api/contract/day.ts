/**
 * Calendar days as the API and the URLs write them (yyyy-MM-dd). A module of its own, free of valibot,
 * so a route's `validateSearch` (which stays in the entry chunk) can use it without the contracts.
 */

/** True for a real calendar day written yyyy-MM-dd. */
export function isCalendarDay(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const d = new Date(`${s}T00:00:00.000Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}
