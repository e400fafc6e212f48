/**
 * Fakes of the carriers' number resources, as Parley's import uses them, written from their documents:
 *
 * Twilio, IncomingPhoneNumber resource (https://www.twilio.com/docs/phone-numbers/api/incomingphonenumber-resource):
 * - `GET /2010-04-01/Accounts/{AccountSid}/IncomingPhoneNumbers.json?PageSize=N[&Page=P&PageToken=T]` answers
 *   `{incoming_phone_numbers: [...], next_page_uri, page, page_size}`; each number has `sid` (PN + 32 hex),
 *   `phone_number` (E.164), `friendly_name`, `voice_url`, `voice_method`, `status_callback`,
 *   `status_callback_method`, `voice_application_sid`, `capabilities: {voice, sms, mms}`. PageSize at most 1000.
 * - `GET …/IncomingPhoneNumbers/{Sid}.json` (fetch), `POST …/IncomingPhoneNumbers/{Sid}.json` (update, form
 *   encoded: VoiceUrl, VoiceMethod GET|POST, StatusCallback, StatusCallbackMethod, VoiceApplicationSid, ...);
 *   an unknown Sid answers 404 with code 20404; a VoiceUrl that is not an absolute URL answers 400 (21502).
 * - HTTP Basic auth with the Account SID and Auth Token, else 401 with code 20003.
 * - `GET /2010-04-01/Accounts/{AccountSid}.json` (https://www.twilio.com/docs/iam/api/account): the account, the
 *   Providers page's key check (404 code 20404 for another account).
 *
 * Plivo, Phone Number API (https://www.plivo.com/docs/numbers/api/account-phone-number) and Application API
 * (https://www.plivo.com/docs/voice/api/application):
 * - `GET /v1/Account/{auth_id}/Number/?limit=L&offset=O` (limit at most 20) answers `{api_id, meta: {limit,
 *   next, offset, previous, total_count}, objects: [{number (no '+'), alias, application, voice_enabled,
 *   sms_enabled, ...}]}`; `GET …/Number/{number}/`; `POST …/Number/{number}/` (JSON `{app_id}`, '' unlinks)
 *   answers 202 `{api_id, message: 'changed'}`.
 * - `POST …/Application/` (JSON app_name, answer_url required, answer_method, hangup_url, hangup_method)
 *   answers 201 `{api_id, app_id, message: 'created'}`; `DELETE …/Application/{app_id}/` answers 204.
 * - HTTP Basic auth with the Auth ID and Auth Token, else 401.
 * - `GET /v1/Account/{auth_id}/` (https://www.plivo.com/docs/account/api/account#retrieve-account-details):
 *   the account, the Providers page's key check.
 *
 * Each fake checks what the carrier checks (auth, required fields, methods, URL shapes) and records every
 * request; a request it does not know is answered 404 and recorded in `violations`.
 */
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { type Listening, listen, readBody, sendJson } from './listen.js';

const basicOk = (req: http.IncomingMessage, user: string, pass: string) =>
  req.headers.authorization === `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

export interface TwilioNumber {
  sid: string;
  phone_number: string;
  friendly_name: string;
  voice_url: string;
  voice_method: string;
  status_callback: string;
  status_callback_method: string;
  voice_application_sid: string;
  capabilities: { voice: boolean; sms: boolean; mms: boolean };
}

/**
 * The IncomingPhoneNumber resource of one Twilio account, for a fake to serve: the standalone
 * TwilioNumbersFake below, and the full TwilioFake (tests/fakes/twilio.ts) of the e2e server.
 */
export class TwilioIncomingNumbers {
  readonly numbers: TwilioNumber[] = [];
  readonly updates: { sid: string; form: Record<string, string> }[] = [];
  readonly violations: string[] = [];
  constructor(private readonly accountSid: () => string) {}

  add(phone: string, settings: Partial<TwilioNumber> = {}): TwilioNumber {
    const n: TwilioNumber = {
      sid: `PN${randomBytes(16).toString('hex')}`,
      phone_number: phone,
      friendly_name: phone,
      voice_url: 'https://old.example.com/voice',
      voice_method: 'POST',
      status_callback: '',
      status_callback_method: 'POST',
      voice_application_sid: '',
      capabilities: { voice: true, sms: true, mms: false },
      ...settings,
    };
    this.numbers.push(n);
    return n;
  }

  /** Whether `pathname` is this resource's (the caller has checked the account's auth). */
  owns(pathname: string) {
    return pathname.startsWith(`/2010-04-01/Accounts/${this.accountSid()}/IncomingPhoneNumbers`);
  }

  serve(req: http.IncomingMessage, res: http.ServerResponse, url: URL, body: string) {
    const base = `/2010-04-01/Accounts/${this.accountSid()}/IncomingPhoneNumbers`;
    if (req.method === 'GET' && url.pathname === `${base}.json`) {
      const size = Number(url.searchParams.get('PageSize') ?? '50');
      const page = Number(url.searchParams.get('Page') ?? '0');
      if (!Number.isInteger(size) || size < 1 || size > 1000)
        return sendJson(res, 400, { code: 20001, message: 'Invalid PageSize' });
      const rows = this.numbers.slice(page * size, (page + 1) * size);
      const more = (page + 1) * size < this.numbers.length;
      return sendJson(res, 200, {
        incoming_phone_numbers: rows,
        page,
        page_size: size,
        next_page_uri: more ? `${base}.json?PageSize=${size}&Page=${page + 1}&PageToken=PA${page + 1}` : null,
      });
    }
    const one = new RegExp(`^${base}/([^/]+)\\.json$`).exec(url.pathname);
    if (one) {
      const n = this.numbers.find((x) => x.sid === one[1]);
      if (!n) return sendJson(res, 404, { code: 20404, message: 'The requested resource was not found', status: 404 });
      if (req.method === 'GET') return sendJson(res, 200, n);
      if (req.method === 'POST') {
        if (req.headers['content-type'] !== 'application/x-www-form-urlencoded') {
          this.violations.push('update not form-encoded');
          return sendJson(res, 400, { code: 20001, message: 'Bad content type' });
        }
        const form = Object.fromEntries(new URLSearchParams(body));
        for (const k of ['VoiceUrl', 'StatusCallback'] as const) {
          const v = form[k];
          if (v !== undefined && v !== '' && !/^https?:\/\//.test(v))
            return sendJson(res, 400, { code: 21502, message: `Invalid ${k}` });
        }
        for (const k of ['VoiceMethod', 'StatusCallbackMethod'] as const) {
          const v = form[k];
          if (v !== undefined && v !== 'GET' && v !== 'POST') return sendJson(res, 400, { code: 20001, message: `Invalid ${k}` });
        }
        this.updates.push({ sid: n.sid, form });
        if (form.VoiceUrl !== undefined) n.voice_url = form.VoiceUrl;
        if (form.VoiceMethod !== undefined) n.voice_method = form.VoiceMethod;
        if (form.StatusCallback !== undefined) n.status_callback = form.StatusCallback;
        if (form.StatusCallbackMethod !== undefined) n.status_callback_method = form.StatusCallbackMethod;
        if (form.VoiceApplicationSid !== undefined) n.voice_application_sid = form.VoiceApplicationSid;
        return sendJson(res, 200, n);
      }
    }
    this.violations.push(`${req.method} ${url.pathname}`);
    sendJson(res, 404, { code: 20404, message: 'The requested resource was not found', status: 404 });
  }
}

/** A Twilio account that has only its numbers (the import's server tests). */
export class TwilioNumbersFake {
  readonly accountSid = `AC${randomBytes(16).toString('hex')}`;
  readonly authToken = randomBytes(16).toString('hex');
  readonly incoming = new TwilioIncomingNumbers(() => this.accountSid);
  /** answer every request with this status (the carrier is down) */
  failWith: number | undefined;
  private constructor(private readonly listening: Listening) {}
  get url() {
    return this.listening.url;
  }
  get numbers() {
    return this.incoming.numbers;
  }
  get updates() {
    return this.incoming.updates;
  }
  get violations() {
    return this.incoming.violations;
  }

  static async start(): Promise<TwilioNumbersFake> {
    let fake: TwilioNumbersFake | undefined;
    const listening = await listen((req, res) => void fake?.handle(req, res));
    fake = new TwilioNumbersFake(listening);
    return fake;
  }

  add(phone: string, settings: Partial<TwilioNumber> = {}): TwilioNumber {
    return this.incoming.add(phone, settings);
  }

  close() {
    return this.listening.close();
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = await readBody(req);
    if (this.failWith)
      return sendJson(res, this.failWith, { code: 20500, message: 'Internal Server Error', status: this.failWith });
    if (!basicOk(req, this.accountSid, this.authToken))
      return sendJson(res, 401, { code: 20003, message: 'Authenticate', status: 401 });
    if (req.method === 'GET' && /^\/2010-04-01\/Accounts\/[^/]+\.json$/.test(url.pathname)) {
      if (url.pathname !== `/2010-04-01/Accounts/${this.accountSid}.json`)
        return sendJson(res, 404, { code: 20404, message: 'The requested resource was not found', status: 404 });
      return sendJson(res, 200, { sid: this.accountSid, friendly_name: 'Fake account', status: 'active' });
    }
    this.incoming.serve(req, res, url, body);
  }
}

export interface PlivoNumber {
  number: string;
  alias: string;
  application: string | null;
  voice_enabled: boolean;
  sms_enabled: boolean;
}

export class PlivoNumbersFake {
  readonly authId = `MA${randomBytes(9).toString('hex').toUpperCase()}`;
  readonly authToken = randomBytes(16).toString('hex');
  readonly numbers: PlivoNumber[] = [];
  readonly applications = new Map<string, Record<string, string>>();
  readonly violations: string[] = [];
  private constructor(private readonly listening: Listening) {}
  get url() {
    return this.listening.url;
  }

  static async start(): Promise<PlivoNumbersFake> {
    let fake: PlivoNumbersFake | undefined;
    const listening = await listen((req, res) => void fake?.handle(req, res));
    fake = new PlivoNumbersFake(listening);
    return fake;
  }

  /** a number (E.164) on the account, linked to an application of its own */
  add(phone: string, settings: Partial<PlivoNumber> = {}): PlivoNumber {
    const appId = String(10_000_000 + this.applications.size);
    this.applications.set(appId, { app_name: 'Old app', answer_url: 'https://old.example.com/answer' });
    const n: PlivoNumber = {
      number: phone.replace(/^\+/, ''),
      alias: '',
      application: `/v1/Account/${this.authId}/Application/${appId}/`,
      voice_enabled: true,
      sms_enabled: true,
      ...settings,
    };
    this.numbers.push(n);
    return n;
  }

  /** the application a number rings now */
  appOf(phone: string): (Record<string, string> & { id: string }) | undefined {
    const n = this.numbers.find((x) => x.number === phone.replace(/^\+/, ''));
    const id = /\/Application\/([^/]+)\/$/.exec(n?.application ?? '')?.[1];
    return id ? { id, ...this.applications.get(id) } : undefined;
  }

  close() {
    return this.listening.close();
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://fake');
    const text = await readBody(req);
    const apiId = randomBytes(8).toString('hex');
    if (!basicOk(req, this.authId, this.authToken))
      return sendJson(res, 401, { api_id: apiId, error: 'Could not verify your access level for that URL.' });
    const base = `/v1/Account/${this.authId}`;
    if (req.method === 'GET' && url.pathname === `${base}/`)
      return sendJson(res, 200, { api_id: apiId, auth_id: this.authId, account_type: 'standard', name: 'Fake account' });
    let body: Record<string, string> = {};
    if (text) {
      if (!String(req.headers['content-type']).startsWith('application/json'))
        return sendJson(res, 400, { api_id: apiId, error: 'Content-Type must be application/json' });
      try {
        body = JSON.parse(text) as Record<string, string>;
      } catch {
        return sendJson(res, 400, { api_id: apiId, error: 'invalid JSON' });
      }
    }
    if (req.method === 'GET' && url.pathname === `${base}/Number/`) {
      const limit = Number(url.searchParams.get('limit') ?? '20');
      const offset = Number(url.searchParams.get('offset') ?? '0');
      if (!Number.isInteger(limit) || limit < 1 || limit > 20)
        return sendJson(res, 400, { api_id: apiId, error: 'limit must be 1 to 20' });
      const rows = this.numbers.slice(offset, offset + limit);
      const next = offset + limit < this.numbers.length ? `${base}/Number/?limit=${limit}&offset=${offset + limit}` : null;
      return sendJson(res, 200, {
        api_id: apiId,
        meta: { limit, next, offset, previous: null, total_count: this.numbers.length },
        objects: rows,
      });
    }
    const num = new RegExp(`^${base}/Number/(\\d+)/$`).exec(url.pathname);
    if (num) {
      const n = this.numbers.find((x) => x.number === num[1]);
      if (!n) return sendJson(res, 404, { api_id: apiId, error: 'not found' });
      if (req.method === 'GET') return sendJson(res, 200, { api_id: apiId, ...n });
      if (req.method === 'POST') {
        if (body.app_id === undefined) return sendJson(res, 400, { api_id: apiId, error: 'nothing to update' });
        if (body.app_id !== '' && !this.applications.has(body.app_id))
          return sendJson(res, 404, { api_id: apiId, error: 'application not found' });
        n.application = body.app_id ? `${base}/Application/${body.app_id}/` : null;
        return sendJson(res, 202, { api_id: apiId, message: 'changed' });
      }
    }
    if (req.method === 'POST' && url.pathname === `${base}/Application/`) {
      if (!body.app_name || !body.answer_url)
        return sendJson(res, 400, { api_id: apiId, error: 'app_name and answer_url are required' });
      if (!/^https?:\/\//.test(body.answer_url)) return sendJson(res, 400, { api_id: apiId, error: 'invalid answer_url' });
      const appId = String(20_000_000 + this.applications.size);
      this.applications.set(appId, body);
      return sendJson(res, 201, { api_id: apiId, app_id: appId, message: 'created' });
    }
    const app = new RegExp(`^${base}/Application/([^/]+)/$`).exec(url.pathname);
    if (req.method === 'DELETE' && app) {
      if (!this.applications.delete(app[1] as string)) return sendJson(res, 404, { api_id: apiId, error: 'not found' });
      res.writeHead(204).end();
      return;
    }
    this.violations.push(`${req.method} ${url.pathname}`);
    sendJson(res, 404, { api_id: apiId, error: 'not found' });
  }
}
