import { defaultParseSearch, defaultStringifySearch } from '@tanstack/react-router';
import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { AGENT_SORT_FIELDS } from '../../src/api/contract/agent/sort';
import {
  formatSort,
  pageCount,
  parseSort,
  shownRange,
  TABLE_QUERY_DEFAULTS,
  TABLE_SEARCH_MAX,
  tableSearchSchema,
} from '../../src/ui/data-table/table-query';

const FIELDS = ['agent_name', 'voice_id', 'voice_model'] as const;
const schema = tableSearchSchema({ sortFields: FIELDS });
/** What the route sees for a URL query string: the router's own parser, then the schema. */
const fromUrl = (qs: string) => v.parse(schema, defaultParseSearch(qs));

describe('parseSort / formatSort', () => {
  it('reads field:asc / field:desc pairs in order', () => {
    expect(parseSort('agent_name:asc,voice_id:desc', FIELDS)).toEqual([
      { id: 'agent_name', desc: false },
      { id: 'voice_id', desc: true },
    ]);
    expect(parseSort(' voice_model : DESC ', FIELDS)).toEqual([{ id: 'voice_model', desc: true }]);
  });

  it('drops unknown fields, other directions, malformed parts and repeats (the first mention wins)', () => {
    expect(parseSort('bogus', FIELDS)).toEqual([]);
    expect(parseSort('password:asc,agent_name:up,voice_id', FIELDS)).toEqual([]);
    expect(parseSort('voice_id:desc,,agent_name:asc,voice_id:asc', FIELDS)).toEqual([
      { id: 'voice_id', desc: true },
      { id: 'agent_name', desc: false },
    ]);
    expect(parseSort('', FIELDS)).toEqual([]);
  });

  it('formats back to the URL form', () => {
    expect(formatSort([])).toBe('');
    expect(
      formatSort([
        { id: 'agent_name', desc: false },
        { id: 'voice_id', desc: true },
      ]),
    ).toBe('agent_name:asc,voice_id:desc');
  });

  it('round-trips any list of distinct whitelisted keys', () => {
    const key = fc.record({ id: fc.constantFrom(...AGENT_SORT_FIELDS), desc: fc.boolean() });
    fc.assert(
      fc.property(fc.uniqueArray(key, { selector: (k) => k.id }), (keys) => {
        expect(parseSort(formatSort(keys), AGENT_SORT_FIELDS)).toEqual(keys);
      }),
    );
  });
});

describe('tableSearchSchema', () => {
  it('gives the defaults for an empty query (first page, 10 rows, no sort, no search)', () => {
    expect(fromUrl('')).toEqual({ search: '', sort: '', page: 0, size: 10 });
    expect(TABLE_QUERY_DEFAULTS).toEqual({ search: '', sort: '', page: 0, size: 10 });
  });

  it('reads a valid query', () => {
    expect(fromUrl('search=nurse&sort=agent_name%3Aasc%2Cvoice_id%3Adesc&page=2&size=20')).toEqual({
      search: 'nurse',
      sort: 'agent_name:asc,voice_id:desc',
      page: 2,
      size: 20,
    });
  });

  it('?page=-3&size=999&sort=bogus shows a valid first page instead of an error', () => {
    expect(fromUrl('page=-3&size=999&sort=bogus')).toEqual({ search: '', sort: '', page: 0, size: 10 });
  });

  it('each param falls back on its own; the others are kept', () => {
    expect(fromUrl('page=1.5&size=20&sort=voice_id:desc,nope:asc&search=x')).toEqual({
      search: 'x',
      sort: 'voice_id:desc',
      page: 0,
      size: 20,
    });
    expect(fromUrl('page=abc&size=7')).toMatchObject({ page: 0, size: 10 });
    expect(fromUrl('page=%7B%22a%22%3A1%7D&size=%5B5%5D')).toMatchObject({ page: 0, size: 10 });
    expect(fromUrl('page=1000000')).toMatchObject({ page: 0 });
    for (const size of [5, 10, 20, 30, 40, 50]) expect(fromUrl(`size=${size}`).size).toBe(size);
  });

  it('a search the router reads as a number or boolean stays text; a long one is cut to the limit', () => {
    expect(fromUrl('search=123').search).toBe('123');
    expect(fromUrl('search=true').search).toBe('true');
    expect(fromUrl(`search=${'a'.repeat(300)}`).search).toHaveLength(TABLE_SEARCH_MAX);
    expect(fromUrl('search=%7B%22a%22%3A1%7D').search).toBe('');
  });

  it('what the table writes, the schema reads back unchanged', () => {
    const query = { search: '42', sort: 'voice_model:asc,agent_name:desc', page: 3, size: 50 };
    expect(fromUrl(defaultStringifySearch(query).slice(1))).toEqual(query);
  });

  it('never throws, whatever the URL', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom('search', 'sort', 'page', 'size', 'x'), fc.jsonValue()), (raw) => {
        const out = v.parse(schema, raw);
        expect(out.page).toBeGreaterThanOrEqual(0);
        expect([5, 10, 20, 30, 40, 50]).toContain(out.size);
        expect(parseSort(out.sort, FIELDS).length).toBe(out.sort === '' ? 0 : out.sort.split(',').length);
      }),
    );
  });
});

describe('footer arithmetic', () => {
  it("pages and the 'Showing x-y' range", () => {
    expect(pageCount(25, 5)).toBe(5);
    expect(pageCount(25, 10)).toBe(3);
    expect(pageCount(0, 10)).toBe(1);
    expect(shownRange(0, 10, 10)).toEqual([1, 10]);
    expect(shownRange(2, 10, 5)).toEqual([21, 25]);
    expect(shownRange(0, 10, 0)).toEqual([0, 0]);
  });
});
