/**
 * The WhatsApp Business Cloud API, as Parley uses it, written from Meta's documents:
 * - Send messages (https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages and
 *   .../guides/send-message-templates): `POST /{version}/{phone_number_id}/messages` with
 *   `Authorization: Bearer {access token}` and JSON {messaging_product: 'whatsapp', recipient_type:
 *   'individual', to, type: 'template', template: {name, language: {code}, components: [{type: 'body',
 *   parameters: [{type: 'text', text}]}]}}; answers {messaging_product, contacts: [{input, wa_id}],
 *   messages: [{id: 'wamid…'}]}.
 * - Phone numbers (https://developers.facebook.com/docs/graph-api/reference/whats-app-business-account-to-number-current-status):
 *   `GET /{version}/{phone_number_id}` answers {id, display_phone_number, verified_name, quality_rating}:
 *   the card's check that its Phone Number ID and Access Token go together.
 * - Errors (https://developers.facebook.com/docs/graph-api/guides/error-handling and the WhatsApp error codes,
 *   https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes): {error: {message, type,
 *   code, error_subcode, error_data: {messaging_product, details}, fbtrace_id}}; 190 an invalid or expired
 *   access token (401), 100 an invalid parameter or unknown object, 132001 a template that does not exist
 *   in that language, 131030 a recipient not allowed on a test number.
 *
 * The Graph API version is fixed here (WHATSAPP_GRAPH_VERSION, v21.0: Meta keeps a version for two years
 * after the next one ships); the origin is WHATSAPP_API_URL (server/platform/env.ts; tests point it at
 * tests/fakes/whatsapp.ts), https://graph.facebook.com unless set. The access token is never logged.
 */

import type { HttpClient } from '../../../platform/deps.js';
import { readWhole as readCapped } from '../../../platform/net/read-capped.js';

export const WHATSAPP_API_URL = 'https://graph.facebook.com';
export const WHATSAPP_GRAPH_VERSION = 'v21.0';

/** A Cloud API request gives up after this long (the engine's timeout for the tool usually comes first). */
const REQUEST_TIMEOUT_MS = 10_000;
/** Answers are small JSON; a longer one is not read past this. */
const ANSWER_MAX_BYTES = 64 * 1024;

export interface WhatsAppAccess {
  phoneNumberId: string;
  accessToken: string;
}

export class WhatsAppApiError extends Error {
  constructor(
    readonly status: number,
    /** Meta's error code (190, 100, 132001…), 0 when the answer had none */
    readonly code: number,
    message: string,
  ) {
    super(message);
    this.name = 'WhatsAppApiError';
  }
}

export interface TemplateMessage {
  /** the recipient's number, E.164 */
  to: string;
  template: string;
  language: string;
  /** the values of the template body's {{1}}, {{2}}… in order */
  parameters: string[];
}

/** The Graph API's error of an answer that is not a success, in words for the model. */
function apiError(status: number, body: Record<string, unknown>): WhatsAppApiError {
  const error = (body.error ?? {}) as { message?: unknown; code?: unknown; error_data?: { details?: unknown } };
  const code = typeof error.code === 'number' ? error.code : 0;
  const details = typeof error.error_data?.details === 'string' ? error.error_data.details : '';
  const message = typeof error.message === 'string' ? error.message.slice(0, 300) : '';
  if (status === 401 || code === 190) return new WhatsAppApiError(status, code, 'WhatsApp refused the access token.');
  const said = [message, details.slice(0, 300)].filter(Boolean).join(' ');
  return new WhatsAppApiError(status, code, `WhatsApp answered ${status}${said ? `: ${said}` : '.'}`);
}

async function graph(
  http: HttpClient,
  baseUrl: string,
  access: WhatsAppAccess,
  path: string,
  signal: AbortSignal,
  body?: unknown,
): Promise<Record<string, unknown>> {
  if (!/^\d{1,32}$/.test(access.phoneNumberId))
    throw new WhatsAppApiError(400, 0, 'The WhatsApp card’s Phone Number ID must be digits.');
  const res = await http.fetch(`${baseUrl || WHATSAPP_API_URL}/${WHATSAPP_GRAPH_VERSION}/${access.phoneNumberId}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      Authorization: `Bearer ${access.accessToken}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.any([signal, AbortSignal.timeout(REQUEST_TIMEOUT_MS)]),
    redirect: 'error',
  });
  const text = await readCapped(res, ANSWER_MAX_BYTES);
  let parsed: Record<string, unknown> = {};
  try {
    parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {}
  if (!res.ok) throw apiError(res.status, parsed);
  return parsed;
}

/** Sends an approved template message; answers its id (wamid…). */
export async function sendTemplate(
  http: HttpClient,
  baseUrl: string,
  access: WhatsAppAccess,
  message: TemplateMessage,
  signal: AbortSignal,
): Promise<string> {
  const answer = await graph(http, baseUrl, access, '/messages', signal, {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: message.to.replace(/^\+/, ''),
    type: 'template',
    template: {
      name: message.template,
      language: { code: message.language },
      ...(message.parameters.length > 0
        ? { components: [{ type: 'body', parameters: message.parameters.map((text) => ({ type: 'text', text })) }] }
        : {}),
    },
  });
  const id = Array.isArray(answer.messages) ? (answer.messages[0] as { id?: unknown } | undefined)?.id : undefined;
  if (typeof id !== 'string') throw new WhatsAppApiError(502, 0, 'WhatsApp answered without a message.');
  return id;
}

/** The phone number the card names, as WhatsApp knows it: the check that its ID and token go together. */
export async function phoneNumberInfo(
  http: HttpClient,
  baseUrl: string,
  access: WhatsAppAccess,
  signal: AbortSignal,
): Promise<{ displayPhoneNumber: string; verifiedName: string }> {
  const answer = await graph(http, baseUrl, access, '', signal);
  const text = (k: string) => (typeof answer[k] === 'string' ? (answer[k] as string) : '');
  return { displayPhoneNumber: text('display_phone_number'), verifiedName: text('verified_name') };
}

/**
 * The check of a company's WhatsApp card (the Providers page's check): the number its Phone Number ID
 * names, read with its Access Token. Answers a sentence for the page; never the token.
 */
export async function checkWhatsAppCard(
  http: HttpClient,
  baseUrl: string,
  access: WhatsAppAccess,
  signal: AbortSignal,
): Promise<{ ok: boolean; msg: string }> {
  try {
    const number = await phoneNumberInfo(http, baseUrl, access, signal);
    const named = [number.displayPhoneNumber, number.verifiedName && `(${number.verifiedName})`].filter(Boolean).join(' ');
    return { ok: true, msg: `WhatsApp accepted the Phone Number ID and Access Token${named ? ` of ${named}` : ''}.` };
  } catch (e) {
    if (e instanceof WhatsAppApiError) return { ok: false, msg: e.message };
    if (signal.aborted) return { ok: false, msg: 'WhatsApp did not answer in time.' };
    return { ok: false, msg: 'WhatsApp could not be reached.' };
  }
}
