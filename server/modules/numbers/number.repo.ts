import {
  type FreeNumber,
  type PhoneListQuery,
  type PhoneNumber,
  type PhoneNumberCreateBody,
  type PhoneNumberUpdateBody,
  type PhoneProvider,
  type PhoneSortField,
  prettyPhoneNumber,
  searchDigits,
} from '@contract/phone.js';
import { type Kysely, type Selectable, sql } from 'kysely';
import { newId } from '../../platform/crypto/ids.js';
import type { DB, PhoneNumbersTable } from '../../platform/db/schema.js';
import { likeContains } from '../../platform/http/list-query.js';

/**
 * Phone numbers of the platform: the free pool (company_id null) and each company's numbers. Every
 * function that reads or writes a company's number takes the company id from the caller's token and
 * scopes the query by it, so another company's number is "not found" exactly like a missing one.
 */

type NumberRow = Selectable<PhoneNumbersTable>;
type NumberRowWithAgents = NumberRow & { inbound_agent_name: string | null; outbound_agent_name: string | null };

export function rowToPhoneNumber(row: NumberRowWithAgents): PhoneNumber {
  return {
    _id: row.id,
    phone: row.phone_number,
    provider: row.provider as PhoneProvider,
    phone_number: row.phone_number,
    phone_number_type: row.phone_number_type,
    phone_number_pretty: row.phone_number_pretty,
    nickname: row.nickname ?? '',
    assistantId: row.assistant_id ?? '',
    termination_uri: row.termination_uri,
    area_code: row.area_code === null ? null : Number(row.area_code),
    inbound_agent_id: row.inbound_agent_id,
    outbound_agent_id: row.outbound_agent_id,
    inbound_agent_name: row.inbound_agent_name,
    outbound_agent_name: row.outbound_agent_name,
    accountId: row.account_id ?? '',
    companyId: row.company_id ?? '',
    origin: row.origin,
    assignedAt: row.assigned_at ?? row.created_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The SIP trunk address the platform routes a pool number through. */
export const defaultTerminationUri = (provider: string) =>
  provider === 'plivo' ? 'parley-voice.sip.plivo.com' : 'parley-voice.pstn.twilio.com';

/** A free number of the pool. */
export function poolNumberRow(p: {
  phone: string;
  provider: PhoneProvider;
  type: string;
  areaCode: number | null;
  now: Date;
}): NumberRow {
  const at = p.now.toISOString();
  return {
    id: newId(p.now),
    company_id: null,
    account_id: null,
    origin: 'pool',
    phone_number: p.phone,
    provider: p.provider,
    phone_number_type: p.type,
    phone_number_pretty: prettyPhoneNumber(p.phone),
    area_code: p.areaCode,
    nickname: null,
    termination_uri: defaultTerminationUri(p.provider),
    assistant_id: null,
    inbound_agent_id: null,
    outbound_agent_id: null,
    assigned_at: null,
    carrier_ref: null,
    carrier_previous: null,
    created_at: at,
    updated_at: at,
  };
}

/** Inserts numbers, skipping any whose phone_number exists already; answers how many were added. */
export async function insertNumberRows(db: Kysely<DB>, rows: NumberRow[]): Promise<number> {
  let added = 0;
  for (let i = 0; i < rows.length; i += 500) {
    const res = await db
      .insertInto('phone_numbers')
      .values(rows.slice(i, i + 500))
      .onConflict((oc) => oc.column('phone_number').doNothing())
      .executeTakeFirst();
    added += Number(res.numInsertedOrUpdatedRows ?? 0);
  }
  return added;
}

// ---------------------------------------------------------------------------------------------
// Lists

const SORT_COLUMNS = {
  phone: 'phone_number',
  provider: 'provider',
  nickname: 'nickname',
  assignedAt: 'assigned_at',
} as const satisfies Record<PhoneSortField, keyof PhoneNumbersTable>;

function baseOf(db: Kysely<DB>, companyId: string | null, search: string) {
  let base = db.selectFrom('phone_numbers as p');
  base = companyId === null ? base.where('p.company_id', 'is', null) : base.where('p.company_id', '=', companyId);
  if (search) {
    const digits = searchDigits(search);
    base = base.where((eb) =>
      eb.or([
        ...(digits ? [eb('p.phone_number', 'like', likeContains(digits))] : []),
        sql<boolean>`lower(coalesce(p.nickname, '')) like ${likeContains(search.toLowerCase())} escape '\\'`,
      ]),
    );
  }
  return base;
}

/** The requested page of `qb`: ordered by the sort keys, then by number (unique), so pages never overlap. */
function pageOf<QB extends { orderBy: (...a: never[]) => unknown }>(qb: QB, q: PhoneListQuery): QB {
  type Orderable = {
    orderBy(col: string, dir: 'asc' | 'desc'): Orderable;
    limit(n: number): Orderable;
    offset(n: number): Orderable;
  };
  let out = qb as unknown as Orderable;
  for (const [field, dir] of q.sort) out = out.orderBy(`p.${SORT_COLUMNS[field]}`, dir === 1 ? 'asc' : 'desc');
  if (!q.sort.some(([f]) => f === 'phone')) out = out.orderBy('p.phone_number', 'asc');
  return out.limit(q.limit).offset(q.page * q.limit) as unknown as QB;
}

/** The page's rows and the number of rows of the whole list, read together. */
async function withTotal<R>(page: { execute(): Promise<R[]> }, base: ReturnType<typeof baseOf>) {
  const [rows, count] = await Promise.all([
    page.execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** The company's numbers with the names of their agents. */
const withAgentNames = (base: ReturnType<typeof baseOf>) =>
  base
    .leftJoin('agents as ai', 'ai.id', 'p.inbound_agent_id')
    .leftJoin('agents as ao', 'ao.id', 'p.outbound_agent_id')
    .selectAll('p')
    .select(['ai.agent_name as inbound_agent_name', 'ao.agent_name as outbound_agent_name']);

/** One page of the company's numbers (the Assigned tab, GET /number). `page` is zero-based. */
export async function listCompanyNumbers(
  db: Kysely<DB>,
  companyId: string,
  q: PhoneListQuery,
): Promise<{ numbers: PhoneNumber[]; total: number }> {
  const base = baseOf(db, companyId, q.search);
  const { rows, total } = await withTotal(pageOf(withAgentNames(base), q), base);
  return { numbers: rows.map(rowToPhoneNumber), total };
}

/** One page of the free pool, `requested` set on the numbers `companyId` has asked for. */
export async function listFreeNumbers(
  db: Kysely<DB>,
  companyId: string,
  q: PhoneListQuery,
): Promise<{ numbers: FreeNumber[]; total: number }> {
  const base = baseOf(db, null, q.search);
  const page = base
    .leftJoin('number_requests as r', (j) =>
      j.onRef('r.phone_number_id', '=', 'p.id').on('r.company_id', '=', companyId).on('r.granted_at', 'is', null),
    )
    .select([
      'p.id',
      'p.phone_number',
      'p.provider',
      'p.phone_number_pretty',
      'p.phone_number_type',
      'p.area_code',
      'r.id as request_id',
    ]);
  const { rows, total } = await withTotal(pageOf(page, q), base);
  return {
    numbers: rows.map((r) => ({
      _id: r.id,
      phone: r.phone_number,
      provider: r.provider as PhoneProvider,
      phone_number_pretty: r.phone_number_pretty,
      phone_number_type: r.phone_number_type,
      area_code: r.area_code === null ? null : Number(r.area_code),
      requested: r.request_id !== null,
    })),
    total,
  };
}

// ---------------------------------------------------------------------------------------------
// One number

export async function findCompanyNumber(db: Kysely<DB>, companyId: string, id: string): Promise<PhoneNumber | undefined> {
  const row = await withAgentNames(baseOf(db, companyId, ''))
    .where('p.id', '=', id)
    .executeTakeFirst();
  return row && rowToPhoneNumber(row);
}

/** The ids among `ids` that are NOT agents of the company. */
export async function foreignAgents(db: Kysely<DB>, companyId: string, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const found = await db.selectFrom('agents').select('id').where('company_id', '=', companyId).where('id', 'in', ids).execute();
  const known = new Set(found.map((a) => a.id));
  return ids.filter((id) => !known.has(id));
}

/** Adds a number the company brings itself; null when the number is already on the platform. */
export async function createCompanyNumber(
  db: Kysely<DB>,
  p: { companyId: string; accountId: string; body: PhoneNumberCreateBody; now: Date },
): Promise<PhoneNumber | 'taken' | 'vanished'> {
  const at = p.now.toISOString();
  const { body } = p;
  const id = newId(p.now);
  const res = await db
    .insertInto('phone_numbers')
    .values({
      id,
      company_id: p.companyId,
      account_id: p.accountId,
      origin: 'company',
      phone_number: body.phone_number,
      provider: body.provider,
      phone_number_type: body.phone_number_type,
      phone_number_pretty: body.phone_number_pretty,
      area_code: body.area_code ?? null,
      nickname: body.nickname ?? null,
      termination_uri: body.termination_uri,
      assistant_id: body.assistantId ?? null,
      inbound_agent_id: body.inbound_agent_id ?? null,
      outbound_agent_id: body.outbound_agent_id ?? null,
      assigned_at: at,
      created_at: at,
      updated_at: at,
    })
    .onConflict((oc) => oc.column('phone_number').doNothing())
    .executeTakeFirst();
  if (Number(res.numInsertedOrUpdatedRows ?? 0) === 0) return 'taken';
  // stored, then gone before the read: deleted at once, or with its company
  return (await findCompanyNumber(db, p.companyId, id)) ?? 'vanished';
}

export type NumberUpdateResult =
  | { kind: 'updated'; number: PhoneNumber }
  | { kind: 'not_found' }
  | { kind: 'pool_number_fixed' }
  | { kind: 'taken' };

/**
 * Applies a partial update. Setting an agent in one direction clears the other direction unless the
 * body sets it too (the contract already refused a body with both): a number has one agent at most.
 */
export async function updateCompanyNumber(
  db: Kysely<DB>,
  companyId: string,
  id: string,
  body: PhoneNumberUpdateBody,
  now: Date,
): Promise<NumberUpdateResult> {
  const outcome = await db.transaction().execute(async (trx): Promise<NumberUpdateResult | { kind: 'ok' }> => {
    const row = await trx
      .selectFrom('phone_numbers')
      .select(['origin', 'phone_number'])
      .where('company_id', '=', companyId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return { kind: 'not_found' };
    const changes: Partial<NumberRow> = { updated_at: now.toISOString() };
    if (body.phone_number !== undefined && body.phone_number !== row.phone_number) {
      if (row.origin === 'pool') return { kind: 'pool_number_fixed' };
      const other = await trx
        .selectFrom('phone_numbers')
        .select('id')
        .where('phone_number', '=', body.phone_number)
        .executeTakeFirst();
      if (other) return { kind: 'taken' };
      changes.phone_number = body.phone_number;
    }
    if (body.phone_number_type !== undefined) changes.phone_number_type = body.phone_number_type;
    if (body.phone_number_pretty !== undefined) changes.phone_number_pretty = body.phone_number_pretty;
    if (body.termination_uri !== undefined) changes.termination_uri = body.termination_uri;
    if (body.assistantId !== undefined) changes.assistant_id = body.assistantId;
    if (body.nickname !== undefined) changes.nickname = body.nickname;
    if (body.area_code !== undefined) changes.area_code = body.area_code;
    if (body.inbound_agent_id !== undefined) changes.inbound_agent_id = body.inbound_agent_id;
    if (body.outbound_agent_id !== undefined) changes.outbound_agent_id = body.outbound_agent_id;
    // one direction at a time: the direction set now wins over the stored other one
    if (body.inbound_agent_id && body.outbound_agent_id === undefined) changes.outbound_agent_id = null;
    if (body.outbound_agent_id && body.inbound_agent_id === undefined) changes.inbound_agent_id = null;
    await trx.updateTable('phone_numbers').set(changes).where('company_id', '=', companyId).where('id', '=', id).execute();
    return { kind: 'ok' };
  });
  if (outcome.kind !== 'ok') return outcome;
  const number = await findCompanyNumber(db, companyId, id);
  return number ? { kind: 'updated', number } : { kind: 'not_found' };
}

/**
 * Removes a number from the company: a pool number goes back to the pool (its company settings reset,
 * its requests forgotten so any company may ask for it again); a company's own number is deleted.
 * Null when the company has no such number.
 */
/** Which of `phones` are on the platform already (any company's, or the pool's). */
export async function numbersOnPlatform(db: Kysely<DB>, phones: string[]): Promise<Set<string>> {
  if (phones.length === 0) return new Set();
  const rows = await db.selectFrom('phone_numbers').select('phone_number').where('phone_number', 'in', phones).execute();
  return new Set(rows.map((r) => r.phone_number));
}

/** A number imported from the company's carrier account, with what the carrier had before. */
export async function createImportedNumber(
  db: Kysely<DB>,
  p: {
    companyId: string;
    accountId: string;
    phone: string;
    provider: PhoneProvider;
    ref: string;
    previous: string;
    inboundAgentId: string | null;
    now: Date;
  },
): Promise<PhoneNumber | 'taken'> {
  const at = p.now.toISOString();
  const id = newId(p.now);
  const north = /^\+1(\d{3})\d{7}$/.exec(p.phone);
  const res = await db
    .insertInto('phone_numbers')
    .values({
      id,
      company_id: p.companyId,
      account_id: p.accountId,
      origin: 'company',
      phone_number: p.phone,
      provider: p.provider,
      phone_number_type: 'local',
      phone_number_pretty: prettyPhoneNumber(p.phone),
      area_code: north ? Number(north[1]) : null,
      nickname: null,
      termination_uri: defaultTerminationUri(p.provider),
      assistant_id: null,
      inbound_agent_id: p.inboundAgentId,
      outbound_agent_id: null,
      assigned_at: at,
      created_at: at,
      updated_at: at,
      carrier_ref: p.ref,
      carrier_previous: p.previous,
    })
    .onConflict((oc) => oc.column('phone_number').doNothing())
    .executeTakeFirst();
  if (Number(res.numInsertedOrUpdatedRows ?? 0) === 0) return 'taken';
  return (await findCompanyNumber(db, p.companyId, id)) ?? 'taken';
}

/** What the carrier had before an imported number of the company was pointed at Parley (null for others). */
export function importedNumberOrigin(db: Kysely<DB>, companyId: string, id: string) {
  return db
    .selectFrom('phone_numbers')
    .select(['provider', 'carrier_ref', 'carrier_previous'])
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function deleteCompanyNumber(
  db: Kysely<DB>,
  companyId: string,
  id: string,
  now: Date,
): Promise<{ released: boolean } | null> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('phone_numbers')
      .select('origin')
      .where('company_id', '=', companyId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return null;
    if (row.origin === 'company') {
      await trx.deleteFrom('phone_numbers').where('company_id', '=', companyId).where('id', '=', id).execute();
      return { released: false };
    }
    await releasePoolNumbers(trx, companyId, now, id);
    return { released: true };
  });
}

/**
 * Returns a company's pool numbers (one, or all of them) to the free pool with their settings reset, and
 * forgets every request for them, so any company may ask for them again. Run inside a transaction.
 */
export async function releasePoolNumbers(trx: Kysely<DB>, companyId: string, now: Date, id?: string): Promise<number> {
  let query = trx
    .selectFrom('phone_numbers')
    .select(['id', 'provider', 'phone_number'])
    .where('company_id', '=', companyId)
    .where('origin', '=', 'pool');
  if (id !== undefined) query = query.where('id', '=', id);
  const rows = await query.execute();
  for (const row of rows) {
    await trx.deleteFrom('number_requests').where('phone_number_id', '=', row.id).execute();
    await trx
      .updateTable('phone_numbers')
      .set({
        company_id: null,
        account_id: null,
        nickname: null,
        assistant_id: null,
        inbound_agent_id: null,
        outbound_agent_id: null,
        phone_number_pretty: prettyPhoneNumber(row.phone_number),
        termination_uri: defaultTerminationUri(row.provider),
        assigned_at: null,
        updated_at: now.toISOString(),
      })
      .where('company_id', '=', companyId)
      .where('id', '=', row.id)
      .execute();
  }
  return rows.length;
}
