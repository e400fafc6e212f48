/**
 * Phone calls through Plivo, the same way as Twilio's (service.ts):
 *
 * - Inbound: Plivo posts the call to `POST /telephony/plivo/answer` (its application's Answer URL), signed
 *   with X-Plivo-Signature-V3 by the company's Auth Token; the number is found by `To`; the answer is
 *   `<Response><Stream bidirectional="true" keepCallAlive="true" contentType="audio/x-mulaw;rate=8000">` with
 *   the one-time token in the stream's path.
 * - Outbound: the Call API with answer_url `/telephony/plivo/answer/{call_id}` (the Stream XML),
 *   hangup_url and machine_detection_url `/telephony/plivo/status/{call_id}`.
 * - end_call: DELETE the call; transfer_call and the voicemail message: the live call is transferred to
 *   `/telephony/plivo/xml/{call_id}` (signed like every Plivo request) which answers <Dial> or <Speak>.
 * - The stream's WebSocket: signed by Plivo like every request (403 without a valid signature), then the
 *   one-time token in its path.
 * - Replays: every signed request's nonce is remembered (nonces.ts) and a second use refused with 403; one
 *   call per CallUUID (admitInbound), and the same stream XML when Plivo asks again for a call.
 */

import type { CallStatus } from '@contract/call-values.js';
import { INBOUND_STREAM_TOKEN_TTL_MS } from '@contract/telephony.js';
import type WebSocket from 'ws';
import {
  type PlivoAccount,
  PlivoRest,
  plivoAccount,
  plivoDialXml,
  plivoSpeakAndHangUpXml,
  plivoStreamXml,
  validPlivoSignature,
} from '../../carriers/plivo/rest.js';
import { PlivoTransport } from '../../carriers/plivo/stream.js';
import { isId } from '../../platform/crypto/ids.js';
import { parseJson } from '../../platform/db/json.js';
import type { AppDeps } from '../../platform/deps.js';
import { agentDocOrUndefined } from '../../voice/engine/plan.js';
import { fillVariables } from '../../voice/engine/text.js';
import { type CallRuntime, type CallSessionRow, claimCallToken, hashToken } from '../conversations/index.js';
import { firstUseOfNonce } from './nonces.repo.js';
import {
  admitInbound,
  type CarrierAnswer,
  carrierStreamToken,
  dialEnded,
  forbidden,
  formPairs,
  numberByPhone,
  publicBase,
  publicWsBase,
  refuseDestination,
  runPhoneLine,
  TELEPHONY_PATHS,
  xml,
} from './service.js';

export interface PlivoHeaders {
  signature: string | undefined;
  nonce: string | undefined;
}

/** Plivo sends numbers without '+' (14155550100): Parley keeps E.164. */
const e164 = (n: string) => (/^\d{8,15}$/.test(n) ? `+${n}` : n);

/**
 * The company's Plivo account when the request is Plivo's: signed (V3) with its Auth Token, and a nonce
 * never seen before (a request sent again is a replay). Undefined (and a log line) otherwise.
 */
async function verifiedPlivo(
  deps: AppDeps,
  companyId: string,
  url: string,
  params: [string, string][],
  h: PlivoHeaders,
  where: string,
  method: 'GET' | 'POST' = 'POST',
): Promise<PlivoAccount | undefined> {
  const account = await plivoAccount(deps, companyId);
  if (!account || !validPlivoSignature(account.authToken, url, params, h.nonce, h.signature, method)) {
    deps.logger.warn('plivo request refused: bad signature', { where });
    return undefined;
  }
  if (!(await firstUseOfNonce(deps, companyId, 'plivo', h.nonce ?? ''))) {
    deps.logger.warn('plivo request refused: its nonce was used before (a replay)', { where });
    return undefined;
  }
  return account;
}

async function callRow(deps: AppDeps, callId: string) {
  if (!isId(callId)) return undefined;
  const row = await deps.db.db.selectFrom('call_sessions').selectAll().where('id', '=', callId).executeTakeFirst();
  return row?.provider === 'plivo' ? row : undefined;
}

const streamXmlFor = (deps: AppDeps, row: CallSessionRow, token: string) =>
  xml(plivoStreamXml(`${publicWsBase(deps)}${TELEPHONY_PATHS.plivoStream(row.id, token)}`));

/** `POST /telephony/plivo/answer`: an inbound call to one of the companies' Plivo numbers. */
export async function plivoAnswer(deps: AppDeps, rawBody: string, query: string, h: PlivoHeaders): Promise<CarrierAnswer> {
  const params = formPairs(rawBody);
  const get = (k: string) => params.find(([n]) => n === k)?.[1] ?? '';
  const to = e164(get('To'));
  const from = e164(get('From'));
  const callUuid = get('CallUUID');
  const number = to ? await numberByPhone(deps, to, 'plivo') : undefined;
  if (!number?.company_id) {
    deps.logger.warn('plivo request refused: unknown number', { where: 'answer' });
    return forbidden;
  }
  const url = `${publicBase(deps)}${TELEPHONY_PATHS.plivoAnswer}${query}`;
  if (!(await verifiedPlivo(deps, number.company_id, url, params, h, 'answer'))) return forbidden;
  if (!/^[0-9a-fA-F-]{16,64}$/.test(callUuid)) return { status: 400, body: 'Bad Request', contentType: 'text/plain' };
  const admitted = await admitInbound(deps, number, { from, to, callSid: callUuid, provider: 'plivo' });
  if ('say' in admitted) return xml(plivoSpeakAndHangUpXml(admitted.say));
  return streamXmlFor(deps, admitted.row, admitted.token);
}

/**
 * `POST /telephony/plivo/answer/{call_id}`: an outbound call was answered; its stream token is set now and
 * travels in this XML (Plivo only learns it here). Asked again (Plivo retrying, with a new nonce), the same
 * XML: the token is derived from the call (carrierStreamToken) and opens one stream at most.
 */
export async function plivoOutboundAnswer(
  deps: AppDeps,
  callId: string,
  rawBody: string,
  query: string,
  h: PlivoHeaders,
): Promise<CarrierAnswer> {
  const row = await callRow(deps, callId);
  if (!row) return forbidden;
  const params = formPairs(rawBody);
  const url = `${publicBase(deps)}${TELEPHONY_PATHS.plivoOutboundAnswer(callId)}${query}`;
  if (!(await verifiedPlivo(deps, row.company_id, url, params, h, 'answer'))) return forbidden;
  const callUuid = params.find(([k]) => k === 'CallUUID')?.[1] ?? '';
  if (callUuid && !row.provider_call_id)
    await deps.db.db
      .updateTable('call_sessions')
      .set({ provider_call_id: callUuid, provider_status: 'in-progress' })
      .where('id', '=', row.id)
      .where('company_id', '=', row.company_id)
      .execute();
  if (row.status !== 'registered' && row.status !== 'ongoing')
    return xml('<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>');
  const token = carrierStreamToken(deps, row.id);
  await deps.db.db
    .updateTable('call_sessions')
    .set({
      token_hash: hashToken(token),
      token_expires_at: new Date(deps.clock.now().getTime() + INBOUND_STREAM_TOKEN_TTL_MS).toISOString(),
    })
    .where('id', '=', row.id)
    .where('company_id', '=', row.company_id)
    .where('status', '=', 'registered')
    .where('token_hash', 'is', null)
    .execute();
  return streamXmlFor(deps, row, token);
}

export const PLIVO_END_STATUS: Record<
  string,
  { status: Extract<CallStatus, 'busy' | 'no-answer' | 'failed' | 'canceled'>; reason: string }
> = {
  busy: { status: 'busy', reason: 'dial_busy' },
  'no-answer': { status: 'no-answer', reason: 'dial_no_answer' },
  timeout: { status: 'no-answer', reason: 'dial_no_answer' },
  failed: { status: 'failed', reason: 'dial_failed' },
  rejected: { status: 'failed', reason: 'dial_failed' },
  cancel: { status: 'canceled', reason: 'dial_canceled' },
};

/**
 * `POST /telephony/plivo/status/{call_id}`: the hangup callback (CallStatus, HangupCause) or the machine
 * detection's answer (Machine=true). A voicemail reached does the agent's voicemail action.
 */
export async function plivoStatus(deps: AppDeps, callId: string, rawBody: string, h: PlivoHeaders): Promise<CarrierAnswer> {
  const row = await callRow(deps, callId);
  if (!row) return forbidden;
  const params = formPairs(rawBody);
  const get = (k: string) => params.find(([n]) => n === k)?.[1] ?? '';
  const url = `${publicBase(deps)}${TELEPHONY_PATHS.plivoStatus(callId)}`;
  const account = await verifiedPlivo(deps, row.company_id, url, params, h, 'status');
  if (!account) return forbidden;
  const uuid = get('CallUUID');
  if (row.provider_call_id && uuid && uuid !== row.provider_call_id) return forbidden;
  const status = get('CallStatus');
  const machine = get('Machine') === 'true';
  await deps.db.db
    .updateTable('call_sessions')
    .set({
      ...(status ? { provider_status: status } : {}),
      ...(machine ? { answered_by: 'machine_end_other' } : {}),
      ...(!row.provider_call_id && uuid ? { provider_call_id: uuid } : {}),
    })
    .where('id', '=', callId)
    .where('company_id', '=', row.company_id)
    .execute();
  if (machine && row.status !== 'ended' && row.status !== 'error' && uuid) {
    const agent = agentDocOrUndefined(row.agent);
    const message = fillVariables(agent?.editor.voicemailMessage ?? '', parseJson(row.dynamic_variables, {})).trim();
    const leave = agent?.editor.voicemailAction === 'leave' && message !== '';
    const rest = new PlivoRest(deps, account);
    deps.logger.info('voicemail reached', { callId, action: leave ? 'leave' : 'hang' });
    await (leave
      ? rest.transfer(uuid, `${publicBase(deps)}${TELEPHONY_PATHS.plivoXml(callId)}?do=voicemail`)
      : rest.hangUp(uuid)
    ).catch((e) => deps.logger.warn('voicemail action failed', { callId, reason: e instanceof Error ? e.message : String(e) }));
  }
  await dialEnded(deps, row, PLIVO_END_STATUS[status], status === 'completed', machine ? 'machine' : '');
  return { status: 204, body: '', contentType: 'text/plain' };
}

/**
 * `POST /telephony/plivo/xml/{call_id}?do=transfer&to=+1…` or `?do=voicemail`: the XML a live call is
 * transferred to. The query is part of what Plivo signs, so the number cannot be changed on the way.
 */
export async function plivoXml(deps: AppDeps, callId: string, rawBody: string, query: string, h: PlivoHeaders) {
  const row = await callRow(deps, callId);
  if (!row) return forbidden;
  const url = `${publicBase(deps)}${TELEPHONY_PATHS.plivoXml(callId)}${query}`;
  if (!(await verifiedPlivo(deps, row.company_id, url, formPairs(rawBody), h, 'xml'))) return forbidden;
  const q = new URLSearchParams(query.slice(1));
  if (q.get('do') === 'transfer' && /^\+[1-9]\d{7,14}$/.test(q.get('to') ?? ''))
    return xml(plivoDialXml(q.get('to') as string, row.phone_number || undefined));
  const agent = agentDocOrUndefined(row.agent);
  const message = fillVariables(agent?.editor.voicemailMessage ?? '', parseJson(row.dynamic_variables, {})).trim();
  return xml(plivoSpeakAndHangUpXml(message));
}

/**
 * The stream's upgrade, signed by Plivo like every request it makes (a GET of the stream URL, a nonce never
 * seen before): 403 without that; then the one-time token (401 when used or expired).
 */
export async function acceptPlivoStream(
  deps: AppDeps,
  rt: CallRuntime,
  callId: string,
  token: string,
  h: PlivoHeaders,
): Promise<{ row: CallSessionRow; account: PlivoAccount } | { refuse: 401 | 403 }> {
  const found = await callRow(deps, callId);
  if (!found) return { refuse: 403 };
  const url = `${publicWsBase(deps)}${TELEPHONY_PATHS.plivoStream(callId, token)}`;
  const account = await verifiedPlivo(deps, found.company_id, url, [], h, 'stream', 'GET');
  if (!account) return { refuse: 403 };
  const row = await claimCallToken(deps.db.db, callId, token, deps.clock.now(), rt.serverId);
  if (!row) return { refuse: 401 };
  return { row, account };
}

export function runPlivoCall(deps: AppDeps, rt: CallRuntime, row: CallSessionRow, account: PlivoAccount, ws: WebSocket) {
  const rest = new PlivoRest(deps, account);
  runPhoneLine(
    deps,
    rt,
    row,
    (line) =>
      new PlivoTransport(ws, {
        hangUpCall: async () => {
          if (line.callSid) await rest.hangUp(line.callSid);
        },
        transferCall: async (number) => {
          await refuseDestination(deps, row.company_id, number);
          const q = new URLSearchParams({ do: 'transfer', to: number });
          await rest.transfer(line.callSid, `${publicBase(deps)}${TELEPHONY_PATHS.plivoXml(row.id)}?${q}`);
        },
        warn: (message, fields) => deps.logger.warn(message, { callId: row.id, ...fields }),
      }),
  );
}
