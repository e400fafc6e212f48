/**
 * A calendar month `yyyy-MM` (billing). Its own module, without the rest of the billing contract: the
 * billing route's search schema uses it, and route search schemas ship in the entry chunk.
 */
import * as v from 'valibot';

export const MONTH_INVALID = 'month must be in the format yyyy-MM';
/** The first month Parley knows: earlier years are refused, not answered with days of another century. */
export const MONTH_MIN = '2000-01';
export const MONTH_TOO_EARLY = `month must be ${MONTH_MIN} or later`;
const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;
export const MonthSchema = v.pipe(
  v.string(MONTH_INVALID),
  v.regex(MONTH, MONTH_INVALID),
  // yyyy-MM strings compare in calendar order
  v.check((month) => month >= MONTH_MIN, MONTH_TOO_EARLY),
);
