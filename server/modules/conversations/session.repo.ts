/**
 * Storage of the conversations the engine runs (table call_sessions, migration 012). Every query is scoped
 * by company. When a conversation ends, its summary is appended to `calls` through insertCalls in the same
 * transaction, so Call History lists it (with exact counts) as soon as its row says it ended.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AgentDoc } from '@contract/agent/save.js';
import type { CallUsage, FlowPathStep, TranscriptTurn, TurnLatency } from '@contract/call-runtime.js';
import type { CallStatus, CallType } from '@contract/call-values.js';
import { type Kysely, type Selectable, sql } from 'kysely';
import { contentPolicy, keptTranscript, keptVariables } from '../../platform/call-content.js';
import { newId } from '../../platform/crypto/ids.js';
import { parseJson } from '../../platform/db/json.js';
import type { CallSessionsTable, DB } from '../../platform/db/schema.js';
import { insertCalls } from '../calls/index.js';

export type CallSessionRow = Selectable<CallSessionsTable>;

export interface NewCallSession {
  /** the row's id when the caller needs it first (a carrier call's stream token is derived from it) */
  id?: string;
  companyId: string;
  accountId: string | null;
  agentId: string | null;
  /** the agent's document the call runs (none for a call refused before it had an agent) */
  agent: AgentDoc | null;
  type: CallType;
  /** phone calls: the carrier and its id of the call (a status callback finds the call by it) */
  provider?: string;
  providerCallId?: string | null;
  from: string;
  to: string;
  phoneNumber: string;
  variables: Record<string, string>;
  /** a web call's one-time socket token (only its hash is stored) */
  token?: { value: string; expiresAt: Date };
  transcript?: TranscriptTurn[];
  now: Date;
}

export const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
export const newToken = () => randomBytes(32).toString('base64url');

export async function createCallSession(db: Kysely<DB>, s: NewCallSession): Promise<CallSessionRow> {
  const now = s.now.toISOString();
  const row: CallSessionRow = {
    id: s.id ?? newId(s.now),
    company_id: s.companyId,
    account_id: s.accountId,
    agent_id: s.agentId,
    agent_name: s.agent?.name ?? '',
    agent: JSON.stringify(s.agent ?? {}),
    type: s.type,
    from_number: s.from,
    to_number: s.to,
    phone_number: s.phoneNumber,
    status: s.type === 'chat' ? 'ongoing' : 'registered',
    dynamic_variables: JSON.stringify(s.variables),
    started_at: s.type === 'chat' ? now : null,
    ended_at: null,
    disconnection_reason: '',
    error_message: null,
    transcript: JSON.stringify(s.transcript ?? []),
    latency: '[]',
    usage: '{}',
    cost: 0,
    recording: null,
    token_hash: s.token ? hashToken(s.token.value) : null,
    token_expires_at: s.token ? s.token.expiresAt.toISOString() : null,
    server_id: null,
    heartbeat_at: null,
    created_at: now,
    updated_at: now,
    provider: s.provider ?? '',
    provider_call_id: s.providerCallId ?? null,
    provider_status: null,
    answered_by: null,
    content_deleted_at: null,
    flow_path: '[]',
    flow_state: null,
  };
  await db.insertInto('call_sessions').values(row).execute();
  return row;
}

export function getCallSession(db: Kysely<DB>, companyId: string, id: string) {
  return db.selectFrom('call_sessions').selectAll().where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst();
}

/**
 * Takes a web call's one-time token: true once, for the right token before it expires (the hash is
 * cleared in the same conditional update, so two sockets racing with one token cannot both win).
 */
export async function claimCallToken(db: Kysely<DB>, id: string, token: string, now: Date, serverId: string) {
  const row = await db
    .selectFrom('call_sessions')
    .select(['token_hash', 'token_expires_at', 'company_id', 'status'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row?.token_hash || !row.token_expires_at || row.status !== 'registered') return undefined;
  const given = Buffer.from(hashToken(token), 'hex');
  const stored = Buffer.from(row.token_hash, 'hex');
  if (given.length !== stored.length || !timingSafeEqual(given, stored)) return undefined;
  if (Date.parse(row.token_expires_at) <= now.getTime()) return undefined;
  const res = await db
    .updateTable('call_sessions')
    .set({
      token_hash: null,
      token_expires_at: null,
      status: 'ongoing',
      started_at: now.toISOString(),
      server_id: serverId,
      heartbeat_at: now.toISOString(),
      updated_at: now.toISOString(),
    })
    .where('id', '=', id)
    .where('token_hash', '=', row.token_hash)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) !== 1) return undefined;
  return getCallSession(db, row.company_id, id);
}

/**
 * A live call's progress, saved after each turn: the transcript and latency, the usage and cost measured so
 * far, and the heartbeat (the last moment the call was known alive). A server that dies mid-call leaves
 * these, and the call is stored from them (server/modules/conversations/recovery.ts).
 */
export async function saveProgress(
  db: Kysely<DB>,
  companyId: string,
  id: string,
  p: {
    transcript: TranscriptTurn[];
    latency: TurnLatency[];
    usage: CallUsage;
    cost: number;
    now: Date;
    /** a conversation-flow call's path so far (a call recovered after a crash is stored with it) */
    flowPath?: FlowPathStep[];
  },
) {
  await db
    .updateTable('call_sessions')
    .set({
      transcript: JSON.stringify(p.transcript),
      latency: JSON.stringify(p.latency),
      usage: JSON.stringify(p.usage),
      cost: p.cost,
      heartbeat_at: p.now.toISOString(),
      updated_at: p.now.toISOString(),
      ...(p.flowPath ? { flow_path: JSON.stringify(p.flowPath) } : {}),
    })
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .where('status', '=', 'ongoing')
    .execute();
}

/**
 * Takes an ongoing chat for one reply on server `serverId`: only when no server holds it, or its holder's
 * heartbeat is older than `staleBefore`. True when taken.
 */
export async function lockChat(
  db: Kysely<DB>,
  companyId: string,
  id: string,
  serverId: string,
  now: Date,
  staleBefore: Date,
): Promise<boolean> {
  const res = await db
    .updateTable('call_sessions')
    .set({ heartbeat_at: now.toISOString(), server_id: serverId })
    .where('id', '=', id)
    .where('company_id', '=', companyId)
    .where('status', '=', 'ongoing')
    .where((eb) => eb.or([eb('heartbeat_at', 'is', null), eb('heartbeat_at', '<', staleBefore.toISOString())]))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Lets go of a chat taken by `lockChat` (only if this server still holds it). */
export async function releaseChat(db: Kysely<DB>, companyId: string, id: string, serverId: string): Promise<void> {
  await db
    .updateTable('call_sessions')
    .set({ heartbeat_at: null })
    .where('id', '=', id)
    .where('company_id', '=', companyId)
    .where('server_id', '=', serverId)
    .execute();
}

/** Saves a chat's transcript, latency, usage and cost after a turn that did not end it. */
export async function saveChatTurn(
  db: Kysely<DB>,
  companyId: string,
  id: string,
  p: {
    transcript: TranscriptTurn[];
    latency: TurnLatency[];
    usage: CallUsage;
    cost: number;
    now: Date;
    /** a conversation-flow chat: its path so far, and its flow run's state for the next message */
    flow?: { path: FlowPathStep[]; state: unknown };
  },
): Promise<void> {
  await db
    .updateTable('call_sessions')
    .set({
      transcript: JSON.stringify(p.transcript),
      latency: JSON.stringify(p.latency),
      usage: JSON.stringify(p.usage),
      cost: p.cost,
      updated_at: p.now.toISOString(),
      ...(p.flow ? { flow_path: JSON.stringify(p.flow.path), flow_state: JSON.stringify(p.flow.state) } : {}),
    })
    .where('id', '=', id)
    .where('company_id', '=', companyId)
    .execute();
}

/** Calls of the company that hold a line now (phone calls and web calls), for the concurrency limit. */
export async function liveCalls(db: Kysely<DB>, companyId: string): Promise<number> {
  const row = await db
    .selectFrom('call_sessions')
    .select(sql<number>`count(*)`.as('n'))
    .where('company_id', '=', companyId)
    .where('status', 'in', ['registered', 'ongoing'])
    .where('type', 'in', ['inbound', 'outbound', 'web'])
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * A batch of this server's ongoing calls (web and phone) that it no longer runs (`live`: the ids it does):
 * what a previous process of this server died with. Every company's: the server owns them.
 */
export function orphanedCalls(db: Kysely<DB>, serverId: string, live: readonly string[], limit: number) {
  let query = db
    .selectFrom('call_sessions')
    .selectAll()
    .where('server_id', '=', serverId)
    .where('status', '=', 'ongoing')
    .where('type', 'in', ['web', 'inbound', 'outbound']);
  if (live.length > 0) query = query.where('id', 'not in', live);
  return query.limit(limit).execute();
}

/**
 * The oldest phone calls (Twilio, Plivo) still `registered` that were created before `before`, whatever the
 * company: those a carrier may have ended while no server listened.
 */
export function unansweredCarrierCalls(db: Kysely<DB>, before: Date, limit: number) {
  return db
    .selectFrom('call_sessions')
    .selectAll()
    .where('status', '=', 'registered')
    .where('type', 'in', ['inbound', 'outbound'])
    .where('provider', 'in', ['twilio', 'plivo'])
    .where('provider_call_id', 'is not', null)
    .where('created_at', '<', before.toISOString())
    .orderBy('created_at')
    .limit(limit)
    .execute();
}

export interface CallEnd {
  /** ended | error; a phone call never connected: busy | no-answer | failed | canceled */
  status: Extract<CallStatus, 'ended' | 'error' | 'busy' | 'no-answer' | 'failed' | 'canceled'>;
  reason: string;
  errorMessage: string | null;
  transcript: TranscriptTurn[];
  latency: TurnLatency[];
  usage: CallUsage;
  cost: number;
  recording: string | null;
  endedAt: Date;
  /** a conversation-flow call's path (else the one saved with the row is kept) */
  flowPath?: FlowPathStep[];
}

/**
 * Ends a conversation once: its row, and its summary appended to `calls`. False if it had already ended.
 * The content is stored as the agent's storage level keeps it (server/platform/call-content.ts), whoever
 * ends the call (the engine, a chat, the sweep, the carrier, a recovery).
 */
export async function finishCallSession(db: Kysely<DB>, row: CallSessionRow, end: CallEnd): Promise<boolean> {
  const policy = contentPolicy(row.agent, row.dynamic_variables);
  const transcript = keptTranscript(end.transcript, policy);
  const variables = keptVariables(parseJson<Record<string, string>>(row.dynamic_variables, {}), policy);
  const path = end.flowPath ?? parseJson<FlowPathStep[]>(row.flow_path, []);
  return db.transaction().execute(async (trx) => {
    const endedAt = end.endedAt.toISOString();
    const res = await trx
      .updateTable('call_sessions')
      .set({
        status: end.status,
        ended_at: endedAt,
        disconnection_reason: end.reason,
        error_message: end.errorMessage,
        transcript: JSON.stringify(transcript),
        dynamic_variables: JSON.stringify(variables),
        latency: JSON.stringify(end.latency),
        usage: JSON.stringify(end.usage),
        cost: end.cost,
        recording: policy.record ? end.recording : null,
        token_hash: null,
        updated_at: endedAt,
        flow_path: JSON.stringify(path),
        // the flow run's state holds extracted values: not kept once the call is over
        flow_state: null,
      })
      .where('company_id', '=', row.company_id)
      .where('id', '=', row.id)
      .where('status', 'in', ['registered', 'ongoing'])
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) !== 1) return false;
    const nodes = [...new Set(path.map((step) => step.node_id))];
    if (nodes.length > 0)
      await trx
        .insertInto('call_flow_nodes')
        .values(nodes.map((node_id) => ({ company_id: row.company_id, call_id: row.id, node_id })))
        .onConflict((oc) => oc.doNothing())
        .execute();
    const started = row.started_at ? Date.parse(row.started_at) : end.endedAt.getTime();
    await insertCalls(trx, [
      {
        id: row.id,
        company_id: row.company_id,
        agent_id: row.agent_id,
        time: row.started_at ?? endedAt,
        from_number: row.from_number,
        to_number: row.to_number,
        phone_number: row.phone_number,
        duration: Math.max(0, Math.round((end.endedAt.getTime() - started) / 1000)),
        type: row.type,
        cost: end.cost,
        disconnection_reason: end.reason,
        status: end.status,
        call_successful: 0,
        latency_ms: medianLatency(end.latency),
      },
    ]);
    return true;
  });
}

/** A call's typical response latency: the median of its agent turns' latency (ms), null without one. */
export function medianLatency(latency: readonly TurnLatency[]): number | null {
  const totals = latency.map((l) => l.total_ms).sort((a, b) => a - b);
  if (totals.length === 0) return null;
  const mid = totals.length >> 1;
  return Math.round(totals.length % 2 ? totals[mid]! : (totals[mid - 1]! + totals[mid]!) / 2);
}

export { parseJson };
