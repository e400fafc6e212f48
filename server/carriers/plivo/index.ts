/**
 * Plivo as a carrier (server/carriers/types.ts), built on its Call API, V3 signatures and XML (rest.ts) and
 * its audio-stream dialect (stream.ts). Webhooks under /api/v1/telephony/plivo/: `answer` (the Plivo
 * application's Answer URL, inbound calls), `answer/{call_id}` (an outbound call answered: its stream XML),
 * `status/{call_id}` (hangup and machine detection), `xml/{call_id}` (the XML a live call is transferred
 * to: a transfer or the voicemail message), and the stream's WebSocket `stream/{call_id}/{token}`. Every
 * request Plivo makes carries a nonce: the module refuses one seen before (a replay).
 */

import type { Carrier, DialEnd } from '../types.js';
import { param, XML_DECLARATION } from '../types.js';
import { listPlivoNumbers, pointPlivoNumber, restorePlivoNumber } from './numbers.js';
import {
  PLIVO_API_URL,
  type PlivoAccount,
  PlivoApiError,
  PlivoRest,
  plivoDialXml,
  plivoSpeakAndHangUpXml,
  plivoStreamXml,
  validPlivoSignature,
} from './rest.js';
import { PLIVO_DIALECT } from './stream.js';

/** Plivo's final CallStatus of a call that did not complete. */
export const PLIVO_END_STATUS: Record<string, DialEnd> = {
  busy: { status: 'busy', reason: 'dial_busy' },
  'no-answer': { status: 'no-answer', reason: 'dial_no_answer' },
  timeout: { status: 'no-answer', reason: 'dial_no_answer' },
  failed: { status: 'failed', reason: 'dial_failed' },
  rejected: { status: 'failed', reason: 'dial_failed' },
  cancel: { status: 'canceled', reason: 'dial_canceled' },
};

/** Plivo's hangup cause of an ended call as the CallStatus its hangup callback would have sent. */
export function plivoStatusOf(record: { hangupCause: string; answered: boolean }): string {
  const cause = record.hangupCause;
  if (/busy/i.test(cause)) return 'busy';
  if (/no answer|ring timeout/i.test(cause)) return 'no-answer';
  if (/cancel/i.test(cause)) return 'cancel';
  if (/reject/i.test(cause)) return 'rejected';
  return record.answered ? 'completed' : 'failed';
}

/** Plivo sends numbers without '+' (14155550100): Parley keeps E.164. */
const e164 = (n: string) => (/^\d{8,15}$/.test(n) ? `+${n}` : n);

export const plivo: Carrier<PlivoAccount> = {
  id: 'plivo',
  label: 'Plivo',
  apiUrl: PLIVO_API_URL,
  credentialFields: ['Auth ID', 'Auth Token'],
  // Retrieve account details (https://www.plivo.com/docs/account/api/account#retrieve-account-details): GET
  // /v1/Account/{auth_id}/ with HTTP Basic auth (Auth ID, Auth Token); wrong credentials are 401
  // (https://www.plivo.com/docs/voice/api/overview/#authentication)
  keyCheck: {
    field: 'Auth Token',
    request: (v) => ({
      method: 'GET',
      path: `/v1/Account/${encodeURIComponent(v('Auth ID'))}/`,
      headers: { authorization: `Basic ${Buffer.from(`${v('Auth ID')}:${v('Auth Token')}`).toString('base64')}` },
    }),
    reason: () => 'Plivo refused the Auth ID and Auth Token (401 authentication failed).',
  },
  account(field) {
    const authId = field('Auth ID');
    const authToken = field('Auth Token');
    return authId && authToken ? { authId, authToken } : undefined;
  },
  hooks: { inbound: 'answer', status: 'status', stream: 'stream', answer: 'answer', instructions: 'xml' },
  outboundStream: 'answer',

  verify(account, req) {
    const nonce = req.header('X-Plivo-Signature-V3-Nonce');
    const ok = validPlivoSignature(account.authToken, req.url, req.params, nonce, req.header('X-Plivo-Signature-V3'), req.method);
    return ok ? { ok, nonce: nonce ?? '' } : { ok: false };
  },

  inbound: (params) => ({
    from: e164(param(params, 'From')),
    to: e164(param(params, 'To')),
    callId: param(params, 'CallUUID'),
  }),
  callIdPattern: /^[0-9a-fA-F-]{16,64}$/,

  callback(params) {
    const status = param(params, 'CallStatus');
    const machine = param(params, 'Machine') === 'true';
    return {
      callId: param(params, 'CallUUID'),
      status,
      answeredBy: machine ? 'machine_end_other' : '',
      voicemail: machine,
      end: PLIVO_END_STATUS[status],
      completed: status === 'completed',
    };
  },

  markup: {
    contentType: 'text/xml',
    stream: (url) => plivoStreamXml(url),
    sayAndHangUp: plivoSpeakAndHangUpXml,
    dial: plivoDialXml,
    hangUp: () => `${XML_DECLARATION}<Response><Hangup/></Response>`,
  },

  rest(account, api) {
    const rest = new PlivoRest(api, account);
    return {
      async placeCall(call) {
        if (!call.answerUrl) throw new Error('Plivo dials with an answer URL');
        const request: Record<string, string> = {
          from: call.from.replace(/^\+/, ''),
          to: call.to.replace(/^\+/, ''),
          answer_url: call.answerUrl,
          answer_method: 'POST',
          hangup_url: call.statusUrl,
          hangup_method: 'POST',
        };
        if (call.machineDetection) {
          request.machine_detection = 'true';
          request.machine_detection_time = String(
            Math.min(10_000, Math.max(2000, Math.round((call.machineDetection.seconds || 5) * 1000))),
          );
          request.machine_detection_url = call.statusUrl;
          request.machine_detection_method = 'POST';
        }
        // the call's uuid comes with its answer callback: the request's is kept in the status
        const requestUuid = await rest.createCall(request);
        return { status: `queued:${requestUuid}`.slice(0, 100) };
      },
      hangUp: (callId) => rest.hangUp(callId),
      redirect: (callId, to) => rest.transfer(callId, to.url),
      sendDigits: (callId, digits) => rest.sendDigits(callId, digits),
      // numbers as the Call API takes them: the country code and number, without '+'
      sendMessage: async (message, signal) => ({
        id: await rest.sendMessage(message.from.replace(/^\+/, ''), message.to.replace(/^\+/, ''), message.text, signal),
      }),
      async callEnd(callId) {
        const record = await rest.getCall(callId).catch((e: unknown) => {
          if (e instanceof PlivoApiError && e.status === 404) return undefined; // no record yet: still live
          throw e;
        });
        if (!record) return undefined;
        const status = plivoStatusOf(record);
        return { end: PLIVO_END_STATUS[status], completed: status === 'completed' };
      },
      listNumbers: () => listPlivoNumbers(rest),
      pointNumber: (ref, hooks) => pointPlivoNumber(rest, ref, hooks),
      restoreNumber: (ref, previous) => restorePlivoNumber(rest, ref, previous),
    };
  },

  dialect: PLIVO_DIALECT,
};
