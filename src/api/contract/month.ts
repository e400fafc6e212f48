/**
 * A calendar month `yyyy-MM` (billing). Its own module, without the rest of the billing contract: the
 * billing route's search schema uses it, and route search schemas ship in the entry chunk.
 */
import * as v from 'valibot';

export const MONTH_INVALID = 'month must be in the format yyyy-MM';
const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;
export const MonthSchema = v.pipe(v.string(MONTH_INVALID), v.regex(MONTH, MONTH_INVALID));
