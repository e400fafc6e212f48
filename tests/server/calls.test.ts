import type { Kysely } from 'kysely';
import * as v from 'valibot';
import { expect, it } from 'vitest';
import {
  type CallRow,
  insertCalls,
  listCalls,
  prefixEnd,
  recountCalls,
  rowToCall,
} from '../../server/modules/calls/call.repo.js';
import { seededRng } from '../../server/modules/company/call-generator.js';
import { addPoolNumbers, seedCalls } from '../../server/modules/company/workspace.js';
import { migrations } from '../../server/platform/db/migrations/index.js';
import {
  type Call,
  type CallListParams,
  CallListQuerySchema,
  CallListResponseSchema,
  callListParams,
  callSearchPrefix,
} from '../../src/api/contract/call.js';
import { CALL_STATUSES, type CallSortField } from '../../src/api/contract/call-values.js';
import { searchDigits } from '../../src/api/contract/phone.js';
import { type SignedUp, signUp } from './auth-helpers.js';
import { describeEachDb, freshDatabase, type TestApp, useTestApp } from './helpers.js';
import { api } from './phone-helpers.js';

const list = (t: TestApp, token: string, q: Record<string, string>) =>
  api(t, 'GET', `/call/?${new URLSearchParams(q)}`, { token });

/** The contract's order, written out independently: keys, then time opposite to the last key, then id with time. */
function expectedPage(all: Call[], q: CallListParams): { ids: string[]; total: number } {
  // a search: the start of the number (with its +1 rule), or, unless it starts with '+', its last digits
  const prefix = callSearchPrefix(q.search ?? '');
  const digits = searchDigits(q.search ?? '');
  const endsWith = (from: string) => !(q.search ?? '').trim().startsWith('+') && from.replace(/\D/g, '').endsWith(digits);
  const matching = all.filter(
    (c) =>
      (!q.status || c.status === q.status) &&
      (!q.type || c.type === q.type) &&
      (!q.phoneNumber || c.phoneNumber === q.phoneNumber) &&
      (!q.dateFrom || c.time.slice(0, 10) >= q.dateFrom) &&
      (!q.dateTo || c.time.slice(0, 10) <= q.dateTo) &&
      (!q.search || (prefix !== null && (c.from.startsWith(prefix) || endsWith(c.from)))),
  );
  const keys: [keyof Call, 1 | -1][] = (q.sort?.length ? q.sort : [['time', -1] as [CallSortField, -1]]).map(([f, d]) => [
    f === 'from' ? 'from' : f,
    d,
  ]);
  if (!keys.some(([k]) => k === 'time')) keys.push(['time', keys[keys.length - 1]![1] === 1 ? -1 : 1]);
  keys.push(['_id', keys.find(([k]) => k === 'time')![1]]);
  const cmp = (a: Call, b: Call) => {
    for (const [k, d] of keys) {
      const x = a[k] as string | number;
      const y = b[k] as string | number;
      if (x < y) return -d;
      if (x > y) return d;
    }
    return 0;
  };
  const sorted = matching.sort(cmp);
  const page = q.page ?? 0;
  const limit = q.limit ?? 10;
  return { ids: sorted.slice(page * limit, (page + 1) * limit).map((c) => c._id), total: matching.length };
}

/** A company with 3 numbers and ~900 generated calls over 20 days, and every call of it. */
async function companyWithCalls(t: TestApp, count = 900) {
  const user = await signUp(t);
  const rng = seededRng(42);
  const lines = await addPoolNumbers(t.deps.db.db, {
    count: 3,
    now: t.clock.now(),
    rng,
    owner: { companyId: user.companyId, accountId: user.accountId },
  });
  await seedCalls(t.deps.db.db, { companyId: user.companyId, count, days: 20, now: t.clock.now(), rng, batchSize: 250 });
  const rows = await t.deps.db.db.selectFrom('calls').selectAll().where('company_id', '=', user.companyId).execute();
  return { user, lines: lines.map((l) => l.phone), all: rows.map(rowToCall) };
}

async function expectPage(t: TestApp, user: SignedUp, all: Call[], q: CallListParams) {
  const res = await list(t, user.token, callListParams(q));
  expect(res.status, JSON.stringify(q)).toBe(200);
  expect(v.safeParse(CallListResponseSchema, res.body).success).toBe(true);
  const want = expectedPage(all, q);
  expect(res.body.data.pagination, JSON.stringify(q)).toEqual({
    totalCalls: want.total,
    page: q.page ?? 0,
    limit: q.limit ?? 10,
  });
  expect(
    (res.body.data.calls as Call[]).map((c) => c._id),
    JSON.stringify(q),
  ).toEqual(want.ids);
  return res.body.data.calls as Call[];
}

const call = (companyId: string, over: Partial<CallRow> & { id: string; time: string }): CallRow => ({
  company_id: companyId,
  agent_id: null,
  from_number: '+14155550100',
  to_number: '+13125550100',
  phone_number: '+13125550100',
  duration: 60,
  type: 'inbound',
  cost: 0.081,
  disconnection_reason: 'user_hangup',
  status: 'ended',
  call_successful: 0,
  ...over,
});

describeEachDb('call history', (kind) => {
  const t = useTestApp(kind);

  it('answers the first page newest first with the total, in the contract shape', async () => {
    const { user, all } = await companyWithCalls(t());
    expect(all).toHaveLength(900);
    const calls = await expectPage(t(), user, all, {});
    expect(calls).toHaveLength(10);
    expect(Object.keys(calls[0]!).sort()).toEqual(
      [
        '_id',
        'agentId',
        'callSuccessful',
        'cost',
        'disconnectionReason',
        'duration',
        'from',
        'phoneNumber',
        'status',
        'time',
        'to',
        'type',
      ].sort(),
    );
    // every page, then past the end
    for (const page of [1, 2, 45, 89, 90, 200]) await expectPage(t(), user, all, { page });
    for (const limit of [1, 7, 100]) await expectPage(t(), user, all, { page: 3, limit });
  });

  it('filters by each filter alone and combined, at every depth', async () => {
    const { user, all, lines } = await companyWithCalls(t());
    const days = [...new Set(all.map((c) => c.time.slice(0, 10)))].sort();
    const from = days[4]!;
    const to = days[9]!;
    const cases: CallListParams[] = [
      ...CALL_STATUSES.map((status) => ({ status })),
      { type: 'inbound' },
      { type: 'outbound' },
      ...lines.map((phoneNumber) => ({ phoneNumber })),
      { dateFrom: from },
      { dateTo: to },
      { dateFrom: from, dateTo: to },
      { dateFrom: from, dateTo: from },
      { search: all[0]!.from },
      { search: '415' },
      { search: 'no digits' },
      { status: 'completed', dateFrom: from, dateTo: to },
      { status: 'ended', type: 'outbound', phoneNumber: lines[0] },
      { status: 'completed', type: 'inbound', phoneNumber: lines[1], dateFrom: from, dateTo: to, search: '2' },
    ];
    for (const q of cases) for (const page of [0, 1, 3]) await expectPage(t(), user, all, { ...q, page, limit: 7 });
    // a phone number in any formatting
    const pretty = lines[0]!.replace(/^\+1(\d{3})(\d{3})(\d{4})$/, '($1) $2-$3');
    const res = await list(t(), user.token, { phoneNumber: pretty });
    expect(res.body.data.pagination.totalCalls).toBe(all.filter((c) => c.phoneNumber === lines[0]).length);
    // the phone-number filter covers both directions of the line
    const onLine = all.filter((c) => c.phoneNumber === lines[0]);
    expect(onLine.some((c) => c.type === 'inbound' && c.to === lines[0])).toBe(true);
    expect(onLine.some((c) => c.type === 'outbound' && c.from === lines[0])).toBe(true);
  });

  it('sorts by every whitelisted field in both directions, alone, with filters and with a second key', async () => {
    const { user, all } = await companyWithCalls(t());
    const fields: CallSortField[] = ['time', 'duration', 'cost', 'status', 'from'];
    for (const f of fields)
      for (const d of [1, -1] as const) {
        for (const page of [0, 4, 60]) await expectPage(t(), user, all, { sort: [[f, d]], page });
        await expectPage(t(), user, all, { sort: [[f, d]], status: 'completed', page: 2 });
        await expectPage(t(), user, all, { sort: [[f, d]], type: 'outbound', page: 1 });
      }
    await expectPage(t(), user, all, {
      sort: [
        ['status', 1],
        ['duration', -1],
      ],
      page: 3,
    });
    await expectPage(t(), user, all, {
      sort: [
        ['duration', -1],
        ['time', 1],
      ],
      page: 5,
    });
    await expectPage(t(), user, all, { sort: [['time', 1]], page: 70, dateFrom: all[0]!.time.slice(0, 10) });
    // 'sorted by duration' really is by duration
    const longest = (await list(t(), user.token, { sort: '{"duration":-1}', limit: '50' })).body.data.calls as Call[];
    expect(longest.map((c) => c.duration)).toEqual([...longest.map((c) => c.duration)].sort((a, b) => b - a));
  });

  it('searches the start or the end of the caller number, with or without +1, formatting ignored', async () => {
    const { companyId, token } = await signUp(t());
    const other = await signUp(t());
    const at = (h: number) => `2026-11-10T${String(h).padStart(2, '0')}:00:00.000Z`;
    await insertCalls(t().deps.db.db, [
      call(companyId, { id: 'a'.repeat(24), time: at(1), from_number: '+14155550123', duration: 30 }),
      call(companyId, { id: 'b'.repeat(24), time: at(2), from_number: '+14155559999', duration: 90, status: 'failed' }),
      call(companyId, { id: 'c'.repeat(24), time: at(3), from_number: '+14165550123', duration: 60 }),
      call(companyId, { id: 'd'.repeat(24), time: at(4), from_number: '+442079460000', duration: 10 }),
      call(companyId, { id: 'e'.repeat(24), time: at(5), from_number: '+12125550123', duration: 20 }),
      call(other.companyId, { id: 'f'.repeat(24), time: at(6), from_number: '+14155550123' }),
    ]);
    const ids = async (q: Record<string, string>) => {
      const res = await list(t(), token, q);
      expect(res.status, JSON.stringify(q)).toBe(200);
      const found = (res.body.data.calls as Call[]).map((c) => c._id[0]).join('');
      if (!q.page) expect(res.body.data.pagination.totalCalls, JSON.stringify(q)).toBe(found.length);
      return found;
    };
    expect(await ids({ search: '415 555' })).toBe('ba');
    expect(await ids({ search: '(415) 555-0123' })).toBe('a');
    expect(await ids({ search: '1 415' })).toBe('ba');
    expect(await ids({ search: '+1 (415)' })).toBe('ba');
    expect(await ids({ search: '+14155550123' })).toBe('a');
    expect(await ids({ search: '41' })).toBe('cba');
    expect(await ids({ search: '212-555' })).toBe('e');
    expect(await ids({ search: '+44 20 7946' })).toBe('d');
    // without '+', digits not starting with 1 are a North American number
    expect(await ids({ search: '4420' })).toBe('');
    // the end of the number: its last digits, formatting ignored
    expect(await ids({ search: '5550123' })).toBe('eca');
    expect(await ids({ search: '0123' })).toBe('eca');
    expect(await ids({ search: '555-9999' })).toBe('b');
    expect(await ids({ search: '0000' })).toBe('d');
    expect(await ids({ search: '9946 0000' })).toBe('');
    expect(await ids({ search: '79460000' })).toBe('d');
    // text starting with '+' is the start of a number only
    expect(await ids({ search: '+0123' })).toBe('');
    // neither start nor end: not any part of it
    expect(await ids({ search: '5550' })).toBe('');
    expect(await ids({ search: 'reception' })).toBe('');
    expect(await ids({ search: '' })).toBe('edcba');
    // with a filter, a sort and paging
    expect(await ids({ search: '415', status: 'ended' })).toBe('a');
    expect(await ids({ search: '41', sort: '{"duration":-1}' })).toBe('bca');
    expect(await ids({ search: '41', sort: '{"duration":1}', limit: '2', page: '1' })).toBe('b');
    expect((await list(t(), token, { search: '41', limit: '2', page: '1' })).body.data.pagination.totalCalls).toBe(3);
    expect(await ids({ search: '1', sort: '{"from":1}' })).toBe('eabc');
    // the other company's call never shows
    expect(await ids({ search: '+14155550123', limit: '100' })).toBe('a');
    // a start and an end in one search, sorted and paged
    expect(await ids({ search: '0123', sort: '{"from":1}' })).toBe('eac');
    expect(await ids({ search: '0123', sort: '{"duration":-1}', limit: '1', page: '1' })).toBe('a');
    expect(prefixEnd('+1415')).toBe('+1415:');
  });

  it('pages a search the same whether it sorts its matches or walks the order index (few or many matches)', async () => {
    const { user, all, lines } = await companyWithCalls(t());
    const db = t().deps.db.db;
    const searches = [lines[0]!, lines[1]!.slice(0, 6), '2', '+1', all[3]!.from.slice(-4), all[7]!.from.slice(-2)];
    const sorts = [
      [],
      [['time', 1]],
      [['duration', -1]],
      [['cost', 1]],
      [['status', -1]],
      [['from', 1]],
      [['from', -1]],
    ] as CallListParams['sort'][];
    for (const search of searches)
      for (const sort of sorts)
        for (const page of [0, 2]) {
          const q = v.parse(CallListQuerySchema, callListParams({ search, sort, page, limit: 7 }));
          const want = expectedPage(all, { search, sort, page, limit: 7 });
          expect(want.total, search).toBeGreaterThan(0);
          for (const searchSortMax of [0, 1_000_000]) {
            const got = await listCalls(db, user.companyId, q, { searchSortMax });
            expect(
              { ids: got.calls.map((c) => c._id), total: got.totalCalls },
              JSON.stringify({ search, sort, page, searchSortMax }),
            ).toEqual(want);
          }
        }
  });

  it('takes date ranges as whole UTC days, inclusive at both ends', async () => {
    const { companyId, token } = await signUp(t());
    await insertCalls(t().deps.db.db, [
      call(companyId, { id: 'a'.repeat(24), time: '2026-10-31T23:59:59.999Z' }),
      call(companyId, { id: 'b'.repeat(24), time: '2026-11-01T00:00:00.000Z' }),
      call(companyId, { id: 'c'.repeat(24), time: '2026-11-01T23:59:59.999Z' }),
      call(companyId, { id: 'd'.repeat(24), time: '2026-11-02T00:00:00.000Z' }),
      call(companyId, { id: 'e'.repeat(24), time: '2026-11-30T12:00:00.000Z' }),
    ]);
    const ids = async (q: Record<string, string>) => {
      const res = await list(t(), token, q);
      expect(res.status).toBe(200);
      return { ids: (res.body.data.calls as Call[]).map((c) => c._id[0]).join(''), total: res.body.data.pagination.totalCalls };
    };
    expect(await ids({ dateFrom: '2026-11-01', dateTo: '2026-11-01' })).toEqual({ ids: 'cb', total: 2 });
    expect(await ids({ dateFrom: '2026-11-01' })).toEqual({ ids: 'edcb', total: 4 });
    expect(await ids({ dateTo: '2026-11-01' })).toEqual({ ids: 'cba', total: 3 });
    expect(await ids({ dateFrom: '2026-11-02', dateTo: '2026-11-29' })).toEqual({ ids: 'd', total: 1 });
    expect(await ids({ dateFrom: '2026-12-01' })).toEqual({ ids: '', total: 0 });
    // the deep-page seek lands on the right row at a day boundary
    expect(await ids({ page: '2', limit: '1' })).toEqual({ ids: 'c', total: 5 });
    expect(await ids({ page: '3', limit: '1', sort: '{"time":1}' })).toEqual({ ids: 'd', total: 5 });
  });

  it('refuses bad parameters with 400 and a message naming them', async () => {
    const { token } = await signUp(t());
    const bad: [Record<string, string>, string][] = [
      [{ dateFrom: '2026-13-01' }, 'dateFrom'],
      [{ dateFrom: '2026-02-30' }, 'dateFrom'],
      [{ dateTo: '01/11/2026' }, 'dateTo'],
      [{ dateFrom: '2026-11-02', dateTo: '2026-11-01' }, 'dateFrom'],
      [{ type: 'sideways' }, 'type'],
      [{ status: 'done' }, 'status'],
      [{ status: 'ENDED' }, 'status'],
      [{ phoneNumber: 'reception' }, 'phoneNumber'],
      [{ sort: '{"agentId":1}' }, 'sort'],
      [{ sort: '{"time":0}' }, 'sort'],
      [{ sort: 'time:desc' }, 'sort'],
      [{ page: '-1' }, 'page'],
      [{ page: '1.5' }, 'page'],
      [{ limit: '0' }, 'limit'],
      [{ limit: '101' }, 'limit'],
      [{ search: '1'.repeat(51) }, 'search'],
    ];
    for (const [q, name] of bad) {
      const res = await list(t(), token, q);
      expect(res.status, JSON.stringify(q)).toBe(400);
      expect(res.body.success).toBe(false);
      expect(res.body.msg, JSON.stringify(q)).toContain(`'${name}'`);
      expect(res.body.errors[name]).toBeTruthy();
    }
    expect((await list(t(), token, { dateFrom: '2026-02-30' })).body.msg).toBe(
      "Invalid query parameter 'dateFrom': expected a date as yyyy-MM-dd",
    );
    // empty values are "not set"
    expect((await list(t(), token, { dateFrom: '', status: '', type: '', sort: '', page: '', limit: '' })).status).toBe(200);
  });

  it('shows a company only its own calls and counts', async () => {
    const { user, all } = await companyWithCalls(t(), 300);
    const other = await signUp(t());
    await insertCalls(t().deps.db.db, [call(other.companyId, { id: 'f'.repeat(24), time: '2026-11-20T10:00:00.000Z' })]);
    const mine = await list(t(), other.token, {});
    expect(mine.body.data.pagination.totalCalls).toBe(1);
    expect((mine.body.data.calls as Call[]).map((c) => c._id)).toEqual(['f'.repeat(24)]);
    const theirs = await list(t(), other.token, { phoneNumber: all[0]!.phoneNumber, page: '0' });
    expect(theirs.body.data).toEqual({ calls: [], pagination: { totalCalls: 0, page: 0, limit: 10 } });
    expect((await list(t(), user.token, {})).body.data.pagination.totalCalls).toBe(300);
    expect((await list(t(), user.token, { search: '1' })).body.data.calls.every((c: Call) => c._id !== 'f'.repeat(24))).toBe(
      true,
    );
  });

  it('keeps the call counts exactly what the calls say', async () => {
    const { user } = await companyWithCalls(t(), 500);
    const snapshot = async () =>
      (
        await t()
          .deps.db.db.selectFrom('call_counts')
          .selectAll()
          .where('company_id', '=', user.companyId)
          .orderBy('status')
          .orderBy('type')
          .orderBy('phone_number')
          .orderBy('day')
          .execute()
      ).map((r) => ({ ...r, calls: Number(r.calls) }));
    const maintained = await snapshot();
    expect(maintained.length).toBeGreaterThan(0);
    await recountCalls(t().deps.db.db, user.companyId);
    expect(await snapshot()).toEqual(maintained);
    const all = maintained.filter((r) => r.status === '*' && r.type === '*' && r.phone_number === '*');
    expect(all.reduce((s, r) => s + r.calls, 0)).toBe(500);
  });
});

describeEachDb('migration 009 (the end of a caller number)', (kind) => {
  it('fills the reversed digits of the calls stored before it, in batches', async () => {
    const old = await freshDatabase(kind, { migrate: false });
    try {
      const names = Object.keys(migrations).sort();
      const before = names.slice(0, names.indexOf('009_call_number_ends'));
      for (const name of before) await migrations[name]!.up(old.db);
      await old.db
        .insertInto('companies')
        .values({ id: 'c1', name: 'Acme Health', created_at: new Date().toISOString() })
        .execute();
      // more rows than one batch of the SQLite backfill (500), with numbers of every length
      const rows = Array.from({ length: 1203 }, (_, i) =>
        call('c1', {
          id: String(i).padStart(24, '0'),
          time: `2026-11-10T00:00:00.${String(i % 1000).padStart(3, '0')}Z`,
          from_number: `+${String(1_000_003 * (i + 1)).padStart(7 + (i % 6), '9')}`,
        }),
      );
      // the database as it was before 009: no from_digits_rev column yet
      const before009 = old.db as unknown as Kysely<Record<string, CallRow>>;
      for (let i = 0; i < rows.length; i += 200)
        await before009
          .insertInto('calls')
          .values(rows.slice(i, i + 200))
          .execute();
      await migrations['009_call_number_ends']!.up(old.db);
      const stored = await old.db.selectFrom('calls').select(['id', 'from_number', 'from_digits_rev']).orderBy('id').execute();
      expect(stored).toHaveLength(1203);
      for (const r of stored) expect(r.from_digits_rev, r.from_number).toBe([...r.from_number.slice(1)].reverse().join(''));
      expect(stored[0]!.from_digits_rev).toBe('3000001');
    } finally {
      await old.close();
    }
  });
});
