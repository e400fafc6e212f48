/**
 * The queries of phone calls through the carriers (server/modules/telephony/service.ts): the companies'
 * numbers by carrier, and the carrier's side of a call row (`provider`, `provider_call_id`,
 * `provider_status`, `answered_by`, the stream token). A carrier's webhook names a call by Parley's id and
 * is checked against that call's company (its signature); every write is scoped to the company.
 */
import type { Kysely } from 'kysely';
import type { DB } from '../../platform/db/schema.js';

/** The number `phone` of the carrier `provider`, when a company has it. */
export function numberByPhone(db: Kysely<DB>, phone: string, provider: string) {
  return db
    .selectFrom('phone_numbers')
    .selectAll()
    .where('phone_number', '=', phone)
    .where('provider', '=', provider)
    .where('company_id', 'is not', null)
    .executeTakeFirst();
}

/** The company's number `phone`. */
export function companyNumber(db: Kysely<DB>, companyId: string, phone: string) {
  return db
    .selectFrom('phone_numbers')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('phone_number', '=', phone)
    .executeTakeFirst();
}

/** The company's call with the carrier's id `carrierCallId` (one at most: a unique index, migration 017). */
export function callOfCarrier(db: Kysely<DB>, companyId: string, carrierCallId: string) {
  return db
    .selectFrom('call_sessions')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('provider_call_id', '=', carrierCallId)
    .executeTakeFirst();
}

/** The call `callId` of the carrier `provider` (whose company the caller then checks the request against). */
export async function carrierCall(db: Kysely<DB>, callId: string, provider: string) {
  const row = await db.selectFrom('call_sessions').selectAll().where('id', '=', callId).executeTakeFirst();
  return row?.provider === provider ? row : undefined;
}

type Row = { id: string; company_id: string };

/** The carrier's id and status of a call it just placed (the id only when none was recorded yet). */
export async function recordDial(db: Kysely<DB>, row: Row, placed: { callId?: string; status: string }) {
  let q = db
    .updateTable('call_sessions')
    .set(placed.callId ? { provider_call_id: placed.callId, provider_status: placed.status } : { provider_status: placed.status })
    .where('id', '=', row.id)
    .where('company_id', '=', row.company_id);
  if (placed.callId) q = q.where('provider_call_id', 'is', null);
  await q.execute();
}

/** What a status callback (or the stream's start, or an answer callback) said about the call. */
export async function recordCarrierState(
  db: Kysely<DB>,
  row: Row,
  state: { providerCallId?: string; providerStatus?: string; answeredBy?: string },
) {
  const set = {
    ...(state.providerStatus ? { provider_status: state.providerStatus } : {}),
    ...(state.answeredBy ? { answered_by: state.answeredBy } : {}),
    ...(state.providerCallId ? { provider_call_id: state.providerCallId } : {}),
  };
  if (Object.keys(set).length === 0) return;
  await db.updateTable('call_sessions').set(set).where('id', '=', row.id).where('company_id', '=', row.company_id).execute();
}

/** Drops a call's stream token (a carrier that learns its stream when the call is answered gets a new one then). */
export async function clearStreamToken(db: Kysely<DB>, row: Row) {
  await db
    .updateTable('call_sessions')
    .set({ token_hash: null, token_expires_at: null })
    .where('id', '=', row.id)
    .where('company_id', '=', row.company_id)
    .execute();
}

/** Sets a call's stream token when it is still waiting for its stream and has none. */
export async function setStreamToken(db: Kysely<DB>, row: Row, tokenHash: string, expiresAt: Date) {
  await db
    .updateTable('call_sessions')
    .set({ token_hash: tokenHash, token_expires_at: expiresAt.toISOString() })
    .where('id', '=', row.id)
    .where('company_id', '=', row.company_id)
    .where('status', '=', 'registered')
    .where('token_hash', 'is', null)
    .execute();
}

/** Phone calls of the carriers `providers` still waiting for their stream, created before `before`. */
export function callsAwaitingCarrier(db: Kysely<DB>, providers: string[], before: Date, limit: number) {
  return db
    .selectFrom('call_sessions')
    .selectAll()
    .where('status', '=', 'registered')
    .where('type', 'in', ['inbound', 'outbound'])
    .where('provider', 'in', providers)
    .where('provider_call_id', 'is not', null)
    .where('created_at', '<', before.toISOString())
    .orderBy('created_at')
    .limit(limit)
    .execute();
}
