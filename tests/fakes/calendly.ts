/**
 * A fake of Calendly's API v2 as the Calendly functions use it, written from Calendly's documents:
 * - List Event Type Available Times,
 *   https://developer.calendly.com/api-docs/calendly-api/event-types/list-event-type-available-times (and
 *   the release note of July 9, 2026 raising the range from 7 to 31 days): GET /event_type_available_times,
 *   query event_type (URI), start_time and end_time all required; "Date cannot be in the past", end "must be
 *   in the future and no greater than 31 days from start"; answers `{"collection":[{"status":"available",
 *   "invitees_remaining":1,"start_time":"...Z","scheduling_url":"..."}]}`.
 * - Create Event Invitee (Scheduling API), https://developer.calendly.com/schedule-events-with-ai-agents and
 *   the endpoint reference: POST /invitees, JSON body event_type, start_time (UTC), invitee {email and
 *   timezone required, name or first_name required, text_reminder_number optional}; 201
 *   `{"resource":{"uri","email","name","status":"active","timezone","event","cancel_url","reschedule_url",...}}`.
 * - Get Current User, https://developer.calendly.com/api-docs/calendly-api/users/get-current-user: GET
 *   /users/me answers `{"resource":{"uri","name","email","timezone","current_organization"}}`.
 * - Authentication: `Authorization: Bearer <Personal Access Token>` on every endpoint; 401
 *   `{"title":"Unauthenticated","message":"The access token is invalid"}` otherwise. Errors are
 *   `{"title","message","details":[{"parameter","message"}]}` (400 "Invalid Argument", 404 "Resource Not
 *   Found", 429 "Too Many Requests" as the Scheduling API's per-user rate limits answer: `throttleNext()`).
 */
import type http from 'node:http';
import { HttpFake, readBody, sendJson } from './listen.js';

export const CALENDLY_MAX_RANGE_DAYS = 31;

export interface CalendlyRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export interface CalendlyInvitee {
  uri: string;
  event: string;
  start_time: string;
  invitee: Record<string, unknown>;
}

const validZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

export class CalendlyFake extends HttpFake {
  readonly requests: CalendlyRequest[] = [];
  readonly invitees: CalendlyInvitee[] = [];

  /**
   * @param token the Personal Access Token the company connected
   * @param eventType the URI of the only event type
   * @param times the available start times (UTC ISO); a booked one is no longer available
   * @param now the fake's clock ("in the past" is judged by it)
   */
  constructor(
    readonly token = 'eyJraWQiOiJwYXQtdGVzdCJ9.calendly-pat',
    readonly eventType = 'https://api.calendly.com/event_types/AAAAAAAAAAAAAAAA',
    public times: string[] = [],
    readonly now: () => number = Date.now,
  ) {
    super();
  }

  private invalid(res: http.ServerResponse, details: { parameter: string; message: string }[], message?: string) {
    sendJson(res, 400, { title: 'Invalid Argument', message: message ?? 'The supplied parameters are invalid.', details });
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://fake');
    const text = await readBody(req);
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    this.requests.push({
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body,
    });
    if (req.headers.authorization !== `Bearer ${this.token}`)
      return sendJson(res, 401, { title: 'Unauthenticated', message: 'The access token is invalid' });
    if (this.takeThrottle()) {
      return sendJson(res, 429, {
        title: 'Too Many Requests',
        message: 'You have exceeded the rate limit. Please try again later.',
      });
    }
    if (req.method === 'GET' && url.pathname === '/users/me')
      return sendJson(res, 200, {
        resource: {
          uri: 'https://api.calendly.com/users/AAAAAAAAAAAAAAAA',
          name: 'Acme Owner',
          email: 'owner@acme.example',
          timezone: 'America/New_York',
          current_organization: 'https://api.calendly.com/organizations/AAAAAAAAAAAAAAAA',
        },
      });
    if (req.method === 'GET' && url.pathname === '/event_type_available_times') return this.available(url, res);
    if (req.method === 'POST' && url.pathname === '/invitees') return this.createInvitee(req, body, res);
    sendJson(res, 404, { title: 'Resource Not Found', message: 'The server could not find the requested resource.' });
  }

  private available(url: URL, res: http.ServerResponse) {
    const q = url.searchParams;
    const details: { parameter: string; message: string }[] = [];
    for (const p of ['event_type', 'start_time', 'end_time'])
      if (!q.get(p)) details.push({ parameter: p, message: 'is required' });
    if (details.length > 0) return this.invalid(res, details);
    const from = Date.parse(q.get('start_time') as string);
    const to = Date.parse(q.get('end_time') as string);
    if (Number.isNaN(from)) details.push({ parameter: 'start_time', message: 'must be a valid ISO 8601 date-time' });
    else if (from < this.now()) details.push({ parameter: 'start_time', message: 'must be in the future' });
    if (Number.isNaN(to)) details.push({ parameter: 'end_time', message: 'must be a valid ISO 8601 date-time' });
    else if (to <= from) details.push({ parameter: 'end_time', message: 'must be after start_time' });
    else if (to - from > CALENDLY_MAX_RANGE_DAYS * 86_400_000)
      details.push({ parameter: 'end_time', message: `date range can be no greater than ${CALENDLY_MAX_RANGE_DAYS} days` });
    if (details.length > 0) return this.invalid(res, details);
    if (q.get('event_type') !== this.eventType)
      return sendJson(res, 404, { title: 'Resource Not Found', message: 'The server could not find the requested resource.' });
    const collection = this.times
      .filter((t) => Date.parse(t) >= from && Date.parse(t) <= to)
      .map((t) => ({
        status: 'available',
        invitees_remaining: 1,
        start_time: new Date(Date.parse(t)).toISOString().replace('.000Z', '.000000Z'),
        scheduling_url: `https://calendly.com/acme/30min/${t.slice(0, 16)}`,
      }));
    sendJson(res, 200, { collection });
  }

  private createInvitee(req: http.IncomingMessage, body: unknown, res: http.ServerResponse) {
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json') || typeof body !== 'object' || !body)
      return this.invalid(res, [], 'The request body must be JSON.');
    const b = body as Record<string, unknown>;
    const details: { parameter: string; message: string }[] = [];
    if (typeof b.event_type !== 'string') details.push({ parameter: 'event_type', message: 'is required' });
    const startMs = typeof b.start_time === 'string' ? Date.parse(b.start_time) : Number.NaN;
    if (Number.isNaN(startMs)) details.push({ parameter: 'start_time', message: 'must be a valid ISO 8601 date-time' });
    const inv = (b.invitee ?? null) as Record<string, unknown> | null;
    if (!inv || typeof inv !== 'object') details.push({ parameter: 'invitee', message: 'is required' });
    else {
      if (typeof inv.email !== 'string' || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(inv.email))
        details.push({ parameter: 'invitee.email', message: 'is required and must be a valid email' });
      if (typeof inv.timezone !== 'string' || !validZone(inv.timezone))
        details.push({ parameter: 'invitee.timezone', message: 'is required and must be a valid IANA time zone' });
      if (typeof inv.name !== 'string' && typeof inv.first_name !== 'string')
        details.push({ parameter: 'invitee.name', message: 'is required if invitee.first_name is not provided' });
      if (inv.text_reminder_number !== undefined && !/^\+[1-9]\d{6,14}$/.test(String(inv.text_reminder_number)))
        details.push({ parameter: 'invitee.text_reminder_number', message: 'must be a valid phone number' });
    }
    if (details.length > 0) return this.invalid(res, details);
    if (b.event_type !== this.eventType)
      return sendJson(res, 404, { title: 'Resource Not Found', message: 'The server could not find the requested resource.' });
    const free = this.times.findIndex((t) => Date.parse(t) === startMs);
    if (free < 0) return this.invalid(res, [{ parameter: 'start_time', message: 'The selected time is no longer available.' }]);
    this.times.splice(free, 1);
    const n = this.invitees.length + 1;
    const event = `https://api.calendly.com/scheduled_events/EVENT${n}`;
    const uri = `${event}/invitees/INVITEE${n}`;
    this.invitees.push({ uri, event, start_time: new Date(startMs).toISOString(), invitee: inv ?? {} });
    sendJson(res, 201, {
      resource: {
        uri,
        email: inv?.email,
        name: inv?.name,
        status: 'active',
        timezone: inv?.timezone,
        event,
        text_reminder_number: inv?.text_reminder_number ?? null,
        created_at: new Date(this.now()).toISOString(),
        updated_at: new Date(this.now()).toISOString(),
        cancel_url: `https://calendly.com/cancellations/INVITEE${n}`,
        reschedule_url: `https://calendly.com/reschedulings/INVITEE${n}`,
        rescheduled: false,
        scheduling_method: 'instant_book',
      },
    });
  }
}
