/**
 * Phone calls on the call engine: the carrier carries the call and streams its audio to Parley
 * over a WebSocket; the conversation is the same callSession actor as a web call's (server/modules/conversations/runtime.ts
 * runLineCall), on a TwilioTransport.
 *
 * - Inbound: the carrier's signed voice webhook -> the number (by `To`) -> its company's carrier account
 *   (the Account SID must be the company's, the signature made with its Auth Token) -> limits (no inbound
 *   agent, concurrency, spend: a short spoken message and the call stored with that reason) -> the agent's
 *   Inbound Call Webhook (dynamic variables, 2 s) -> a call row with a one-time stream token -> TwiML
 *   <Connect><Stream> whose URL carries the token in its path.
 * - Outbound: `POST /call/create` -> the same checks -> the carrier's Calls API with the Stream TwiML, the
 *   status callback and answering-machine detection -> the row follows the signed status callbacks.
 * - The stream's WebSocket upgrade is signed by the carrier and takes the one-time token (server/modules/conversations/ws.ts).
 */
import { createHmac } from 'node:crypto';
import type { AgentDoc } from '@contract/agent/save.js';
import type { CallStatus } from '@contract/call-values.js';
import { destinationRefusal } from '@contract/destinations.js';
import {
  type CreatePhoneCallBody,
  INBOUND_STREAM_TOKEN_TTL_MS,
  INBOUND_WEBHOOK_TIMEOUT_MS,
  OUTBOUND_STREAM_TOKEN_TTL_MS,
  TELEPHONY_MESSAGES,
} from '@contract/telephony.js';
import * as v from 'valibot';
import type WebSocket from 'ws';
import { type PlivoAccount, PlivoApiError, PlivoRest, plivoAccount } from '../../carriers/plivo/rest.js';
import {
  dialTwiml,
  sayAndHangUpTwiml,
  streamTwiml,
  type TwilioAccount,
  TwilioApiError,
  TwilioRest,
  twilioAccount,
  validTwilioSignature,
} from '../../carriers/twilio/rest.js';
import { type CarrierStreamTransport, START_TIMEOUT_MS, TwilioTransport } from '../../carriers/twilio/stream.js';
import { isId, newId } from '../../platform/crypto/ids.js';
import type { PhoneNumbersTable } from '../../platform/db/schema.js';
import type { AppDeps } from '../../platform/deps.js';
import { isUniqueViolation } from '../../platform/http/db-errors.js';
import { HttpError } from '../../platform/http/http.js';
import { guardedFetch } from '../../platform/net/net-guard.js';
import { pipelineOf, requiredProviders } from '../../voice/engine/pipeline.js';
import { fillVariables } from '../../voice/engine/text.js';
import { docOf, findAgent } from '../agents/agent.repo.js';
import { allowedCountries } from '../billing/billing.service.js';
import { callRuntime } from '../conversations/call-runtime.js';
import { liveCalls, overSpend, refuseOverSpend, reserveLine, takeLine } from '../conversations/limits.js';
import { type Caller, type CallRuntime, emptyUsage, keysFor, runLineCall } from '../conversations/runtime.js';
import {
  type CallSessionRow,
  claimCallToken,
  createCallSession,
  finishCallSession,
  getCallSession,
  newToken,
  parseJson,
} from '../conversations/session.repo.js';
import { emitCallEvent } from '../webhooks/events.js';

export const TELEPHONY_PATHS = {
  twilioVoice: '/api/v1/telephony/twilio/voice',
  twilioStatus: (callId: string) => `/api/v1/telephony/twilio/status/${callId}`,
  twilioStream: (callId: string, token: string) => `/api/v1/telephony/twilio/stream/${callId}/${token}`,
  plivoAnswer: '/api/v1/telephony/plivo/answer',
  plivoOutboundAnswer: (callId: string) => `/api/v1/telephony/plivo/answer/${callId}`,
  plivoStatus: (callId: string) => `/api/v1/telephony/plivo/status/${callId}`,
  plivoXml: (callId: string) => `/api/v1/telephony/plivo/xml/${callId}`,
  plivoStream: (callId: string, token: string) => `/api/v1/telephony/plivo/stream/${callId}/${token}`,
};

/** The address the carriers call back (PUBLIC_URL), without a trailing slash. */
export const publicBase = (deps: AppDeps) => deps.config.publicUrl.replace(/\/+$/, '');
/** The same origin as a WebSocket address (https -> wss). */
export const publicWsBase = (deps: AppDeps) => publicBase(deps).replace(/^http/, 'ws');

const now = (deps: AppDeps) => deps.clock.now();

/** What the carrier webhook answers: a status and a body (TwiML, or nothing). */
export interface CarrierAnswer {
  status: number;
  body: string;
  contentType: string;
}

export const xml = (body: string): CarrierAnswer => ({ status: 200, body, contentType: 'text/xml' });
export const forbidden: CarrierAnswer = { status: 403, body: 'Forbidden', contentType: 'text/plain' };

type NumberRow = PhoneNumbersTable;

export function numberByPhone(deps: AppDeps, phone: string, provider: string) {
  return deps.db.db
    .selectFrom('phone_numbers')
    .selectAll()
    .where('phone_number', '=', phone)
    .where('provider', '=', provider)
    .where('company_id', 'is not', null)
    .executeTakeFirst();
}

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

/** The body as text, or undefined (and the rest left unread) once it passes `max` bytes. */
async function readCapped(res: Response, max: number): Promise<string | undefined> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

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

/** A call that cannot be taken: stored at once with `reason` (Call History shows it). */
async function storeRefusedCall(
  deps: AppDeps,
  number: NumberRow,
  agent: { agentId: string | null; doc: AgentDoc } | undefined,
  p: { from: string; to: string; callSid: string; reason: string; provider?: 'twilio' | 'plivo' },
) {
  const companyId = number.company_id as string;
  const doc = agent?.doc ?? ({ name: '', settings: { llm: { options: { model: '' } } } } as unknown as AgentDoc);
  const row = await createCallSession(deps.db.db, {
    companyId,
    accountId: null,
    agentId: agent?.agentId ?? null,
    agent: doc,
    type: 'inbound',
    from: p.from,
    to: p.to,
    phoneNumber: number.phone_number,
    variables: {},
    provider: p.provider ?? 'twilio',
    providerCallId: p.callSid,
    now: now(deps),
  });
  await endUnanswered(deps, row, doc, { status: 'ended', reason: p.reason });
}

/**
 * Stores the end of a call no agent talked in (refused, or a dial that never reached its stream), and tells
 * the webhooks `call_ended` like for any other call (no analysis: nothing was said).
 */
export async function endUnanswered(
  deps: AppDeps,
  row: CallSessionRow,
  agent: AgentDoc,
  end: { status: Extract<CallStatus, 'ended' | 'busy' | 'no-answer' | 'failed' | 'canceled'>; reason: string },
) {
  const stored = await finishCallSession(deps.db.db, row, {
    status: end.status,
    reason: end.reason,
    errorMessage: null,
    transcript: [],
    latency: [],
    usage: emptyUsage(agent),
    cost: 0,
    recording: null,
    endedAt: now(deps),
  });
  if (stored) emitCallEvent(deps, 'call_ended', { companyId: row.company_id, callId: row.id }, { analyse: false });
}

/** The form parameters of a carrier's request, in order (duplicates kept: Twilio signs them all). */
export const formPairs = (body: string): [string, string][] => [...new URLSearchParams(body)];

/** Checks a Twilio request's signature with the company's account; false (and a log line) when it fails. */
function checkTwilio(
  deps: AppDeps,
  account: TwilioAccount | undefined,
  url: string,
  params: [string, string][],
  signature: string | undefined,
  where: string,
): account is TwilioAccount {
  const sid = params.find(([k]) => k === 'AccountSid')?.[1];
  const good =
    account !== undefined &&
    (sid === undefined || sid === account.accountSid) &&
    validTwilioSignature(account.authToken, url, params, signature);
  if (!good) deps.logger.warn('twilio request refused: bad signature', { where });
  return good;
}

// ---------------------------------------------------------------------------------------------
// Inbound

/** `POST /telephony/twilio/voice`: Twilio asks what to do with a call to one of the company's numbers. */
export async function twilioVoice(deps: AppDeps, rawBody: string, query: string, signature: string | undefined) {
  const params = formPairs(rawBody);
  const get = (k: string) => params.find(([n]) => n === k)?.[1] ?? '';
  const url = `${publicBase(deps)}${TELEPHONY_PATHS.twilioVoice}${query}`;
  const to = get('To');
  const from = get('From');
  const callSid = get('CallSid');
  const number = to ? await numberByPhone(deps, to, 'twilio') : undefined;
  if (!number?.company_id) {
    deps.logger.warn('twilio request refused: unknown number', { where: 'voice' });
    return forbidden;
  }
  const companyId = number.company_id;
  const account = await twilioAccount(deps, companyId);
  if (!checkTwilio(deps, account, url, params, signature, 'voice')) return forbidden;
  if (!/^CA[0-9a-fA-F]{32}$/.test(callSid)) return { status: 400, body: 'Bad Request', contentType: 'text/plain' };

  const admitted = await admitInbound(deps, number, { from, to, callSid, provider: 'twilio' });
  if ('say' in admitted) return xml(sayAndHangUpTwiml(admitted.say));
  return xml(
    streamTwiml(`${publicWsBase(deps)}${TELEPHONY_PATHS.twilioStream(admitted.row.id, admitted.token)}`, {
      call_id: admitted.row.id,
    }),
  );
}

/**
 * The stream token of a carrier call, derived from its id with the server's key: a carrier asking again
 * for the same call is answered the same stream URL, never a new token. It is still one-time: its hash is
 * cleared when the stream opens (claimCallToken), so the URL opens one stream at most.
 */
export const carrierStreamToken = (deps: AppDeps, callId: string) =>
  createHmac('sha256', deps.secrets.jwtKey).update(`parley-carrier-stream.${callId}`).digest('base64url');

/** The company's call with the carrier's id `callSid` (one at most: a unique index, migration 017). */
export function callOfCarrier(deps: AppDeps, companyId: string, callSid: string) {
  return deps.db.db
    .selectFrom('call_sessions')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('provider_call_id', '=', callSid)
    .executeTakeFirst();
}

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
  p: { from: string; to: string; callSid: string; provider: 'twilio' | 'plivo' },
): Promise<{ say: string } | { row: CallSessionRow; token: string }> {
  const companyId = number.company_id as string;
  const known = await callOfCarrier(deps, companyId, p.callSid);
  if (known) return answeredBefore(deps, known);
  try {
    return await admitNewInbound(deps, number, p);
  } catch (e) {
    const first = isUniqueViolation(e) ? await callOfCarrier(deps, companyId, p.callSid) : undefined;
    if (!first) throw e;
    return answeredBefore(deps, first);
  }
}

async function admitNewInbound(
  deps: AppDeps,
  number: NumberRow,
  p: { from: string; to: string; callSid: string; provider: 'twilio' | 'plivo' },
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
 * The carrier's WebSocket upgrade for a call's stream: the signature (over the Stream URL, no parameters)
 * with the call's company's Auth Token, then the one-time token. Answers the call row, or a status to refuse.
 */
export async function acceptTwilioStream(
  deps: AppDeps,
  rt: CallRuntime,
  callId: string,
  token: string,
  signature: string | undefined,
): Promise<{ row: CallSessionRow; account: TwilioAccount } | { refuse: 401 | 403 }> {
  if (!isId(callId)) return { refuse: 403 };
  const found = await deps.db.db
    .selectFrom('call_sessions')
    .select(['company_id', 'provider'])
    .where('id', '=', callId)
    .executeTakeFirst();
  if (found?.provider !== 'twilio') return { refuse: 403 };
  const account = await twilioAccount(deps, found.company_id);
  const url = `${publicWsBase(deps)}${TELEPHONY_PATHS.twilioStream(callId, token)}`;
  if (!checkTwilio(deps, account, url, [], signature, 'stream')) return { refuse: 403 };
  const row = await claimCallToken(deps.db.db, callId, token, now(deps), rt.serverId);
  if (!row) return { refuse: 401 };
  return { row, account };
}

/** Runs a phone call on Twilio's media stream until it ends, then stores it. */
export function runTwilioCall(deps: AppDeps, rt: CallRuntime, row: CallSessionRow, account: TwilioAccount, ws: WebSocket) {
  const rest = new TwilioRest(deps, account);
  runPhoneLine(deps, rt, row, (line) => {
    return new TwilioTransport(ws, {
      hangUpCall: async () => {
        if (line.callSid) await rest.hangUp(line.callSid);
      },
      transferCall: async (number) => {
        await refuseDestination(deps, row.company_id, number);
        await rest.updateTwiml(line.callSid, dialTwiml(number, row.phone_number || undefined));
      },
      warn: (message, fields) => deps.logger.warn(message, { callId: row.id, ...fields }),
    });
  });
}

/**
 * Runs a phone call on a carrier's media stream (`makeTransport` builds it, reading the carrier's id of
 * the call from `line`): waits for the stream's start (the call's own), then the conversation.
 */
export function runPhoneLine(
  deps: AppDeps,
  rt: CallRuntime,
  row: CallSessionRow,
  makeTransport: (line: { callSid: string }) => CarrierStreamTransport,
) {
  const line = { callSid: row.provider_call_id ?? '' };
  const transport = makeTransport(line);
  let callSid = line.callSid;
  const ready = Promise.race([
    transport.started.then(async (start) => {
      if (callSid && start.callSid !== callSid) throw new Error('The stream is not this call’s.');
      if (!callSid) {
        callSid = start.callSid;
        line.callSid = callSid;
        await deps.db.db
          .updateTable('call_sessions')
          .set({ provider_call_id: callSid })
          .where('id', '=', row.id)
          .where('company_id', '=', row.company_id)
          .execute();
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
// Outbound

export const TWILIO_END_STATUS: Record<
  string,
  { status: Extract<CallStatus, 'busy' | 'no-answer' | 'failed' | 'canceled'>; reason: string }
> = {
  busy: { status: 'busy', reason: 'dial_busy' },
  'no-answer': { status: 'no-answer', reason: 'dial_no_answer' },
  failed: { status: 'failed', reason: 'dial_failed' },
  canceled: { status: 'canceled', reason: 'dial_canceled' },
};

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
  const number = await deps.db.db
    .selectFrom('phone_numbers')
    .selectAll()
    .where('company_id', '=', caller.companyId)
    .where('phone_number', '=', body.from_number)
    .executeTakeFirst();
  if (!number) throw new HttpError(404, TELEPHONY_MESSAGES.numberNotFound);
  await refuseDestination(deps, caller.companyId, body.to_number);
  if (number.provider !== 'twilio' && number.provider !== 'plivo')
    throw new HttpError(400, TELEPHONY_MESSAGES.unsupportedProvider);
  const provider = number.provider;
  const label = provider === 'twilio' ? 'Twilio' : 'Plivo';
  const agentId = body.agent_id ?? number.outbound_agent_id;
  if (!agentId) throw new HttpError(400, TELEPHONY_MESSAGES.noOutboundAgent);
  const agent = await agentDoc(deps, caller.companyId, agentId);
  if (!agent) throw new HttpError(404, TELEPHONY_MESSAGES.agentNotFound);
  const account = provider === 'twilio' ? await twilioAccount(deps, caller.companyId) : undefined;
  const plivo = provider === 'plivo' ? await plivoAccount(deps, caller.companyId) : undefined;
  if (!account && !plivo)
    throw new HttpError(400, TELEPHONY_MESSAGES.notConnected(label), {
      problem: { provider, message: TELEPHONY_MESSAGES.notConnected(label), link: '/providers' },
    });
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
      provider,
      now: now(deps),
    }),
  );
  await beforeDial?.(row.id);
  if (plivo) return placePlivoCall(deps, plivo, row, agent.doc, body);
  if (!account) throw new HttpError(400, TELEPHONY_MESSAGES.notConnected(label));
  const statusUrl = `${publicBase(deps)}${TELEPHONY_PATHS.twilioStatus(row.id)}`;
  const form: [string, string][] = [
    ['To', body.to_number],
    ['From', body.from_number],
    ['Twiml', streamTwiml(`${publicWsBase(deps)}${TELEPHONY_PATHS.twilioStream(row.id, token)}`, { call_id: row.id })],
    ['StatusCallback', statusUrl],
    ['StatusCallbackMethod', 'POST'],
    ...(['initiated', 'ringing', 'answered', 'completed'] as const).map((e): [string, string] => ['StatusCallbackEvent', e]),
  ];
  if (agent.doc.editor.voicemailDetection) {
    form.push(
      ['MachineDetection', 'DetectMessageEnd'],
      [
        'MachineDetectionTimeout',
        String(Math.min(60, Math.max(3, Math.round(agent.doc.editor.voicemailDetectionDuration || 30)))),
      ],
      ['AsyncAmd', 'true'],
      ['AsyncAmdStatusCallback', statusUrl],
      ['AsyncAmdStatusCallbackMethod', 'POST'],
    );
  }
  try {
    const call = await new TwilioRest(deps, account).createCall(form);
    await deps.db.db
      .updateTable('call_sessions')
      .set({ provider_call_id: call.sid, provider_status: call.status || 'queued' })
      .where('id', '=', row.id)
      .where('company_id', '=', row.company_id)
      .where('provider_call_id', 'is', null)
      .execute();
  } catch (e) {
    await dialRefused(deps, row, agent.doc, 'Twilio', e);
  }
  deps.logger.info('outbound call placed', { callId: row.id });
  return { call_id: row.id };
}

/** The call row of a dial that failed at the carrier's API: stored as failed, answered 502. */
async function dialRefused(deps: AppDeps, row: CallSessionRow, agent: AgentDoc, label: string, e: unknown): Promise<never> {
  const message = e instanceof Error ? e.message : `${label} did not answer.`;
  await finishCallSession(deps.db.db, row, {
    status: 'failed',
    reason: 'dial_failed',
    errorMessage: message,
    transcript: [],
    latency: [],
    usage: emptyUsage(agent),
    cost: 0,
    recording: null,
    endedAt: now(deps),
  });
  if (e instanceof TwilioApiError || e instanceof PlivoApiError)
    throw new HttpError(502, TELEPHONY_MESSAGES.carrierRefused(label, message));
  throw new HttpError(502, TELEPHONY_MESSAGES.carrierRefused(label, 'it could not be reached.'));
}

/**
 * Plivo's Call API: answer_url gives the Stream XML when the call is answered (its stream token is made
 * then, so any server can answer it), hangup_url and machine_detection_url report the end and a machine.
 */
async function placePlivoCall(
  deps: AppDeps,
  account: PlivoAccount,
  row: CallSessionRow,
  agent: AgentDoc,
  body: CreatePhoneCallBody,
) {
  // the token made at creation is not used: the answer callback makes the one Plivo gets
  await deps.db.db
    .updateTable('call_sessions')
    .set({ token_hash: null, token_expires_at: null })
    .where('id', '=', row.id)
    .where('company_id', '=', row.company_id)
    .execute();
  const statusUrl = `${publicBase(deps)}${TELEPHONY_PATHS.plivoStatus(row.id)}`;
  const request: Record<string, string> = {
    from: body.from_number.replace(/^\+/, ''),
    to: body.to_number.replace(/^\+/, ''),
    answer_url: `${publicBase(deps)}${TELEPHONY_PATHS.plivoOutboundAnswer(row.id)}`,
    answer_method: 'POST',
    hangup_url: statusUrl,
    hangup_method: 'POST',
  };
  if (agent.editor.voicemailDetection) {
    request.machine_detection = 'true';
    request.machine_detection_time = String(
      Math.min(10_000, Math.max(2000, Math.round((agent.editor.voicemailDetectionDuration || 5) * 1000))),
    );
    request.machine_detection_url = statusUrl;
    request.machine_detection_method = 'POST';
  }
  try {
    const requestUuid = await new PlivoRest(deps, account).createCall(request);
    await deps.db.db
      .updateTable('call_sessions')
      .set({ provider_status: `queued:${requestUuid}`.slice(0, 100) })
      .where('id', '=', row.id)
      .where('company_id', '=', row.company_id)
      .execute();
  } catch (e) {
    await dialRefused(deps, row, agent, 'Plivo', e);
  }
  deps.logger.info('outbound call placed', { callId: row.id, provider: 'plivo' });
  return { call_id: row.id };
}

/**
 * A carrier's final status for a call whose stream never opened: the call is stored with it (busy,
 * no-answer, failed, canceled get their own reasons; a voicemail reached, or a plain end, otherwise).
 */
export async function dialEnded(
  deps: AppDeps,
  found: CallSessionRow,
  end: { status: Extract<CallStatus, 'busy' | 'no-answer' | 'failed' | 'canceled'>; reason: string } | undefined,
  completed: boolean,
  answeredBy: string,
) {
  if (!(end || completed) || found.status !== 'registered') return;
  const agent = parseJson<AgentDoc>(found.agent, {} as AgentDoc);
  const machine = (answeredBy || found.answered_by || '').startsWith('machine');
  await endUnanswered(deps, found, agent, {
    status: end?.status ?? 'ended',
    reason: end?.reason ?? (machine ? 'voicemail_reached' : 'user_hangup'),
  });
}

/**
 * `POST /telephony/twilio/status/{call_id}`: a status callback (initiated, ringing, in-progress, completed,
 * busy, no-answer, failed, canceled) or the answering-machine detection's answer (AnsweredBy). Signed with
 * the call's company's Auth Token. A call that never reached its stream is stored here with the carrier's
 * end; a voicemail reached does what the agent's settings say (hang up, or leave the voicemail message).
 */
export async function twilioStatus(deps: AppDeps, callId: string, rawBody: string, signature: string | undefined) {
  if (!isId(callId)) return forbidden;
  const found = await deps.db.db.selectFrom('call_sessions').selectAll().where('id', '=', callId).executeTakeFirst();
  if (found?.provider !== 'twilio') return forbidden;
  const params = formPairs(rawBody);
  const get = (k: string) => params.find(([n]) => n === k)?.[1] ?? '';
  const account = await twilioAccount(deps, found.company_id);
  const url = `${publicBase(deps)}${TELEPHONY_PATHS.twilioStatus(callId)}`;
  if (!checkTwilio(deps, account, url, params, signature, 'status')) return forbidden;
  const callSid = get('CallSid');
  if (found.provider_call_id && callSid && callSid !== found.provider_call_id) return forbidden;
  const status = get('CallStatus');
  const answeredBy = get('AnsweredBy');
  await deps.db.db
    .updateTable('call_sessions')
    .set({
      ...(status ? { provider_status: status } : {}),
      ...(answeredBy ? { answered_by: answeredBy } : {}),
      ...(!found.provider_call_id && callSid ? { provider_call_id: callSid } : {}),
    })
    .where('id', '=', callId)
    .where('company_id', '=', found.company_id)
    .execute();
  const agent = parseJson<AgentDoc>(found.agent, {} as AgentDoc);
  if (answeredBy.startsWith('machine_end') && found.status !== 'ended' && found.status !== 'error') {
    const rest = new TwilioRest(deps, account);
    const sid = callSid || found.provider_call_id || '';
    const message = fillVariables(agent.editor?.voicemailMessage ?? '', parseJson(found.dynamic_variables, {})).trim();
    const leave = agent.editor?.voicemailAction === 'leave' && message !== '';
    deps.logger.info('voicemail reached', { callId, action: leave ? 'leave' : 'hang' });
    await (leave ? rest.updateTwiml(sid, sayAndHangUpTwiml(message)) : rest.hangUp(sid)).catch((e) =>
      deps.logger.warn('voicemail action failed', { callId, reason: e instanceof Error ? e.message : String(e) }),
    );
  }
  await dialEnded(deps, found, TWILIO_END_STATUS[status], status === 'completed', answeredBy);
  return { status: 204, body: '', contentType: 'text/plain' } satisfies CarrierAnswer;
}
