/**
 * Plivo, as Parley uses it, written from Plivo's documentation:
 * - Signature validation V3 (https://www.plivo.com/docs/voice/concepts/signature-validation):
 *   `X-Plivo-Signature-V3` (one or more, comma-separated) = base64(HMAC-SHA256(auth token,
 *   base + '.' + `X-Plivo-Signature-V3-Nonce`)), where for a POST the base is the URL without its query,
 *   '?', the sorted query string (with a '.' after it when there are also POST parameters), then each POST
 *   parameter's name and value, sorted by name (the reading of the SDKs' validateV3Signature).
 * - Call API (https://www.plivo.com/docs/voice/api/call): `POST /v1/Account/{auth_id}/Call/` (JSON; HTTP
 *   Basic auth with the Auth ID and Auth Token) with from, to, answer_url, answer_method, hangup_url,
 *   hangup_method, machine_detection, machine_detection_url; `POST /v1/Account/{auth_id}/Call/{uuid}/`
 *   with legs=aleg and aleg_url (transfer the live call to new XML); `POST .../Call/{uuid}/DTMF/` with digits
 *   and legs (send digits, https://www.plivo.com/docs/voice/api/call/send-digits); `DELETE .../Call/{uuid}/` (hang up);
 *   `GET .../Call/{uuid}/` (retrieve a call: the call detail record of an ended call, with hangup_cause_name,
 *   hangup_cause_code, answer_time, call_duration; https://www.plivo.com/docs/voice/api/call/retrieve-a-call
 *   and the hangup causes of https://www.plivo.com/docs/voice/troubleshooting/hangup-causes).
 * - Message API (https://www.plivo.com/docs/messaging/api/message/send-a-message and
 *   https://www.plivo.com/docs/messaging/api/response): `POST /v1/Account/{auth_id}/Message/` (JSON, the same
 *   Basic auth) with src (a number of the account), dst and text; answers 202 {api_id, message: 'message(s)
 *   queued', message_uuid: [...]}; errors are {api_id, error}.
 * - XML (https://www.plivo.com/docs/voice/xml): <Stream bidirectional keepCallAlive contentType>wss://…
 *   </Stream>, <Speak>, <Hangup/>, <Dial><Number>.
 *
 * The REST origin is PLIVO_API_URL (tests point it at tests/fakes/plivo.ts); the account is handed in by the
 * module and never logged. The carrier itself (server/carriers/plivo/index.ts) is built on these.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { CarrierApiError, type CarrierHttp, XML_DECLARATION as XML, xmlEscape } from '../types.js';

export const PLIVO_API_URL = 'https://api.plivo.com';

export interface PlivoAccount {
  authId: string;
  authToken: string;
}

const sortedGroups = (pairs: Iterable<[string, string]>) => {
  const map = new Map<string, string[]>();
  for (const [k, v] of pairs) map.set(k, [...(map.get(k) ?? []), v]);
  return [...map.keys()].sort().map((k) => [k, (map.get(k) ?? []).sort()] as const);
};

/** The string Plivo signs (before '.' + nonce) for a request to `url` with POST `params`. */
export function plivoSignedBase(url: string, params: Iterable<[string, string]>, method: 'GET' | 'POST' = 'POST'): string {
  const u = new URL(url);
  const post = method === 'POST' ? [...params] : [];
  const queryPairs: [string, string][] = [...u.searchParams];
  if (method === 'GET') queryPairs.push(...params);
  const query = sortedGroups(queryPairs)
    .flatMap(([k, vs]) => vs.map((v) => `${k}=${v}`))
    .join('&');
  let base = `${u.protocol}//${u.host}${u.pathname}`;
  if (query.length > 0 || post.length > 0) base += `?${query}`;
  if (query.length > 0 && post.length > 0) base += '.';
  for (const [k, vs] of sortedGroups(post)) for (const v of vs) base += k + v;
  return base;
}

export function plivoSignatureV3(
  authToken: string,
  url: string,
  params: Iterable<[string, string]>,
  nonce: string,
  method: 'GET' | 'POST' = 'POST',
) {
  return createHmac('sha256', authToken)
    .update(`${plivoSignedBase(url, params, method)}.${nonce}`)
    .digest('base64');
}

export function validPlivoSignature(
  authToken: string,
  url: string,
  params: Iterable<[string, string]>,
  nonce: string | undefined,
  header: string | undefined,
  method: 'GET' | 'POST' = 'POST',
): boolean {
  if (!header || !nonce) return false;
  const expected = Buffer.from(plivoSignatureV3(authToken, url, params, nonce, method));
  return header.split(',').some((given) => {
    const g = Buffer.from(given.trim());
    return g.length === expected.length && timingSafeEqual(g, expected);
  });
}

// ---------------------------------------------------------------------------------------------
// XML

/** A bidirectional mu-law 8 kHz audio stream to `url`, the call kept up while it lasts. */
export const plivoStreamXml = (url: string) =>
  `${XML}<Response><Stream bidirectional="true" keepCallAlive="true" contentType="audio/x-mulaw;rate=8000">${xmlEscape(url)}</Stream></Response>`;

export const plivoSpeakAndHangUpXml = (text: string) => `${XML}<Response><Speak>${xmlEscape(text)}</Speak><Hangup/></Response>`;

export const plivoDialXml = (number: string, callerId?: string) =>
  `${XML}<Response><Dial${callerId ? ` callerId="${xmlEscape(callerId)}"` : ''}><Number>${xmlEscape(number)}</Number></Dial></Response>`;

// ---------------------------------------------------------------------------------------------
// REST

export class PlivoApiError extends CarrierApiError {
  override name = 'PlivoApiError';
}

export class PlivoRest {
  constructor(
    private readonly api: CarrierHttp,
    private readonly account: PlivoAccount,
  ) {}

  /** A request under the account (`path` starts with '/'); the JSON answer. */
  async request(
    method: string,
    path: string,
    body?: Record<string, string>,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const auth = Buffer.from(`${this.account.authId}:${this.account.authToken}`).toString('base64');
    const res = await this.api.http.fetch(`${this.api.baseUrl}/v1/Account/${encodeURIComponent(this.account.authId)}${path}`, {
      method,
      headers: { Authorization: `Basic ${auth}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
      ...(signal ? { signal } : {}),
    });
    const text = await res.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {}
    if (!res.ok) {
      const why = res.status === 401 ? 'Plivo refused the Auth ID or Auth Token.' : `Plivo answered ${res.status}.`;
      throw new PlivoApiError(res.status, typeof parsed.error === 'string' ? `${why} ${parsed.error}` : why);
    }
    return parsed;
  }

  /** Places a call; answers Plivo's request_uuid (the call's uuid comes with its answer callback). */
  async createCall(body: Record<string, string>): Promise<string> {
    const r = await this.request('POST', '/Call/', body);
    const uuid = r.request_uuid;
    if (typeof uuid !== 'string') throw new PlivoApiError(502, 'Plivo answered without a call.');
    return uuid;
  }

  /** Sends a text message (Message API, send a message); answers its uuid. */
  async sendMessage(src: string, dst: string, text: string, signal?: AbortSignal): Promise<string> {
    const r = await this.request('POST', '/Message/', { src, dst, text }, signal);
    const uuid = Array.isArray(r.message_uuid) ? r.message_uuid[0] : undefined;
    if (typeof uuid !== 'string') throw new PlivoApiError(502, 'Plivo answered without a message.');
    return uuid;
  }

  /** Transfers the live call (its A leg) to the XML at `url`. */
  async transfer(callUuid: string, url: string): Promise<void> {
    await this.request('POST', `/Call/${encodeURIComponent(callUuid)}/`, { legs: 'aleg', aleg_url: url, aleg_method: 'POST' });
  }

  /** Plays DTMF `digits` (0-9, *, #, w and W for waits) to the caller (Play DTMF on a call, legs=aleg). */
  async sendDigits(callUuid: string, digits: string): Promise<void> {
    await this.request('POST', `/Call/${encodeURIComponent(callUuid)}/DTMF/`, { digits, legs: 'aleg' });
  }

  async hangUp(callUuid: string): Promise<void> {
    await this.request('DELETE', `/Call/${encodeURIComponent(callUuid)}/`);
  }

  /**
   * The call detail record of an ended call (Retrieve a call): `hangup_cause_name`, `answer_time`,
   * `call_duration`... Plivo answers 404 while the call has no record yet (it is still live) or is unknown.
   */
  async getCall(callUuid: string): Promise<PlivoCallRecord> {
    const r = await this.request('GET', `/Call/${encodeURIComponent(callUuid)}/`);
    const text = (k: string) => (typeof r[k] === 'string' ? (r[k] as string) : '');
    return {
      hangupCause: text('hangup_cause_name'),
      answered: text('answer_time') !== '',
      duration: typeof r.call_duration === 'number' ? r.call_duration : null,
    };
  }
}

export interface PlivoCallRecord {
  /** e.g. 'Normal Hangup', 'End Of XML Instructions', 'Canceled', 'Busy Line', 'No Answer' */
  hangupCause: string;
  answered: boolean;
  /** seconds */
  duration: number | null;
}
