/**
 * Twilio, as Parley uses it, written from Twilio's documentation:
 * - Webhook security (https://www.twilio.com/docs/usage/webhooks/webhooks-security): `X-Twilio-Signature`
 *   is base64(HMAC-SHA1(auth token, full URL + each POST parameter's name and value, sorted by name)).
 *   The WebSocket handshake of a Media Stream is signed the same way, over the Stream's URL with no
 *   parameters (https://www.twilio.com/docs/voice/media-streams#secure-websocket).
 * - Calls resource (https://www.twilio.com/docs/voice/api/call-resource): `POST
 *   /2010-04-01/Accounts/{AccountSid}/Calls.json` (form-encoded, HTTP Basic auth with the Account SID and
 *   Auth Token) with To, From, Twiml, StatusCallback, StatusCallbackEvent, StatusCallbackMethod,
 *   MachineDetection, Timeout (seconds a dialled phone may ring, 5-600, then `no-answer`); `POST
 *   .../Calls/{Sid}.json` with `Twiml` (redirect a live call), `Status=completed` (hang up) or
 *   `Status=canceled` (cancel a call still queued or ringing);
 *   `GET .../Calls/{Sid}.json` (fetch: `status` queued | ringing | in-progress | completed | busy | no-answer |
 *   failed | canceled, `duration` in seconds as a string once ended; 404 with code 20404 for an unknown Sid).
 * - Message resource (https://www.twilio.com/docs/messaging/api/message-resource): `POST
 *   /2010-04-01/Accounts/{AccountSid}/Messages.json` (form-encoded, the same Basic auth) with From (a number
 *   of the account), To and Body (at most 1,600 characters); answers 201 with the message (`sid` SM…,
 *   `status` queued); errors are JSON {code, message, more_info, status} (https://www.twilio.com/docs/api/errors:
 *   21211 invalid To, 21606 a From that is not the account's, 21602 no Body, 20003 authentication).
 * - TwiML <Dial><Conference> (https://www.twilio.com/docs/voice/twiml/conference): a named room of the
 *   account; startConferenceOnEnter=false makes a participant wait (with hold music) until one with true
 *   enters; endConferenceOnExit=true ends the room (and the other legs) when that participant leaves. A warm
 *   transfer joins the caller and the person dialled in one room: the person's leg first says the summary.
 * - TwiML <Connect><Stream> (https://www.twilio.com/docs/voice/twiml/stream): a bidirectional media stream;
 *   Twilio drops a query string from the Stream URL, so what identifies the call goes in its path;
 *   <Parameter> values come back in the `start` message's customParameters.
 *
 * The REST origin is TWILIO_API_URL (tests point it at tests/fakes/twilio.ts); the account is handed in by
 * the module per call and never logged. The carrier itself (server/carriers/twilio/index.ts) is built on these.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { CarrierApiError, type CarrierHttp, XML_DECLARATION as XML, xmlEscape } from '../types.js';

export const TWILIO_API_URL = 'https://api.twilio.com';

export interface TwilioAccount {
  accountSid: string;
  authToken: string;
}

/** Twilio's signature of a request to `url` with form `params` (sorted by name, then value). */
export function twilioSignature(authToken: string, url: string, params: Iterable<[string, string]> = []): string {
  const sorted = [...params].sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  let data = url;
  for (const [k, v] of sorted) data += k + v;
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

export function validTwilioSignature(
  authToken: string,
  url: string,
  params: Iterable<[string, string]>,
  header: string | undefined,
): boolean {
  if (!header) return false;
  const expected = Buffer.from(twilioSignature(authToken, url, params));
  const given = Buffer.from(header);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

// ---------------------------------------------------------------------------------------------
// TwiML

/** <Connect><Stream>: a bidirectional media stream to `url`, with custom parameters. */
export function streamTwiml(url: string, parameters: Record<string, string> = {}): string {
  const params = Object.entries(parameters)
    .map(([name, value]) => `<Parameter name="${xmlEscape(name)}" value="${xmlEscape(value)}"/>`)
    .join('');
  return `${XML}<Response><Connect><Stream url="${xmlEscape(url)}">${params}</Stream></Connect></Response>`;
}

/** A short spoken message, then the call ends. */
export const sayAndHangUpTwiml = (text: string) => `${XML}<Response><Say>${xmlEscape(text)}</Say><Hangup/></Response>`;

/** Moves the caller to `number`. */
export const dialTwiml = (number: string, callerId?: string) =>
  `${XML}<Response><Dial${callerId ? ` callerId="${xmlEscape(callerId)}"` : ''}><Number>${xmlEscape(number)}</Number></Dial></Response>`;

/**
 * Joins the call to the conference `room`, after `say` (the warm transfer's summary, on the person's leg).
 * The person's leg starts the room; the caller waits in it until then. Either leaving ends it.
 */
export function conferenceTwiml(room: string, o: { startOnEnter: boolean; say?: string }): string {
  const say = o.say ? `<Say>${xmlEscape(o.say)}</Say>` : '';
  return `${XML}<Response>${say}<Dial><Conference startConferenceOnEnter="${o.startOnEnter}" endConferenceOnExit="true">${xmlEscape(room)}</Conference></Dial></Response>`;
}

// ---------------------------------------------------------------------------------------------
// REST

export class TwilioApiError extends CarrierApiError {
  override name = 'TwilioApiError';
}

export interface TwilioCall {
  sid: string;
  /** queued, ringing, in-progress, completed, busy, no-answer, failed, canceled */
  status: string;
  /** seconds, once the call has ended (Twilio sends it as a string; null before) */
  duration: number | null;
}

export class TwilioRest {
  constructor(
    private readonly api: CarrierHttp,
    private readonly account: TwilioAccount,
  ) {}

  /** A POST with `form`, or a GET without; answers the JSON body (errors thrown with Twilio's message). */
  async send(path: string, form?: [string, string][], signal?: AbortSignal): Promise<Record<string, unknown>> {
    const auth = Buffer.from(`${this.account.accountSid}:${this.account.authToken}`).toString('base64');
    const res = await this.api.http.fetch(
      `${this.api.baseUrl}/2010-04-01/Accounts/${encodeURIComponent(this.account.accountSid)}${path}`,
      {
        method: form ? 'POST' : 'GET',
        headers: {
          Authorization: `Basic ${auth}`,
          ...(form ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
        },
        ...(form ? { body: new URLSearchParams(form).toString() } : {}),
        ...(signal ? { signal } : {}),
      },
    );
    const text = await res.text();
    let body: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
    } catch {}
    if (!res.ok) {
      const why = res.status === 401 ? 'Twilio refused the Account SID or Auth Token.' : `Twilio answered ${res.status}.`;
      throw new TwilioApiError(res.status, typeof body.message === 'string' ? `${why} ${body.message}` : why);
    }
    return body;
  }

  /** A request about a call: answers the call resource. */
  private async request(path: string, form?: [string, string][]): Promise<TwilioCall> {
    const body = await this.send(path, form);
    if (typeof body.sid !== 'string') throw new TwilioApiError(502, 'Twilio answered without a call.');
    return {
      sid: body.sid,
      status: typeof body.status === 'string' ? body.status : '',
      duration: typeof body.duration === 'string' && /^\d+$/.test(body.duration) ? Number(body.duration) : null,
    };
  }

  /** Sends a text message (Message resource, create); answers its Sid. */
  async createMessage(from: string, to: string, body: string, signal?: AbortSignal): Promise<string> {
    const answer = await this.send(
      '/Messages.json',
      [
        ['From', from],
        ['To', to],
        ['Body', body],
      ],
      signal,
    );
    if (typeof answer.sid !== 'string') throw new TwilioApiError(502, 'Twilio answered without a message.');
    return answer.sid;
  }

  /** Places a call (Calls resource, create). */
  createCall(form: [string, string][]): Promise<TwilioCall> {
    return this.request('/Calls.json', form);
  }

  /** The call as Twilio knows it now (Calls resource, fetch): its status, and its duration once ended. */
  fetchCall(callSid: string): Promise<TwilioCall> {
    return this.request(`/Calls/${encodeURIComponent(callSid)}.json`);
  }

  /** Redirects a live call to new TwiML. */
  updateTwiml(callSid: string, twiml: string): Promise<TwilioCall> {
    return this.request(`/Calls/${encodeURIComponent(callSid)}.json`, [['Twiml', twiml]]);
  }

  /** Cancels a call that is still queued or ringing. */
  cancel(callSid: string): Promise<TwilioCall> {
    return this.request(`/Calls/${encodeURIComponent(callSid)}.json`, [['Status', 'canceled']]);
  }

  /** Ends a live call. */
  hangUp(callSid: string): Promise<TwilioCall> {
    return this.request(`/Calls/${encodeURIComponent(callSid)}.json`, [['Status', 'completed']]);
  }
}
