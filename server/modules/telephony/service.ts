/**
 * Phone calls on the call engine, for every carrier of the registry (server/carriers/registry.ts) through
 * the Carrier interface (server/carriers/types.ts): the carrier carries the call and streams its audio to
 * Parley over a WebSocket; the conversation is the same callSession actor as a web call's
 * (server/modules/conversations/runtime.ts runLineCall), on the carriers' one stream transport
 * (server/carriers/stream.ts) speaking the carrier's dialect.
 *
 * - Inbound: the carrier's signed inbound webhook -> the number (by `To`) -> its company's carrier account
 *   (the request signed with its credentials; a nonce seen before is a replay) -> limits (no inbound agent,
 *   concurrency, spend: a short spoken message and the call stored with that reason) -> the agent's Inbound
 *   Call Webhook (dynamic variables, 2 s) -> a call row with a one-time stream token -> the carrier's stream
 *   markup whose URL carries the token in its path.
 * - Outbound: `POST /call/create` -> the same checks -> the carrier's API with the stream (or, for carriers
 *   that learn it when the call is answered, the answer URL), the status callback and answering-machine
 *   detection -> the row follows the signed status callbacks.
 * - A live call: hang-up, transfer_call and the voicemail message go through the carrier's API (a redirect
 *   to markup, inline or at the instructions URL); a warm transfer_call through the carrier's warmTransfer
 *   (a consult leg, then both legs in one conference room).
 * - The stream's WebSocket upgrade is signed by the carrier and takes the one-time token (stream.routes.ts).
 * The URLs are built in paths.ts, the SQL is in telephony.repo.ts. docs/telephony.md tells it all.
 */

import { createHmac } from 'node:crypto';
import type { AgentDoc } from '@contract/agent/save.js';
import type { CallStatus } from '@contract/call-values.js';
import { destinationRefusal } from '@contract/destinations.js';
import type { ProviderName } from '@contract/provider.js';
import { PROVIDERS_PAGE } from '@contract/provider-keys.js';
import {
  type CreatePhoneCallBody,
  INBOUND_STREAM_TOKEN_TTL_MS,
  INBOUND_WEBHOOK_TIMEOUT_MS,
  OUTBOUND_STREAM_TOKEN_TTL_MS,
  TELEPHONY_MESSAGES,
} from '@contract/telephony.js';
import * as v from 'valibot';
import type WebSocket from 'ws';
import { carriers } from '../../carriers/registry.js';
import { CarrierStreamTransport, START_TIMEOUT_MS } from '../../carriers/stream.js';
import { type Carrier, CarrierApiError, type CarrierRequest, type CarrierRest, type DialEnd } from '../../carriers/types.js';
import { isId, newId } from '../../platform/crypto/ids.js';
import { parseJson } from '../../platform/db/json.js';
import type { PhoneNumbersTable } from '../../platform/db/schema.js';
import { type AppDeps, realHttpClient } from '../../platform/deps.js';
import { isUniqueViolation } from '../../platform/http/db-errors.js';
import { HttpError } from '../../platform/http/http.js';
import { guardedFetch } from '../../platform/net/net-guard.js';
import { readWhole as readCapped } from '../../platform/net/read-capped.js';
import { pipelineOf, requiredProviders } from '../../voice/engine/pipeline.js';
import { agentDocOrUndefined } from '../../voice/engine/plan.js';
import { fillVariables } from '../../voice/engine/text.js';
import { docOf, findAgent } from '../agents/index.js';
import { allowedCountries } from '../billing/index.js';
import {
  announceCall,
  type Caller,
  type CallRuntime,
  type CallSessionRow,
  callRuntime,
  claimCallToken,
  createCallSession,
  emptyUsage,
  finishCallSession,
  getCallSession,
  hashToken,
  keysFor,
  liveCalls,
  newToken,
  overSpend,
  refuseOverSpend,
  reserveLine,
  runLineCall,
  takeLine,
} from '../conversations/index.js';
import { connectionByProvider, openField } from '../providers/index.js';
import { firstUseOfNonce } from './nonces.repo.js';
import { carrierPaths, publicBase, publicWsBase } from './paths.js';
import {
  callOfCarrier,
  carrierCall,
  clearStreamToken,
  companyNumber,
  numberByPhone,
  recordCarrierState,
  recordDial,
  setStreamToken,
} from './telephony.repo.js';

export { publicBase, publicWsBase };

const now = (deps: AppDeps) => deps.clock.now();

/** What a carrier's webhook answers: a status and a body (its markup, or nothing). */
export interface CarrierAnswer {
  status: number;
  body: string;
  contentType: string;
}

const markup = (carrier: Carrier, body: string): CarrierAnswer => ({
  status: 200,
  body,
  contentType: carrier.markup.contentType,
});
export const forbidden: CarrierAnswer = { status: 403, body: 'Forbidden', contentType: 'text/plain' };
const badRequest: CarrierAnswer = { status: 400, body: 'Bad Request', contentType: 'text/plain' };
const noContent: CarrierAnswer = { status: 204, body: '', contentType: 'text/plain' };

type NumberRow = PhoneNumbersTable;

// ---------------------------------------------------------------------------------------------
// The company's carrier account

/** The company's account with `carrier` (its credentials in Providers), or undefined when not connected. */
export async function carrierAccount(deps: AppDeps, carrier: Carrier, companyId: string): Promise<unknown> {
  // a carrier's id is its Providers name (a carrier outside the catalogue simply has no connection)
  const row = await connectionByProvider(deps, companyId, carrier.id as ProviderName);
  if (!row) return undefined;
  return carrier.account((field) => openField(deps, row, field));
}

/** 400 naming the carrier to connect, with the link to the Providers page (the UI shows it as the error). */
const notConnected = (carrier: Carrier, extra: Record<string, unknown> = {}) =>
  new HttpError(400, TELEPHONY_MESSAGES.notConnected(carrier.label), {
    ...extra,
    problem: { provider: carrier.id, message: TELEPHONY_MESSAGES.notConnected(carrier.label), link: PROVIDERS_PAGE },
  });

/**
 * Throws 400 (the message names the carrier and the Providers page) unless the carrier of the company's
 * number `phone` is connected, so that calls from it can be placed: a batch call is refused before it is
 * sent or scheduled rather than failing every dial. `field` names the form field the error belongs to.
 */
export async function requireConnectedCarrier(deps: AppDeps, companyId: string, phone: string, field?: string) {
  const number = await companyNumber(deps.db.db, companyId, phone);
  if (!number) throw new HttpError(404, TELEPHONY_MESSAGES.numberNotFound);
  const errors = (msg: string) => (field ? { errors: { [field]: msg } } : {});
  const carrier = carriers.get(number.provider);
  if (!carrier) throw new HttpError(400, TELEPHONY_MESSAGES.unsupportedProvider, errors(TELEPHONY_MESSAGES.unsupportedProvider));
  if ((await carrierAccount(deps, carrier, companyId)) === undefined)
    throw notConnected(carrier, errors(TELEPHONY_MESSAGES.notConnected(carrier.label)));
}

/** The carrier's REST API with the company's `account`. */
export const carrierRest = (deps: AppDeps, carrier: Carrier, account: unknown): CarrierRest =>
  carrier.rest(account, {
    http: deps.http ?? realHttpClient,
    baseUrl: (deps.config.telephonyUrls as Record<string, string | undefined> | undefined)?.[carrier.id] ?? carrier.apiUrl,
  });

/**
 * The company's account when the request is the carrier's: signed with the account's credentials, and
 * (for carriers that send one) a nonce never seen before: a request sent again is a replay. Undefined (and
 * a log line naming no secret) otherwise.
 */
async function verified(deps: AppDeps, carrier: Carrier, companyId: string, req: CarrierRequest, where: string) {
  const account = await carrierAccount(deps, carrier, companyId);
  const verdict = account === undefined ? { ok: false as const } : carrier.verify(account, req);
  if (!verdict.ok) {
    deps.logger.warn(`${carrier.id} request refused: bad signature`, { where });
    return undefined;
  }
  if (verdict.nonce !== undefined && !(await firstUseOfNonce(deps, companyId, carrier.id, verdict.nonce))) {
    deps.logger.warn(`${carrier.id} request refused: its nonce was used before (a replay)`, { where });
    return undefined;
  }
  return account;
}

/** A webhook request as the carrier made it: the public URL it called, and its form parameters. */
export interface WebhookRequest {
  /** the path and query the carrier called */
  path: string;
  body: string;
  header(name: string): string | undefined;
}

/** The form parameters of a carrier's request, in order (duplicates kept: carriers sign them all). */
export const formPairs = (body: string): [string, string][] => [...new URLSearchParams(body)];

const signedRequest = (deps: AppDeps, req: WebhookRequest): CarrierRequest => ({
  url: `${publicBase(deps)}${req.path}`,
  method: 'POST',
  params: formPairs(req.body),
  header: req.header,
});

export async function agentDoc(deps: AppDeps, companyId: string, agentId: string | null) {
  if (!agentId) return undefined;
  const saved = await findAgent(deps.db.db, companyId, agentId);
  if (!saved) return undefined;
  return {
    agentId: saved._id,
    doc: docOf({ ...saved, settings: saved.settings, editor: saved.editor } as Parameters<typeof docOf>[0]),
  };
}

/** The count of live calls, shared with web calls (server/modules/conversations/limits.ts); kept here for its importers. */
export { liveCalls };

/** Variables every phone call's prompt may use, under the caller's own. */
export function phoneVariables(deps: AppDeps, given: Record<string, string>, from: string, to: string, direction: string) {
  return {
    current_time: now(deps).toISOString(),
    call_type: 'phone_call',
    direction,
    from_number: from,
    to_number: to,
    ...given,
  };
}

const WEBHOOK_ANSWER_MAX_BYTES = 64 * 1024;

const DynamicVariablesAnswer = v.object({
  call_inbound: v.optional(v.object({ dynamic_variables: v.optional(v.record(v.string(), v.unknown())) })),
  dynamic_variables: v.optional(v.record(v.string(), v.unknown())),
});

/**
 * The agent's Inbound Call Webhook: `POST {event: 'call_inbound', call_inbound: {agent_id, from_number,
 * to_number}}`; the answer's `call_inbound.dynamic_variables` (or `dynamic_variables`) become the call's
 * variables. 2 s at most; a timeout, an error, a private address or an odd answer: the call goes on without.
 */
export async function inboundWebhookVariables(
  deps: AppDeps,
  url: string,
  body: { agent_id: string; from_number: string; to_number: string },
): Promise<Record<string, string>> {
  if (!url) return {};
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), INBOUND_WEBHOOK_TIMEOUT_MS);
  try {
    const res = await guardedFetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ event: 'call_inbound', call_inbound: body }),
      signal: controller.signal,
      publicOnly: deps.config.allowPrivateWebhookUrls !== true,
    });
    if (!res.ok) {
      deps.logger.info('inbound call webhook answered an error', { status: res.status });
      return {};
    }
    const text = await readCapped(res, WEBHOOK_ANSWER_MAX_BYTES);
    if (text === undefined) return {};
    const parsed = v.safeParse(DynamicVariablesAnswer, JSON.parse(text));
    if (!parsed.success) return {};
    const vars = parsed.output.call_inbound?.dynamic_variables ?? parsed.output.dynamic_variables ?? {};
    const out: Record<string, string> = {};
    for (const [k, val] of Object.entries(vars).slice(0, 100))
      if (typeof val === 'string' || typeof val === 'number' || typeof val === 'boolean')
        out[k.slice(0, 100)] = String(val).slice(0, 2000);
    return out;
  } catch (e) {
    deps.logger.info('inbound call webhook failed', { reason: e instanceof Error ? e.name : 'error' });
    return {};
  } finally {
    clearTimeout(timer);
  }
}

/** The agent stored on a call row. */
const storedAgent = (row: CallSessionRow) => agentDocOrUndefined(row.agent);

/** A call that cannot be taken: stored at once with `reason` (Call History shows it). */
async function storeRefusedCall(
  deps: AppDeps,
  number: NumberRow,
  agent: { agentId: string | null; doc: AgentDoc } | undefined,
  p: { from: string; to: string; callSid: string; reason: string; provider: string },
) {
  const companyId = number.company_id as string;
  const row = await createCallSession(deps.db.db, {
    companyId,
    accountId: null,
    agentId: agent?.agentId ?? null,
    agent: agent?.doc ?? null,
    type: 'inbound',
    from: p.from,
    to: p.to,
    phoneNumber: number.phone_number,
    variables: {},
    provider: p.provider,
    providerCallId: p.callSid,
    now: now(deps),
  });
  await endUnanswered(deps, row, agent?.doc, { status: 'ended', reason: p.reason });
}

/** Stores the end of a call no agent talked in: no transcript, no usage, no cost. False when it had ended already. */
function storeUntalked(
  deps: AppDeps,
  row: CallSessionRow,
  agent: AgentDoc | undefined,
  end: {
    status: Extract<CallStatus, 'ended' | 'busy' | 'no-answer' | 'failed' | 'canceled'>;
    reason: string;
    errorMessage: string | null;
  },
) {
  return finishCallSession(deps.db.db, row, {
    ...end,
    transcript: [],
    latency: [],
    usage: emptyUsage(agent),
    cost: 0,
    recording: null,
    endedAt: now(deps),
  });
}

/**
 * Stores the end of a call no agent talked in (refused, or a dial that never reached its stream), and tells
 * the webhooks `call_ended` like for any other call (no analysis: nothing was said).
 */
export async function endUnanswered(
  deps: AppDeps,
  row: CallSessionRow,
  agent: AgentDoc | undefined,
  end: { status: Extract<CallStatus, 'ended' | 'busy' | 'no-answer' | 'failed' | 'canceled'>; reason: string },
) {
  const stored = await storeUntalked(deps, row, agent, { ...end, errorMessage: null });
  if (stored) announceCall(deps, 'call.ended', { companyId: row.company_id, callId: row.id, analyse: false });
}

// ---------------------------------------------------------------------------------------------
// Inbound

/** The inbound call webhook: the carrier asks what to do with a call to one of the companies' numbers. */
export async function inboundCall(deps: AppDeps, carrier: Carrier, req: WebhookRequest): Promise<CarrierAnswer> {
  const signed = signedRequest(deps, req);
  const call = carrier.inbound(signed.params);
  const number = call.to ? await numberByPhone(deps.db.db, call.to, carrier.id) : undefined;
  if (!number?.company_id) {
    deps.logger.warn(`${carrier.id} request refused: unknown number`, { where: 'inbound' });
    return forbidden;
  }
  if (!(await verified(deps, carrier, number.company_id, signed, 'inbound'))) return forbidden;
  if (!carrier.callIdPattern.test(call.callId)) return badRequest;
  const admitted = await admitInbound(deps, number, { from: call.from, to: call.to, callSid: call.callId, provider: carrier.id });
  if ('say' in admitted) return markup(carrier, carrier.markup.sayAndHangUp(admitted.say));
  return streamMarkup(deps, carrier, admitted.row, admitted.token);
}

/** The stream markup of a call: its stream's URL carries the one-time token in its path. */
const streamMarkup = (deps: AppDeps, carrier: Carrier, row: CallSessionRow, token: string) =>
  markup(carrier, carrier.markup.stream(streamUrl(deps, carrier, row.id, token), { call_id: row.id }));

const streamUrl = (deps: AppDeps, carrier: Carrier, callId: string, token: string) =>
  `${publicWsBase(deps)}${carrierPaths(carrier).stream(callId, token)}`;

/**
 * The stream token of a carrier call, derived from its id with the server's key: a carrier asking again
 * for the same call is answered the same stream URL, never a new token. It is still one-time: its hash is
 * cleared when the stream opens (claimCallToken), so the URL opens one stream at most.
 */
export const carrierStreamToken = (deps: AppDeps, callId: string) =>
  createHmac('sha256', deps.secrets.jwtKey).update(`parley-carrier-stream.${callId}`).digest('base64url');

/** The words a refused inbound call was answered, by the reason it was stored with. */
const REFUSED_WORDS: Record<string, string> = {
  no_inbound_agent: TELEPHONY_MESSAGES.saidNoAgent,
  spend_limit_reached: TELEPHONY_MESSAGES.saidUnavailable,
  concurrency_limit_reached: TELEPHONY_MESSAGES.saidBusy,
};

/** What a carrier call that already has a row was answered the first time: the same words, or the same stream. */
function answeredBefore(deps: AppDeps, row: CallSessionRow): { say: string } | { row: CallSessionRow; token: string } {
  deps.logger.info('carrier asked again for a call: the same answer', { callId: row.id, provider: row.provider });
  const said = REFUSED_WORDS[row.disconnection_reason];
  return said ? { say: said } : { row, token: carrierStreamToken(deps, row.id) };
}

/**
 * An inbound call to `number` (its company's carrier already checked the request): no inbound agent,
 * spend or concurrency over the limit answer words to say (the call stored with the reason); otherwise
 * the agent's Inbound Call Webhook is asked for variables and the call row is created with a one-time
 * stream token. One call per carrier call: the same request again (a replay, or the carrier retrying)
 * answers what the first one was answered, also when both arrive at once (the unique index decides).
 */
export async function admitInbound(
  deps: AppDeps,
  number: NumberRow,
  p: { from: string; to: string; callSid: string; provider: string },
): Promise<{ say: string } | { row: CallSessionRow; token: string }> {
  const companyId = number.company_id as string;
  const known = await callOfCarrier(deps.db.db, companyId, p.callSid);
  if (known) return answeredBefore(deps, known);
  try {
    return await admitNewInbound(deps, number, p);
  } catch (e) {
    const first = isUniqueViolation(e) ? await callOfCarrier(deps.db.db, companyId, p.callSid) : undefined;
    if (!first) throw e;
    return answeredBefore(deps, first);
  }
}

async function admitNewInbound(
  deps: AppDeps,
  number: NumberRow,
  p: { from: string; to: string; callSid: string; provider: string },
): Promise<{ say: string } | { row: CallSessionRow; token: string }> {
  const companyId = number.company_id as string;
  const { from, to, callSid, provider } = p;
  const agent = await agentDoc(deps, companyId, number.inbound_agent_id);
  if (!agent) {
    await storeRefusedCall(deps, number, undefined, { from, to, callSid, provider, reason: 'no_inbound_agent' });
    return { say: TELEPHONY_MESSAGES.saidNoAgent };
  }
  if (await overSpend(deps, companyId)) {
    await storeRefusedCall(deps, number, agent, { from, to, callSid, provider, reason: 'spend_limit_reached' });
    return { say: TELEPHONY_MESSAGES.saidUnavailable };
  }
  const given = await inboundWebhookVariables(deps, agent.doc.editor.inboundCallWebhook ?? '', {
    agent_id: agent.agentId,
    from_number: from,
    to_number: to,
  });
  const id = newId(now(deps));
  const token = carrierStreamToken(deps, id);
  const taken = await reserveLine(deps, companyId, (trx) =>
    createCallSession(trx, {
      id,
      companyId,
      accountId: null,
      agentId: agent.agentId,
      agent: agent.doc,
      type: 'inbound',
      from,
      to,
      phoneNumber: number.phone_number,
      variables: phoneVariables(deps, given, from, to, 'inbound'),
      token: { value: token, expiresAt: new Date(now(deps).getTime() + INBOUND_STREAM_TOKEN_TTL_MS) },
      provider,
      providerCallId: callSid,
      now: now(deps),
    }),
  );
  if ('full' in taken) {
    await storeRefusedCall(deps, number, agent, { from, to, callSid, provider, reason: 'concurrency_limit_reached' });
    return { say: TELEPHONY_MESSAGES.saidBusy };
  }
  const row = taken.row;
  deps.logger.info('inbound call answered', { callId: row.id, provider });
  return { row, token };
}

// ---------------------------------------------------------------------------------------------
// The media stream

/**
 * The carrier's WebSocket upgrade for a call's stream: its signature over the stream URL (a GET without
 * parameters) with the call's company's account, then the one-time token. Answers the call row and the
 * account, or a status to refuse.
 */
export async function acceptStream(
  deps: AppDeps,
  rt: CallRuntime,
  carrier: Carrier,
  callId: string,
  token: string,
  header: (name: string) => string | undefined,
): Promise<{ row: CallSessionRow; account: unknown } | { refuse: 401 | 403 }> {
  const found = isId(callId) ? await carrierCall(deps.db.db, callId, carrier.id) : undefined;
  if (!found) return { refuse: 403 };
  const req: CarrierRequest = { url: streamUrl(deps, carrier, callId, token), method: 'GET', params: [], header };
  const account = await verified(deps, carrier, found.company_id, req, 'stream');
  if (account === undefined) return { refuse: 403 };
  const row = await claimCallToken(deps.db.db, callId, token, now(deps), rt.serverId);
  if (!row) return { refuse: 401 };
  return { row, account };
}

/**
 * Runs a phone call on the carrier's media stream until it ends, then stores it: waits for the stream's
 * start (the call's own: the carrier's id of the call must be the row's), then the conversation. Hang-up
 * and transfer_call go through the carrier's API.
 */
export function runCarrierCall(
  deps: AppDeps,
  rt: CallRuntime,
  carrier: Carrier,
  row: CallSessionRow,
  account: unknown,
  ws: WebSocket,
) {
  const rest = carrierRest(deps, carrier, account);
  let callSid = row.provider_call_id ?? '';
  const transport = new CarrierStreamTransport(
    ws,
    {
      hangUpCall: async () => {
        if (callSid) await rest.hangUp(callSid);
      },
      transferCall: async (number) => {
        await refuseDestination(deps, row.company_id, number);
        await rest.redirect(callSid, instructions(deps, carrier, row, { do: 'transfer', to: number }));
      },
      // warm: the carrier dials the person from the call's own number, says the summary, then joins both
      ...(rest.warmTransfer
        ? {
            warmTransferCall: async (t) => {
              await refuseDestination(deps, row.company_id, t.number);
              if (!rest.warmTransfer || !row.phone_number) throw new Error('warm transfer is not available on this call');
              return rest.warmTransfer({
                callId: callSid,
                to: t.number,
                from: row.phone_number,
                room: `parley-${row.id}`,
                summary: t.summary,
                timeoutMs: t.timeoutMs,
                signal: t.signal,
              });
            },
          }
        : {}),
      warn: (message, fields) => deps.logger.warn(message, { callId: row.id, ...fields }),
    },
    carrier.dialect,
  );
  const ready = Promise.race([
    transport.started.then(async (start) => {
      if (callSid && start.callSid !== callSid) throw new Error('The stream is not this call’s.');
      if (!callSid) {
        callSid = start.callSid;
        await recordCarrierState(deps.db.db, row, { providerCallId: callSid });
      }
    }),
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('The carrier did not start the stream in time.')), START_TIMEOUT_MS).unref(),
    ),
  ]);
  runLineCall(deps, rt, row, transport, {
    label: 'phone call',
    ready,
    phone: true,
    endOf: async () => {
      const fresh = await getCallSession(deps.db.db, row.company_id, row.id);
      return fresh?.answered_by?.startsWith('machine') ? { reason: 'voicemail_reached' } : undefined;
    },
  });
}

// ---------------------------------------------------------------------------------------------
// Instructions for a live call

type Instruction = { do: 'transfer'; to: string } | { do: 'voicemail' };

/** The voicemail message of the call's agent, its variables filled ('' when none). */
function voicemailMessage(row: CallSessionRow) {
  const agent = storedAgent(row);
  return fillVariables(agent?.editor.voicemailMessage ?? '', parseJson(row.dynamic_variables, {})).trim();
}

/** What an instruction says in the carrier's markup: a <Dial> for a transfer, the voicemail message. */
function instructionMarkup(carrier: Carrier, row: CallSessionRow, i: Instruction) {
  if (i.do === 'transfer') return carrier.markup.dial(i.to, row.phone_number || undefined);
  return carrier.markup.sayAndHangUp(voicemailMessage(row));
}

/** A live call's new instructions, inline and as the URL that answers them (the query is signed). */
function instructions(deps: AppDeps, carrier: Carrier, row: CallSessionRow, i: Instruction) {
  const query = new URLSearchParams(i.do === 'transfer' ? { do: 'transfer', to: i.to } : { do: 'voicemail' });
  const url = carrier.hooks.instructions ? `${publicBase(deps)}${carrierPaths(carrier).instructions(row.id)}?${query}` : '';
  return { markup: instructionMarkup(carrier, row, i), url };
}

/**
 * The instructions webhook, `{instructions}/{call_id}?do=transfer&to=+1…` or `?do=voicemail`: the markup a
 * live call is redirected to (carriers that redirect to a URL). The query is part of what the carrier
 * signs, so the number cannot be changed on the way.
 */
export async function callInstructions(deps: AppDeps, carrier: Carrier, callId: string, req: WebhookRequest) {
  const row = isId(callId) ? await carrierCall(deps.db.db, callId, carrier.id) : undefined;
  if (!row) return forbidden;
  if (!(await verified(deps, carrier, row.company_id, signedRequest(deps, req), 'instructions'))) return forbidden;
  const q = new URLSearchParams(req.path.includes('?') ? req.path.slice(req.path.indexOf('?') + 1) : '');
  const to = q.get('to') ?? '';
  if (q.get('do') === 'transfer' && /^\+[1-9]\d{7,14}$/.test(to))
    return markup(carrier, instructionMarkup(carrier, row, { do: 'transfer', to }));
  return markup(carrier, instructionMarkup(carrier, row, { do: 'voicemail' }));
}

// ---------------------------------------------------------------------------------------------
// Outbound

/**
 * The destination policy (src/api/contract/destinations.ts) for a number the company's carrier is asked to
 * dial: a new call, or a transfer_call on a live one. Throws 403 with the reason when it may not be called.
 */
export async function refuseDestination(deps: AppDeps, companyId: string, number: string): Promise<void> {
  const refused = destinationRefusal(number, await allowedCountries(deps, companyId));
  if (!refused) return;
  deps.logger.info('call refused: destination policy', { reason: refused });
  throw new HttpError(403, refused);
}

/**
 * `POST /call/create`: places a call from one of the company's numbers with its agent, to a destination the
 * company may call (src/api/contract/destinations.ts: 403 with the reason otherwise).
 */
export async function createPhoneCall(
  deps: AppDeps,
  caller: Caller,
  body: CreatePhoneCallBody,
  /** the batch dispatcher records the call on its recipient before the carrier dials (no double dial after a crash) */
  beforeDial?: (callId: string) => Promise<void>,
) {
  const number = await companyNumber(deps.db.db, caller.companyId, body.from_number);
  if (!number) throw new HttpError(404, TELEPHONY_MESSAGES.numberNotFound);
  await refuseDestination(deps, caller.companyId, body.to_number);
  const carrier = carriers.get(number.provider);
  if (!carrier) throw new HttpError(400, TELEPHONY_MESSAGES.unsupportedProvider);
  const agentId = body.agent_id ?? number.outbound_agent_id;
  if (!agentId) throw new HttpError(400, TELEPHONY_MESSAGES.noOutboundAgent);
  const agent = await agentDoc(deps, caller.companyId, agentId);
  if (!agent) throw new HttpError(404, TELEPHONY_MESSAGES.agentNotFound);
  const account = await carrierAccount(deps, carrier, caller.companyId);
  if (account === undefined) throw notConnected(carrier);
  await keysFor(
    deps,
    caller.companyId,
    agent.doc,
    requiredProviders(pipelineOf(agent.doc, callRuntime(deps).providers), 'voice'),
  );
  await refuseOverSpend(deps, caller.companyId);
  const token = newToken();
  const row = await takeLine(deps, caller.companyId, (trx) =>
    createCallSession(trx, {
      companyId: caller.companyId,
      accountId: caller.accountId,
      agentId: agent.agentId,
      agent: agent.doc,
      type: 'outbound',
      from: body.from_number,
      to: body.to_number,
      phoneNumber: number.phone_number,
      variables: phoneVariables(deps, body.dynamic_variables, body.from_number, body.to_number, 'outbound'),
      token: { value: token, expiresAt: new Date(now(deps).getTime() + OUTBOUND_STREAM_TOKEN_TTL_MS) },
      provider: carrier.id,
      now: now(deps),
    }),
  );
  await beforeDial?.(row.id);
  const paths = carrierPaths(carrier);
  const atAnswer = carrier.outboundStream === 'answer';
  // a carrier that learns its stream when the call is answered gets the token made then (any server can answer it)
  if (atAnswer) await clearStreamToken(deps.db.db, row);
  const editor = agent.doc.editor;
  try {
    const placed = await carrierRest(deps, carrier, account).placeCall({
      from: body.from_number,
      to: body.to_number,
      parleyCallId: row.id,
      ...(atAnswer
        ? { answerUrl: `${publicBase(deps)}${paths.answer(row.id)}` }
        : { streamUrl: streamUrl(deps, carrier, row.id, token) }),
      statusUrl: `${publicBase(deps)}${paths.status(row.id)}`,
      ...(editor.voicemailDetection ? { machineDetection: { seconds: editor.voicemailDetectionDuration || 0 } } : {}),
    });
    await recordDial(deps.db.db, row, placed);
  } catch (e) {
    await dialRefused(deps, row, agent.doc, carrier.label, e);
  }
  deps.logger.info('outbound call placed', { callId: row.id, provider: carrier.id });
  return { call_id: row.id };
}

/** The call row of a dial that failed at the carrier's API: stored as failed, answered 502. */
async function dialRefused(
  deps: AppDeps,
  row: CallSessionRow,
  agent: AgentDoc | undefined,
  label: string,
  e: unknown,
): Promise<never> {
  const message = e instanceof Error ? e.message : `${label} did not answer.`;
  await storeUntalked(deps, row, agent, { status: 'failed', reason: 'dial_failed', errorMessage: message });
  if (e instanceof CarrierApiError) throw new HttpError(502, TELEPHONY_MESSAGES.carrierRefused(label, message));
  throw new HttpError(502, TELEPHONY_MESSAGES.carrierRefused(label, 'it could not be reached.'));
}

/**
 * The answer webhook of an outbound call (carriers with `outboundStream: 'answer'`): the call was answered;
 * its stream token is set now and travels in this markup (the carrier only learns it here). Asked again
 * (the carrier retrying, with a new nonce), the same markup: the token is derived from the call
 * (carrierStreamToken) and opens one stream at most.
 */
export async function outboundAnswer(deps: AppDeps, carrier: Carrier, callId: string, req: WebhookRequest) {
  const row = isId(callId) ? await carrierCall(deps.db.db, callId, carrier.id) : undefined;
  if (!row) return forbidden;
  const signed = signedRequest(deps, req);
  if (!(await verified(deps, carrier, row.company_id, signed, 'answer'))) return forbidden;
  const carrierCallId = carrier.callback(signed.params).callId;
  if (carrierCallId && !row.provider_call_id)
    await recordCarrierState(deps.db.db, row, { providerCallId: carrierCallId, providerStatus: 'in-progress' });
  if (row.status !== 'registered' && row.status !== 'ongoing') return markup(carrier, carrier.markup.hangUp());
  const token = carrierStreamToken(deps, row.id);
  await setStreamToken(deps.db.db, row, hashToken(token), new Date(now(deps).getTime() + INBOUND_STREAM_TOKEN_TTL_MS));
  return streamMarkup(deps, carrier, row, token);
}

/**
 * The status callback set on a number imported from the carrier (`{status}` without a call id): the call is
 * the number's company's call with the carrier's id in the parameters, then handled as its own callback
 * (signature checked there with that company's account). Unknown calls answer 204: the carrier also reports
 * calls Parley refused before storing them.
 */
export async function numberStatus(deps: AppDeps, carrier: Carrier, req: WebhookRequest) {
  const signed = signedRequest(deps, req);
  const cb = carrier.callback(signed.params);
  const to = carrier.inbound(signed.params).to;
  const number = to ? await numberByPhone(deps.db.db, to, carrier.id) : undefined;
  if (!number?.company_id || !cb.callId) return forbidden;
  const found = await callOfCarrier(deps.db.db, number.company_id, cb.callId);
  if (!found) {
    return (await verified(deps, carrier, number.company_id, signed, 'status')) === undefined ? forbidden : noContent;
  }
  return callStatus(deps, carrier, found.id, req);
}

/**
 * A carrier's final status for a call whose stream never opened: the call is stored with it (busy,
 * no-answer, failed, canceled get their own reasons; a voicemail reached, or a plain end, otherwise).
 */
export async function dialEnded(
  deps: AppDeps,
  found: CallSessionRow,
  end: DialEnd | undefined,
  completed: boolean,
  answeredBy: string,
) {
  if (!(end || completed) || found.status !== 'registered') return;
  const machine = (answeredBy || found.answered_by || '').startsWith('machine');
  await endUnanswered(deps, found, storedAgent(found), {
    status: end?.status ?? 'ended',
    reason: end?.reason ?? (machine ? 'voicemail_reached' : 'user_hangup'),
  });
}

/**
 * The status webhook, `{status}/{call_id}`: a status callback or the answering-machine detection's answer,
 * signed with the call's company's credentials. A call that never reached its stream is stored here with
 * the carrier's end; a voicemail reached does what the agent's settings say (hang up, or leave the
 * voicemail message).
 */
export async function callStatus(deps: AppDeps, carrier: Carrier, callId: string, req: WebhookRequest) {
  const found = isId(callId) ? await carrierCall(deps.db.db, callId, carrier.id) : undefined;
  if (!found) return forbidden;
  const signed = signedRequest(deps, req);
  const account = await verified(deps, carrier, found.company_id, signed, 'status');
  if (account === undefined) return forbidden;
  const cb = carrier.callback(signed.params);
  if (found.provider_call_id && cb.callId && cb.callId !== found.provider_call_id) return forbidden;
  await recordCarrierState(deps.db.db, found, {
    providerStatus: cb.status,
    answeredBy: cb.answeredBy,
    ...(!found.provider_call_id && cb.callId ? { providerCallId: cb.callId } : {}),
  });
  const sid = cb.callId || found.provider_call_id || '';
  if (cb.voicemail && found.status !== 'ended' && found.status !== 'error' && sid) {
    const rest = carrierRest(deps, carrier, account);
    const leave = storedAgent(found)?.editor.voicemailAction === 'leave' && voicemailMessage(found) !== '';
    deps.logger.info('voicemail reached', { callId, action: leave ? 'leave' : 'hang' });
    await (leave ? rest.redirect(sid, instructions(deps, carrier, found, { do: 'voicemail' })) : rest.hangUp(sid)).catch((e) =>
      deps.logger.warn('voicemail action failed', { callId, reason: e instanceof Error ? e.message : String(e) }),
    );
  }
  await dialEnded(deps, found, cb.end, cb.completed, cb.answeredBy);
  return noContent;
}
