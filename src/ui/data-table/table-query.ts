/**
 * The state of a server-side table as it lives in the URL:
 *
 *   ?search=nurse&sort=agent_name:asc,voice_id:desc&page=2&size=20
 *
 * - `search`: the search box text ('' = none);
 * - `sort`: `field:asc` / `field:desc`, comma-separated, first = primary ('' = the server's default order);
 * - `page`: zero-based page index (the specification: first page index 0);
 * - `size`: rows per page, one of 5, 10, 20, 30, 40, 50 (default 10).
 *
 * `tableSearchSchema({ sortFields })` is the route's `validateSearch`: every param has its own
 * `v.fallback`, so a hand-edited URL (`?page=-3&size=999&sort=bogus`) shows a valid first page instead
 * of an error, and `sort` keeps only the whitelisted fields (each once). Pair it with
 * `stripSearchParams(TABLE_QUERY_DEFAULTS)` so default values stay out of the URL:
 *
 *   export const Route = createFileRoute('/dashboard/phone-numbers')({
 *     validateSearch: tableSearchSchema({ sortFields: ['phone', 'provider'] }),
 *     search: { middlewares: [stripSearchParams(TABLE_QUERY_DEFAULTS)] },
 *     component: PhoneNumbersPage,
 *   });
 */
import * as v from 'valibot';
import { TABLE_DEFAULT_PAGE_SIZE, TABLE_FIRST_PAGE_INDEX, TABLE_PAGE_SIZE_OPTIONS } from '../constants';

export interface TableQuery {
  search: string;
  sort: string;
  page: number;
  size: number;
}

export const TABLE_QUERY_DEFAULTS: TableQuery = {
  search: '',
  sort: '',
  page: TABLE_FIRST_PAGE_INDEX,
  size: TABLE_DEFAULT_PAGE_SIZE,
};

/** Longest search text kept from a URL (the servers' search limits are 200). */
export const TABLE_SEARCH_MAX = 200;
/** Highest zero-based page a URL may ask for (the servers take 1-based pages up to 1,000,000). */
export const TABLE_PAGE_MAX = 999_999;

/** One sort key, in @tanstack/react-table's `ColumnSort` shape. */
export interface SortItem<F extends string = string> {
  id: F;
  desc: boolean;
}

/**
 * `'name:asc,voice_id:desc'` -> `[{ id: 'name', desc: false }, { id: 'voice_id', desc: true }]`.
 * Unknown fields, other directions and repeated fields are dropped (the first mention wins).
 */
export function parseSort<F extends string>(text: string, fields: readonly F[]): SortItem<F>[] {
  const out: SortItem<F>[] = [];
  for (const part of text.split(',')) {
    const m = /^\s*([^:\s]+)\s*:\s*(asc|desc)\s*$/i.exec(part);
    if (!m) continue;
    const id = m[1] as F;
    if (!fields.includes(id) || out.some((s) => s.id === id)) continue;
    out.push({ id, desc: m[2]!.toLowerCase() === 'desc' });
  }
  return out;
}

/** `[{ id: 'name', desc: false }]` -> `'name:asc'` ('' for no sort). */
export function formatSort(items: readonly SortItem[]): string {
  return items.map((s) => `${s.id}:${s.desc ? 'desc' : 'asc'}`).join(',');
}

/** The router parses `?page=2` as the number 2 and `?search=42` as 42: accept both spellings. */
const numberLike = v.pipe(
  v.union([v.number(), v.pipe(v.string(), v.regex(/^-?\d+$/))]),
  v.transform((x) => Number(x)),
);
const textLike = v.pipe(
  v.union([v.string(), v.number(), v.boolean()]),
  v.transform((x) => String(x).trim().slice(0, TABLE_SEARCH_MAX)),
);

export interface TableSearchOptions<F extends string> {
  /** The fields the server may sort by (its whitelist); anything else in `sort` is dropped. */
  sortFields: readonly F[];
}

/** The route's `validateSearch` for a table (see the top of this file). */
export function tableSearchSchema<F extends string>({ sortFields }: TableSearchOptions<F>) {
  const d = TABLE_QUERY_DEFAULTS;
  return v.object({
    search: v.fallback(v.optional(textLike, d.search), d.search),
    sort: v.fallback(
      v.optional(
        v.pipe(
          v.string(),
          v.transform((s) => formatSort(parseSort(s, sortFields))),
        ),
        d.sort,
      ),
      d.sort,
    ),
    page: v.fallback(
      v.optional(v.pipe(numberLike, v.integer(), v.minValue(TABLE_FIRST_PAGE_INDEX), v.maxValue(TABLE_PAGE_MAX)), d.page),
      d.page,
    ),
    size: v.fallback(
      v.optional(
        v.pipe(
          numberLike,
          v.check((n) => (TABLE_PAGE_SIZE_OPTIONS as readonly number[]).includes(n)),
        ),
        d.size,
      ),
      d.size,
    ),
  });
}

/** Number of pages for `total` rows (at least 1, so an empty table reads 'Page 1 of 1'). */
export const pageCount = (total: number, size: number) => Math.max(1, Math.ceil(total / size));

/** The 1-based first and last row numbers shown ('Showing x-y of N records'); 0-0 when there are none. */
export function shownRange(page: number, size: number, rowsOnPage: number): [first: number, last: number] {
  if (rowsOnPage === 0) return [0, 0];
  const first = page * size + 1;
  return [first, first + rowsOnPage - 1];
}
