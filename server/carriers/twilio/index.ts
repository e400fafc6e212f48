/**
 * Twilio as a carrier (server/carriers/types.ts), built on its REST API, signature and TwiML (rest.ts) and
 * its Media Streams dialect (stream.ts). Webhooks under /api/v1/telephony/twilio/: `voice` (the number's
 * voice URL), `status/{call_id}` (status callbacks and answering-machine detection), and the stream's
 * WebSocket `stream/{call_id}/{token}`. Twilio takes the stream's TwiML with the dial and new TwiML inline
 * to redirect a live call; a warm transfer dials a consult leg and joins both in a conference (warm-transfer.ts).
 */

import type { Carrier, DialEnd } from '../types.js';
import { param, XML_DECLARATION } from '../types.js';
import { listTwilioNumbers, pointTwilioNumber, restoreTwilioNumber } from './numbers.js';
import {
  dialTwiml,
  sayAndHangUpTwiml,
  streamTwiml,
  TWILIO_API_URL,
  type TwilioAccount,
  TwilioRest,
  validTwilioSignature,
} from './rest.js';
import { TWILIO_DIALECT } from './stream.js';
import { twilioWarmTransfer } from './warm-transfer.js';

/** Twilio's final CallStatus of a call that did not complete. */
export const TWILIO_END_STATUS: Record<string, DialEnd> = {
  busy: { status: 'busy', reason: 'dial_busy' },
  'no-answer': { status: 'no-answer', reason: 'dial_no_answer' },
  failed: { status: 'failed', reason: 'dial_failed' },
  canceled: { status: 'canceled', reason: 'dial_canceled' },
};

export const twilio: Carrier<TwilioAccount> = {
  id: 'twilio',
  label: 'Twilio',
  apiUrl: TWILIO_API_URL,
  credentialFields: ['Account SID', 'Auth Token'],
  // Fetch an Account (https://www.twilio.com/docs/iam/api/account): GET /2010-04-01/Accounts/{Sid}.json with
  // HTTP Basic auth (Account SID, Auth Token); a SID and token that do not go together are 401 with code 20003
  // 'Authenticate' (https://www.twilio.com/docs/api/errors/20003); a token that opens another account than the
  // SID named is 404 with code 20404 (https://www.twilio.com/docs/api/errors/20404)
  keyCheck: {
    field: 'Auth Token',
    request: (v) => ({
      method: 'GET',
      path: `/2010-04-01/Accounts/${encodeURIComponent(v('Account SID'))}.json`,
      headers: { authorization: `Basic ${Buffer.from(`${v('Account SID')}:${v('Auth Token')}`).toString('base64')}` },
    }),
    refusedField: (status) => (status === 404 ? 'Account SID' : undefined),
    reason: (status) =>
      status === 404
        ? 'Twilio knows no account with this Account SID for this Auth Token (20404).'
        : 'Twilio refused the Account SID and Auth Token (20003 Authenticate).',
  },
  account(field) {
    const accountSid = field('Account SID');
    const authToken = field('Auth Token');
    return accountSid && authToken ? { accountSid, authToken } : undefined;
  },
  hooks: { inbound: 'voice', status: 'status', stream: 'stream' },
  outboundStream: 'dial',

  // the request must be the company's account (AccountSid, when sent) and signed with its Auth Token
  verify(account, req) {
    const sid = req.params.find(([k]) => k === 'AccountSid')?.[1];
    const ok =
      (sid === undefined || sid === account.accountSid) &&
      validTwilioSignature(account.authToken, req.url, req.params, req.header('X-Twilio-Signature'));
    return { ok };
  },

  inbound: (params) => ({ from: param(params, 'From'), to: param(params, 'To'), callId: param(params, 'CallSid') }),
  callIdPattern: /^CA[0-9a-fA-F]{32}$/,

  callback(params) {
    const status = param(params, 'CallStatus');
    const answeredBy = param(params, 'AnsweredBy');
    return {
      callId: param(params, 'CallSid'),
      status,
      answeredBy,
      voicemail: answeredBy.startsWith('machine_end'),
      end: TWILIO_END_STATUS[status],
      completed: status === 'completed',
    };
  },

  markup: {
    contentType: 'text/xml',
    stream: streamTwiml,
    sayAndHangUp: sayAndHangUpTwiml,
    dial: dialTwiml,
    hangUp: () => `${XML_DECLARATION}<Response><Hangup/></Response>`,
  },

  rest(account, api) {
    const rest = new TwilioRest(api, account);
    return {
      async placeCall(call) {
        if (!call.streamUrl) throw new Error('Twilio dials with the stream URL');
        const form: [string, string][] = [
          ['To', call.to],
          ['From', call.from],
          ['Twiml', streamTwiml(call.streamUrl, { call_id: call.parleyCallId })],
          ['StatusCallback', call.statusUrl],
          ['StatusCallbackMethod', 'POST'],
          ...(['initiated', 'ringing', 'answered', 'completed'] as const).map((e): [string, string] => [
            'StatusCallbackEvent',
            e,
          ]),
        ];
        if (call.machineDetection) {
          form.push(
            ['MachineDetection', 'DetectMessageEnd'],
            ['MachineDetectionTimeout', String(Math.min(60, Math.max(3, Math.round(call.machineDetection.seconds || 30))))],
            ['AsyncAmd', 'true'],
            ['AsyncAmdStatusCallback', call.statusUrl],
            ['AsyncAmdStatusCallbackMethod', 'POST'],
          );
        }
        const placed = await rest.createCall(form);
        return { callId: placed.sid, status: placed.status || 'queued' };
      },
      async hangUp(callId) {
        await rest.hangUp(callId);
      },
      async redirect(callId, to) {
        await rest.updateTwiml(callId, to.markup);
      },
      warmTransfer: (transfer) => twilioWarmTransfer(rest, transfer),
      async sendMessage(message, signal) {
        return { id: await rest.createMessage(message.from, message.to, message.text, signal) };
      },
      async callEnd(callId) {
        const call = await rest.fetchCall(callId);
        const end = TWILIO_END_STATUS[call.status];
        return end || call.status === 'completed' ? { end, completed: call.status === 'completed' } : undefined;
      },
      listNumbers: () => listTwilioNumbers(rest),
      pointNumber: (ref, hooks) => pointTwilioNumber(rest, ref, hooks),
      restoreNumber: (ref, previous) => restoreTwilioNumber(rest, ref, previous),
    };
  },

  dialect: TWILIO_DIALECT,
};
