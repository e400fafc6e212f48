/**
 * Query-string pieces shared by the list contracts of phone numbers and calls: whole-number
 * parameters, a whitelisted multi-key `sort`, and `search`. Every parameter arrives as text.
 *
 * `sort` has the same shape as GET /agent's: a URL-encoded JSON object of field to 1
 * (ascending) or -1 (descending), keys in priority order, e.g. `{"duration":-1,"time":1}`. The data
 * table keeps its sort in the URL as `field:asc,field:desc`; `tableSortToPairs`
 * converts that form.
 */
import * as v from 'valibot';

export type SortDirection = 1 | -1;
/** Ordered [field, direction] pairs, the first the most significant. */
export type SortPairs<F extends string> = [F, SortDirection][];

/** The highest page index a list accepts. */
export const PAGE_MAX = 10_000_000;

/** A whole-number query parameter from `min` to `max`; absent or '' = `fallback`. */
export const intParam = (fallback: number, min: number, max: number) => {
  const help = `expected a whole number from ${min} to ${max}`;
  return v.pipe(
    v.optional(v.string(), String(fallback)),
    v.transform((s) => (s === '' ? String(fallback) : s)),
    v.regex(/^\d{1,10}$/, help),
    v.transform(Number),
    v.minValue(min, help),
    v.maxValue(max, help),
  );
};

/** `search`: trimmed text of at most `max` characters; absent = ''. */
export const searchParam = (max = 100) =>
  v.optional(v.pipe(v.string(), v.trim(), v.maxLength(max, `expected at most ${max} characters`)), '');

/** `sort`: the JSON object of field to 1 or -1, each field one of `fields`; absent or '' = []. */
export function sortParam<F extends string>(fields: readonly F[]) {
  const help = `expected a JSON object of field to 1 or -1 over ${fields.join(', ')}`;
  return v.optional(
    v.pipe(
      v.string(),
      v.rawTransform(({ dataset, addIssue, NEVER }) => {
        const fail = (message: string) => {
          addIssue({ message });
          return NEVER;
        };
        if (dataset.value.trim() === '') return [] as SortPairs<F>;
        let parsed: unknown;
        try {
          parsed = JSON.parse(dataset.value);
        } catch {
          return fail(help);
        }
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return fail(help);
        const out: SortPairs<F> = [];
        for (const [field, dir] of Object.entries(parsed)) {
          if (!(fields as readonly string[]).includes(field))
            return fail(`cannot sort by '${field.slice(0, 50)}' (allowed: ${fields.join(', ')})`);
          if (dir !== 1 && dir !== -1) return fail(`direction of '${field.slice(0, 50)}' must be 1 or -1`);
          out.push([field as F, dir]);
        }
        return out;
      }),
    ),
    '',
  );
}

/** The `sort` parameter's text for ordered pairs ('' for none). */
export const sortToParam = <F extends string>(sort: SortPairs<F> | undefined): string =>
  sort?.length ? JSON.stringify(Object.fromEntries(sort)) : '';

/**
 * The data table's URL form `field:asc,field:desc` as pairs, keeping only whitelisted fields (a bad or
 * stale URL never breaks the screen; the first mention of a field wins).
 */
export function tableSortToPairs<F extends string>(text: string | undefined, fields: readonly F[]): SortPairs<F> {
  const out: SortPairs<F> = [];
  for (const part of (text ?? '').split(',')) {
    const [field, dir] = part.trim().split(':');
    if (!field || !(fields as readonly string[]).includes(field) || out.some(([f]) => f === field)) continue;
    if (dir !== 'asc' && dir !== 'desc') continue;
    out.push([field as F, dir === 'asc' ? 1 : -1]);
  }
  return out;
}

/** Copies the defined, non-empty values of `q` as query-string text. */
export function queryParams(q: Record<string, string | number | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(q)) if (val !== undefined && val !== '') out[k] = String(val);
  return out;
}
