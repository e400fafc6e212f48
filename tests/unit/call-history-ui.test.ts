import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { callListParams, callSearchPrefix, hasCallFilters } from '../../src/api/contract/call.js';
import { callHistorySearchSchema } from '../../src/routes/dashboard/-components/call-history/call-search.js';
import { defaultLayout, sanitizeLayout } from '../../src/routes/dashboard/-components/call-history/column-layout.js';

const parse = (search: Record<string, unknown>) => v.parse(callHistorySearchSchema, search);
const TABLE = { search: '', sort: '', page: 0, size: 10 };

describe('the Call History URL', () => {
  it('keeps valid filters, table state and sort fields of the calls API', () => {
    expect(
      parse({
        dateFrom: '2026-11-01',
        dateTo: '2026-11-30',
        phoneNumber: '+14155550100',
        type: 'inbound',
        status: 'no-answer',
        search: 415,
        sort: 'duration:desc,agent:asc,time:asc',
        page: '2',
        size: 20,
      }),
    ).toEqual({
      dateFrom: '2026-11-01',
      dateTo: '2026-11-30',
      phoneNumber: '+14155550100',
      type: 'inbound',
      status: 'no-answer',
      search: '415',
      sort: 'duration:desc,time:asc',
      page: 2,
      size: 20,
    });
  });

  it('keeps a flow node id (?node=) and drops one that is not an id', () => {
    expect(parse({ node: 'book-visit_2' }).node).toBe('book-visit_2');
    expect(parse({ node: 'a.b' }).node).toBeUndefined();
    expect(parse({ node: 'x'.repeat(65) }).node).toBeUndefined();
    expect(callListParams({ node: 'book' })).toEqual({ node: 'book' });
  });

  it('drops each bad value on its own and turns a reversed range round', () => {
    expect(
      parse({
        dateFrom: '2026-02-30',
        dateTo: '11/30/2026',
        phoneNumber: 'reception',
        type: 'sideways',
        status: 'done',
        page: -1,
      }),
    ).toEqual({ ...TABLE, dateFrom: undefined, dateTo: undefined, phoneNumber: undefined, type: undefined, status: undefined });
    expect(parse({ dateFrom: '2026-11-30', dateTo: '2026-11-01' })).toMatchObject({
      dateFrom: '2026-11-01',
      dateTo: '2026-11-30',
    });
    // the router reads ?phoneNumber=4155550100 as a number
    expect(parse({ phoneNumber: 4155550100 }).phoneNumber).toBe('4155550100');
  });

  it("'Filters Applied' counts the date range and every dialog filter, not the search", () => {
    expect(hasCallFilters(parse({ search: '415', sort: 'time:asc' }))).toBe(false);
    for (const f of [
      { dateFrom: '2026-11-01' },
      { dateTo: '2026-11-01' },
      { phoneNumber: '+14155550100' },
      { type: 'outbound' },
      { status: 'busy' },
    ])
      expect(hasCallFilters(parse(f)), JSON.stringify(f)).toBe(true);
  });
});

describe('the caller-number search prefix', () => {
  it('reads digits with or without +1, formatting ignored', () => {
    expect(callSearchPrefix('415 555')).toBe('+1415555');
    expect(callSearchPrefix('(415) 555-0123')).toBe('+14155550123');
    expect(callSearchPrefix('1 415')).toBe('+1415');
    expect(callSearchPrefix('+44 20')).toBe('+4420');
    expect(callSearchPrefix('no digits')).toBeNull();
  });
});

describe('the remembered column layout', () => {
  const ids = ['time', 'from', 'duration', 'cost'];
  it('keeps a stored order and hidden columns, dropping unknown ids and appending new columns', () => {
    expect(sanitizeLayout({ order: ['cost', 'gone', 'time', 'cost'], hidden: ['from', 'gone'] }, ids)).toEqual({
      order: ['cost', 'time', 'from', 'duration'],
      hidden: ['from'],
    });
  });
  it('never hides every column and survives junk', () => {
    expect(sanitizeLayout({ order: ids, hidden: ids }, ids)).toEqual(defaultLayout(ids));
    for (const junk of [null, 'x', 42, { order: 'time' }, []]) expect(sanitizeLayout(junk, ids)).toEqual(defaultLayout(ids));
  });
});
