/**
 * A fake of the WhatsApp Business Cloud API (Meta's Graph API), as Parley uses it, written from Meta's
 * documents:
 * - Messages, https://developers.facebook.com/docs/whatsapp/cloud-api/reference/messages and
 *   https://developers.facebook.com/docs/whatsapp/cloud-api/guides/send-message-templates: `POST
 *   /{version}/{phone_number_id}/messages` with `Authorization: Bearer {access token}` and JSON
 *   {messaging_product: 'whatsapp', recipient_type?: 'individual', to, type: 'template', template: {name,
 *   language: {code}, components?: [{type: 'body', parameters: [{type: 'text', text}]}]}}; answers 200
 *   {messaging_product, contacts: [{input, wa_id}], messages: [{id: 'wamid.…'}]}.
 * - Phone numbers, `GET /{version}/{phone_number_id}`: {verified_name, display_phone_number, id,
 *   quality_rating}.
 * - Errors, https://developers.facebook.com/docs/graph-api/guides/error-handling and
 *   https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes: {error: {message, type,
 *   code, error_subcode?, error_data?: {messaging_product, details}, fbtrace_id}}. 190 (401) an access token
 *   that is not the number's; 100 with subcode 33 (400) an unknown phone number ID; 100 (400) a missing or
 *   wrong parameter; 132001 (404) a template that does not exist in that language; 132000 (400) a number
 *   of body parameters that is not the template's; 131030 (400) a recipient not in a test number's allowed
 *   list; 2500 (400) a path that is not a Graph API version.
 *
 * It checks what the Cloud API checks: the Bearer token, the version in the path, the phone number ID, the
 * JSON shape of a template message, and the template (name, language, parameter count) against the
 * templates the test registered.
 */
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { type Listening, listen, readBody, sendJson } from './listen.js';

/** Graph API versions the fake serves (Meta keeps each for two years). */
const VERSIONS = new Set(['v19.0', 'v20.0', 'v21.0', 'v22.0', 'v23.0']);

export interface FakeTemplate {
  name: string;
  language: string;
  /** how many {{n}} the body has */
  bodyParameters: number;
}

export interface SentTemplate {
  id: string;
  version: string;
  to: string;
  name: string;
  language: string;
  parameters: string[];
}

export class WhatsAppFake {
  readonly phoneNumberId = String(100_000_000_000_000 + Math.floor(Math.random() * 1e14));
  readonly accessToken = `EAAG${randomBytes(24).toString('hex')}`;
  readonly displayPhoneNumber = '+1 555-010-0000';
  readonly templates: FakeTemplate[] = [];
  /** a test number sends only to these (E.164 digits without '+'); undefined: to anyone */
  allowedRecipients: Set<string> | undefined;
  readonly sent: SentTemplate[] = [];
  /** requests refused: status, code, message */
  readonly refusals: { status: number; code: number; message: string }[] = [];
  /** GETs of the phone number */
  lookups = 0;

  private constructor(private readonly server: Listening) {}

  static async start(): Promise<WhatsAppFake> {
    let fake: WhatsAppFake | undefined;
    const server = await listen((req, res) => {
      void fake?.handle(req, res).catch((e) => sendJson(res, 500, { error: { message: String(e), code: 1 } }));
    });
    fake = new WhatsAppFake(server);
    return fake;
  }

  get url() {
    return this.server.url;
  }

  close() {
    return this.server.close();
  }

  private refuse(
    res: http.ServerResponse,
    status: number,
    code: number,
    message: string,
    more: { type?: string; subcode?: number; details?: string } = {},
  ) {
    this.refusals.push({ status, code, message });
    sendJson(res, status, {
      error: {
        message,
        type: more.type ?? 'OAuthException',
        code,
        ...(more.subcode ? { error_subcode: more.subcode } : {}),
        ...(more.details ? { error_data: { messaging_product: 'whatsapp', details: more.details } } : {}),
        fbtrace_id: randomBytes(8).toString('base64url'),
      },
    });
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const m = /^\/([^/]+)\/([^/]+)(\/messages)?$/.exec(url.pathname);
    if (!m || !VERSIONS.has(m[1] as string))
      return this.refuse(res, 400, 2500, 'Unknown path components: the path must start with a Graph API version');
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (token !== this.accessToken) return this.refuse(res, 401, 190, 'Invalid OAuth access token - Cannot parse access token');
    if (m[2] !== this.phoneNumberId)
      return this.refuse(
        res,
        400,
        100,
        `Unsupported ${req.method === 'GET' ? 'get' : 'post'} request. Object with ID '${m[2]}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
        { type: 'GraphMethodException', subcode: 33 },
      );
    if (!m[3]) {
      if (req.method !== 'GET') return this.refuse(res, 400, 100, 'Unsupported request method');
      this.lookups++;
      return sendJson(res, 200, {
        verified_name: 'Acme Clinic',
        display_phone_number: this.displayPhoneNumber,
        id: this.phoneNumberId,
        quality_rating: 'GREEN',
      });
    }
    if (req.method !== 'POST') return this.refuse(res, 400, 100, 'Unsupported request method');
    if (!String(req.headers['content-type']).startsWith('application/json'))
      return this.refuse(res, 400, 100, '(#100) The request body must be JSON');
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    } catch {
      return this.refuse(res, 400, 100, '(#100) Invalid JSON');
    }
    return this.message(m[1] as string, body, res);
  }

  private message(version: string, body: Record<string, unknown>, res: http.ServerResponse) {
    const invalid = (what: string) => this.refuse(res, 400, 100, `(#100) Invalid parameter`, { details: what });
    if (body.messaging_product !== 'whatsapp') return invalid('messaging_product must be whatsapp');
    if (body.recipient_type !== undefined && body.recipient_type !== 'individual')
      return invalid('recipient_type must be individual');
    const to = typeof body.to === 'string' ? body.to.replace(/^\+/, '') : '';
    if (!/^[1-9]\d{7,14}$/.test(to)) return invalid('to must be a phone number');
    if (body.type !== 'template') return invalid('this fake takes template messages only');
    const t = body.template as { name?: unknown; language?: { code?: unknown }; components?: unknown } | undefined;
    if (!t || typeof t.name !== 'string' || typeof t.language?.code !== 'string')
      return invalid('template needs a name and language.code');
    const components = t.components ?? [];
    if (!Array.isArray(components)) return invalid('template.components must be an array');
    const parameters: string[] = [];
    for (const c of components as { type?: unknown; parameters?: unknown }[]) {
      if (c.type !== 'body' || !Array.isArray(c.parameters))
        return invalid('a component must be {type: body, parameters: [...]}');
      for (const p of c.parameters as { type?: unknown; text?: unknown }[]) {
        if (p.type !== 'text' || typeof p.text !== 'string' || p.text === '')
          return invalid('a body parameter must be {type: text, text}');
        parameters.push(p.text);
      }
    }
    const template = this.templates.find((x) => x.name === t.name && x.language === t.language?.code);
    if (!template)
      return this.refuse(res, 404, 132001, '(#132001) Template name does not exist in the translation', {
        details: `template name (${t.name}) does not exist in ${t.language.code}`,
      });
    if (parameters.length !== template.bodyParameters)
      return this.refuse(res, 400, 132000, '(#132000) Number of parameters does not match the expected number of params', {
        details: `body: number of localizable_params (${parameters.length}) does not match the expected number of params (${template.bodyParameters})`,
      });
    if (this.allowedRecipients && !this.allowedRecipients.has(to))
      return this.refuse(res, 400, 131030, '(#131030) Recipient phone number not in allowed list', {
        details: 'Recipient phone number not in allowed list: Add recipient phone number to recipient list and try again.',
      });
    const id = `wamid.${randomBytes(20).toString('base64url')}`;
    this.sent.push({ id, version, to, name: t.name, language: t.language.code, parameters });
    sendJson(res, 200, { messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: to }], messages: [{ id }] });
  }
}
