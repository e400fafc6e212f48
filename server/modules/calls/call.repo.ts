import { type Call, type CallListQuery, callSearchMatch, reversedDigits } from '@contract/call.js';
import type { CallSortField, CallStatus, CallType } from '@contract/call-values.js';
import { CompiledQuery, type Kysely, PostgresAdapter, type Selectable, sql } from 'kysely';
import type { CallCountsTable, CallsTable, DB } from '../../platform/db/schema.js';
import { writeCallDays } from './call-analytics.repo.js';
import { ANY, type CallRow } from './call-row.js';

/**
 * Call records of a company and the call history list.
 *
 * Calls are append-only and written ONLY through `insertCalls`, which also adds them to `call_counts`:
 * per company and UTC day, the number of calls for every combination of the list's equality filters
 * (status, type, phone_number), each either a value or '*' (any). So:
 * - the total of a list filtered by any of those and a date range is a sum over at most one counts row
 *   per day, whatever the number of calls (1,000,000 calls count as fast as 10);
 * - a deep page of a time-ordered list is found day by day: the counts say on which day the page's
 *   first row falls and how many rows come before that day, so the page query starts at that day's
 *   boundary and skips only the rows of that one day instead of every row before the page.
 * Only a list with `search` (the start of the caller's number, which no summary can answer) counts its
 * rows and skips with a plain OFFSET: the search is a range of `from_number` (E.164 text, so a digit
 * prefix is a prefix of the text after '+'), read from the index (company_id, from_number, time, ...) of
 * migration 004, whose trailing columns carry the other filters: counting never reads the table.
 */

export { ANY, type CallRow };

const dayOf = (iso: string) => iso.slice(0, 10);
export const dayStart = (day: string) => `${day}T00:00:00.000Z`;
export const nextDayStart = (day: string) => new Date(Date.parse(dayStart(day)) + 86_400_000).toISOString();

/** Adds each call to the counts of its day: 8 rows per call (status, type, number each a value or ANY). */
function countsOf(rows: readonly CallRow[]): Selectable<CallCountsTable>[] {
  const byKey = new Map<string, Selectable<CallCountsTable>>();
  for (const r of rows) {
    const day = dayOf(r.time);
    for (const status of [r.status, ANY])
      for (const type of [r.type, ANY])
        for (const phone_number of [r.phone_number, ANY]) {
          const key = `${r.company_id}|${day}|${status}|${type}|${phone_number}`;
          const hit = byKey.get(key);
          if (hit) hit.calls += 1;
          else byKey.set(key, { company_id: r.company_id, day, status, type, phone_number, calls: 1 });
        }
  }
  return [...byKey.values()];
}

const CALL_COLUMNS = [
  'id',
  'company_id',
  'agent_id',
  'time',
  'from_number',
  'to_number',
  'phone_number',
  'duration',
  'type',
  'cost',
  'disconnection_reason',
  'status',
  'call_successful',
] as const satisfies readonly (keyof CallRow)[];
/** What insertCalls writes: a row's columns, its latency and its number's digits last first. */
const INSERT_COLUMNS = [...CALL_COLUMNS, 'latency_ms', 'from_digits_rev'] as const;
/** 15 columns a row: 500 rows stay under SQLite's (32,766) and PostgreSQL's (65,535) parameter limits. */
const INSERT_CHUNK = 500;
const insertTexts = new Map<string, string>();

/** `insert into calls (...) values (?, ...), ...` for `rows` rows, in the dialect's placeholders (cached). */
function insertText(rows: number, postgres: boolean): string {
  const key = `${postgres}:${rows}`;
  let text = insertTexts.get(key);
  if (!text) {
    const width = INSERT_COLUMNS.length;
    const tuples = Array.from(
      { length: rows },
      (_, r) => `(${INSERT_COLUMNS.map((_c, i) => (postgres ? `$${r * width + i + 1}` : '?')).join(', ')})`,
    );
    text = `insert into calls (${INSERT_COLUMNS.join(', ')}) values ${tuples.join(', ')}`;
    insertTexts.set(key, text);
  }
  return text;
}

async function writeCalls(db: Kysely<DB>, rows: readonly CallRow[]): Promise<void> {
  // Compiled by hand (same text for every full chunk, values bound as parameters): building a query
  // tree per row costs more than SQLite's insert itself when seeding a million calls.
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) {
    const chunk = rows.slice(i, i + INSERT_CHUNK);
    const params: unknown[] = [];
    for (const row of chunk) {
      for (const column of CALL_COLUMNS) params.push(row[column]);
      params.push(row.latency_ms ?? null, reversedDigits(row.from_number));
    }
    await db.executeQuery(CompiledQuery.raw(insertText(chunk.length, postgres), params));
  }
  const counts = countsOf(rows);
  for (let i = 0; i < counts.length; i += 2000)
    await db
      .insertInto('call_counts')
      .values(counts.slice(i, i + 2000))
      .onConflict((oc) =>
        oc
          .columns(['company_id', 'status', 'type', 'phone_number', 'day'])
          .doUpdateSet({ calls: sql<number>`call_counts.calls + excluded.calls` }),
      )
      .execute();
  await writeCallDays(db, rows);
}

/** Stores calls, their counts and their analytics rollups (call-analytics.repo.ts) together (in the caller's transaction, or in one of its own). */
export async function insertCalls(db: Kysely<DB>, rows: readonly CallRow[]): Promise<void> {
  if (rows.length === 0) return;
  if (db.isTransaction) await writeCalls(db, rows);
  else await db.transaction().execute((trx) => writeCalls(trx, rows));
}

/** How many calls the database holds, all companies (from the counts: instant at any size). */
export async function storedCallCount(db: Kysely<DB>): Promise<number> {
  const row = await db
    .selectFrom('call_counts')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('calls'), sql<number>`0`).as('n'))
    .where('status', '=', ANY)
    .where('type', '=', ANY)
    .where('phone_number', '=', ANY)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Runs `load` (a bulk insert of calls) with the secondary indexes of `calls` dropped, then rebuilds them
 * from their own stored definitions, also when `load` fails: building an index by sorting a million keys
 * once is about twice as fast as inserting them one at a time into six indexes; the planner's statistics
 * are refreshed afterwards. Meanwhile the call history of every company is slow, so this is for seeding,
 * not for a busy server.
 */
export async function withCallIndexesDeferred<T>(
  db: Kysely<DB>,
  load: () => Promise<T>,
  onRebuild?: (indexes: number) => void,
): Promise<T> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const { rows: indexes } = await (postgres
    ? sql<{ name: string; definition: string }>`select indexname as name, indexdef as definition from pg_indexes
        where schemaname = current_schema() and tablename = 'calls'
          and indexname not in (select conname from pg_constraint where conrelid = 'calls'::regclass)`
    : sql<{ name: string; definition: string }>`select name, sql as definition from sqlite_master
        where type = 'index' and tbl_name = 'calls' and sql is not null`
  ).execute(db);
  for (const index of indexes) await sql`drop index ${sql.id(index.name)}`.execute(db);
  try {
    return await load();
  } finally {
    onRebuild?.(indexes.length);
    for (const index of indexes) await sql.raw(index.definition).execute(db);
    // fresh statistics for the query planner (both databases know `analyze <table>`)
    await sql`analyze calls`.execute(db);
    // and on SQLite, fold the load's write-ahead log back into the database file (reads stay fast)
    if (!postgres) await sql`pragma wal_checkpoint(truncate)`.execute(db);
  }
}

/** Calls read per step when the analytics rollups are rebuilt (bounded memory at any size). */
const RECOUNT_CHUNK = 5000;

/**
 * Rebuilds `call_counts` and the analytics rollups (`call_days`, `call_latency_days`) of a company (or of
 * every company) from its calls. The rollups are rebuilt a chunk of calls at a time through writeCallDays,
 * the one definition of what a call adds to them.
 */
export async function recountCalls(db: Kysely<DB>, companyId?: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    for (const table of ['call_counts', 'call_days', 'call_latency_days'] as const) {
      let del = trx.deleteFrom(table);
      if (companyId) del = del.where('company_id', '=', companyId);
      await del.execute();
    }
    let after = '';
    for (;;) {
      let chunk = trx.selectFrom('calls').selectAll().where('id', '>', after).orderBy('id').limit(RECOUNT_CHUNK);
      if (companyId) chunk = chunk.where('company_id', '=', companyId);
      const rows = (await chunk.execute()) as CallRow[];
      if (rows.length === 0) break;
      await writeCallDays(trx, rows);
      after = (rows[rows.length - 1] as CallRow).id;
    }
    for (const status of [true, false])
      for (const type of [true, false])
        for (const phone of [true, false]) {
          const dim = (on: boolean, col: 'status' | 'type' | 'phone_number') => (on ? sql.ref(col) : sql.lit(ANY));
          const where = companyId ? sql`where company_id = ${companyId}` : sql``;
          const grouped = [sql.ref('company_id'), sql`substr(time, 1, 10)`];
          if (status) grouped.push(sql.ref('status'));
          if (type) grouped.push(sql.ref('type'));
          if (phone) grouped.push(sql.ref('phone_number'));
          await sql`insert into call_counts (company_id, status, type, phone_number, day, calls)
            select company_id, ${dim(status, 'status')}, ${dim(type, 'type')}, ${dim(phone, 'phone_number')}, substr(time, 1, 10), count(*)
            from calls ${where} group by ${sql.join(grouped)}`.execute(trx);
        }
  });
}

// ---------------------------------------------------------------------------------------------
// The list

export function rowToCall(row: CallRow): Call {
  return {
    _id: row.id,
    time: row.time,
    from: row.from_number,
    to: row.to_number,
    phoneNumber: row.phone_number,
    duration: Number(row.duration),
    type: row.type as CallType,
    cost: Number(row.cost),
    disconnectionReason: row.disconnection_reason,
    status: row.status as CallStatus,
    callSuccessful: Number(row.call_successful) === 1,
    agentId: row.agent_id,
  };
}

const SORT_COLUMNS = {
  time: 'time',
  duration: 'duration',
  cost: 'cost',
  status: 'status',
  from: 'from_number',
} as const satisfies Record<CallSortField, keyof CallsTable>;

/**
 * The list's total order: the requested keys (default newest first), then — unless time is one of them
 * — time in the direction opposite to the last key, then the id in time's direction. Each single-key
 * order is then one index of migration 004 read forwards or backwards (their tails are `time desc, id
 * desc`), and a key's descending order is the exact reverse of its ascending one.
 */
export function callOrder(sort: CallListQuery['sort']): [column: keyof CallsTable, desc: boolean][] {
  const keys: [keyof CallsTable, boolean][] = (sort.length > 0 ? sort : [['time', -1] as const]).map(([field, dir]) => [
    SORT_COLUMNS[field],
    dir === -1,
  ]);
  let timeDesc = keys.find(([c]) => c === 'time')?.[1];
  if (timeDesc === undefined) {
    timeDesc = !keys[keys.length - 1]![1];
    keys.push(['time', timeDesc]);
  }
  keys.push(['id', timeDesc]);
  return keys;
}

/** ISO instants: from (inclusive) and before (exclusive). */
export interface TimeRange {
  from?: string | undefined;
  before?: string | undefined;
}

/** A list request's search, read once (callSearchMatch): undefined without a search, null when nothing can match. */
type SearchMatch = ReturnType<typeof callSearchMatch> | undefined;

/**
 * The calls of the company matching the filters (everything but paging and order) within `within`;
 * `search` is the request's search as callSearchMatch read it.
 * `searchIndexed: false` words the search so that no index ranges on it (the order's index is walked).
 */
export function matching(
  db: Kysely<DB>,
  companyId: string,
  q: CallListQuery,
  within: TimeRange,
  search: SearchMatch,
  searchIndexed = true,
) {
  let qb = db.selectFrom('calls').where('company_id', '=', companyId);
  if (q.status) qb = qb.where('status', '=', q.status);
  if (q.type) qb = qb.where('type', '=', q.type);
  if (q.phoneNumber) qb = qb.where('phone_number', '=', q.phoneNumber);
  // the calls that reached a flow node: the node's rows of the company (their index), by call id
  if (q.node)
    qb = qb.where(
      'id',
      'in',
      db.selectFrom('call_flow_nodes').select('call_id').where('company_id', '=', companyId).where('node_id', '=', q.node),
    );
  // one bound each way: SQLite ranges an index on one of two upper bounds and filters by the other
  if (within.from) qb = qb.where('time', '>=', within.from);
  if (within.before) qb = qb.where('time', '<', within.before);
  if (search !== undefined) {
    const column = (name: 'from_number' | 'from_digits_rev') => (searchIndexed ? sql.ref(name) : sql`${sql.ref(name)} || ''`);
    const starts = (name: 'from_number' | 'from_digits_rev', prefix: string) =>
      sql<boolean>`(${column(name)} >= ${prefix} and ${column(name)} < ${prefixEnd(prefix)})`;
    // text without a digit starts and ends no phone number
    if (!search) qb = qb.where(sql<boolean>`1 = 0`);
    else if (!search.reversed) qb = qb.where(starts('from_number', search.prefix));
    else qb = qb.where(sql<boolean>`(${starts('from_number', search.prefix)} or ${starts('from_digits_rev', search.reversed)})`);
  }
  return qb;
}

/**
 * The end of the range of text values starting with `prefix` (digits, after a '+' or not): they lie in
 * [prefix, prefix + ':') (':' follows '9'; both databases compare the columns byte by byte: SQLite's
 * BINARY, PostgreSQL's "C" collation of migrations 004 and 009).
 */
export const prefixEnd = (prefix: string) => `${prefix}:`;

/** The counts rows matching the equality filters and the date range (one per day). */
function countsMatching(db: Kysely<DB>, companyId: string, q: CallListQuery) {
  let qb = db
    .selectFrom('call_counts')
    .where('company_id', '=', companyId)
    .where('status', '=', q.status || ANY)
    .where('type', '=', q.type || ANY)
    .where('phone_number', '=', q.phoneNumber || ANY);
  if (q.dateFrom) qb = qb.where('day', '>=', q.dateFrom);
  if (q.dateTo) qb = qb.where('day', '<=', q.dateTo);
  return qb;
}

/** Calls per day matching the equality filters and the date range, days in `desc` or ascending order. */
async function countsByDay(db: Kysely<DB>, companyId: string, q: CallListQuery, desc: boolean) {
  const rows = await countsMatching(db, companyId, q)
    .select(['day', 'calls'])
    .orderBy('day', desc ? 'desc' : 'asc')
    .execute();
  return rows.map((r) => ({ day: r.day, calls: Number(r.calls) }));
}

/** Calls matching the equality filters and the date range. */
async function countMatching(db: Kysely<DB>, companyId: string, q: CallListQuery): Promise<number> {
  const row = await countsMatching(db, companyId, q)
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('calls'), sql<number>`0`).as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Up to this many matching calls, a filtered list sorted by a non-time key sorts the matching rows. */
export const SORT_MATCHING_MAX = 50_000;
/**
 * Up to this many matching calls, a search reads its range of the caller-number index and sorts the
 * matches; beyond, the matches are dense (e.g. a company line, the caller of every outbound call) and the
 * order's own index is walked, checking the number, which reaches a page after few rows.
 */
export const SEARCH_SORT_MAX = 20_000;

const isFiltered = (q: CallListQuery) => Boolean(q.status || q.type || q.phoneNumber || q.dateFrom || q.dateTo || q.node);

/** The column as an expression with the same order that no index serves. */
const withoutIndex = (column: keyof CallsTable) =>
  column === 'duration' || column === 'cost' ? sql`${sql.ref(column)} + 0` : sql`${sql.ref(column)} || ''`;

/** One page of the company's call history (`page` zero-based) and the number of calls matching. */
export async function listCalls(
  db: Kysely<DB>,
  companyId: string,
  q: CallListQuery,
  { searchSortMax = SEARCH_SORT_MAX }: { searchSortMax?: number } = {},
): Promise<{ calls: Call[]; totalCalls: number }> {
  const order = callOrder(q.sort);
  const [firstColumn, firstDesc] = order[0]!;
  let offset = q.page * q.limit;
  const within: TimeRange = {
    from: q.dateFrom ? dayStart(q.dateFrom) : undefined,
    before: q.dateTo ? nextDayStart(q.dateTo) : undefined,
  };
  let totalCalls: number;
  const search: SearchMatch = q.search ? callSearchMatch(q.search) : undefined;

  // a search or a node counts the matching rows (the daily counts know neither)
  if (q.search || q.node) {
    const count = await matching(db, companyId, q, within, search)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    totalCalls = Number(count.n);
  } else if (firstColumn !== 'time' || offset === 0) {
    totalCalls = await countMatching(db, companyId, q);
  } else {
    const days = await countsByDay(db, companyId, q, firstDesc);
    totalCalls = days.reduce((sum, d) => sum + d.calls, 0);
    if (offset < totalCalls) {
      // skip whole days: start at the boundary of the day holding row `offset` (inside the date range)
      let before = 0;
      for (const d of days) {
        if (before + d.calls > offset) {
          if (firstDesc) within.before = nextDayStart(d.day);
          else within.from = dayStart(d.day);
          offset -= before;
          break;
        }
        before += d.calls;
      }
    }
  }
  if (q.page * q.limit >= totalCalls) return { calls: [], totalCalls };

  // A filtered list sorted by another key than time: a small filtered set is read through its filter's
  // index and sorted (the sort key is wrapped in an expression so no index offers its order); walking the
  // sort key's index instead may pass most of the table before the matching rows (e.g. failed calls,
  // which last 0 s, sorted longest first). A search likewise sorts its few matches (every key wrapped,
  // time too) or, when they are many, walks the order's index (the search worded so no index ranges on it).
  // a search for the start of a number only ('+1 415'), in number order: its range of the number's index
  // is already in that order
  const inNumberOrder = Boolean(q.search) && firstColumn === 'from_number' && !search?.reversed;
  const sortMatching = q.search
    ? !inNumberOrder && totalCalls <= searchSortMax
    : firstColumn !== 'time' && isFiltered(q) && totalCalls <= SORT_MATCHING_MAX;
  const walkOrder = Boolean(q.search) && !inNumberOrder && !sortMatching;
  let page = matching(db, companyId, q, within, search, !walkOrder).select('id');
  for (const [column, desc] of order)
    page = page.orderBy(
      sortMatching && (q.search || column !== 'time') && column !== 'id' ? withoutIndex(column) : column,
      desc ? 'desc' : 'asc',
    );
  const ids = (await page.limit(q.limit).offset(offset).execute()).map((r) => r.id);
  if (ids.length === 0) return { calls: [], totalCalls };
  // by primary key only: the ids were chosen within the company a moment ago
  const rows = await db.selectFrom('calls').selectAll().where('id', 'in', ids).execute();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return { calls: ids.flatMap((id) => (byId.has(id) ? [rowToCall(byId.get(id)!)] : [])), totalCalls };
}

/** A call session's company and recording file name (the signed recording URL checks the company). */
export function sessionRecording(db: Kysely<DB>, id: string) {
  return db.selectFrom('call_sessions').select(['company_id', 'recording']).where('id', '=', id).executeTakeFirst();
}
