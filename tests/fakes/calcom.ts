/**
 * A fake of Cal.com API v2 as the Cal.com functions use it, written from Cal.com's documents:
 * - Get available time slots for an event type,
 *   https://cal.com/docs/api-reference/v2/slots/get-available-time-slots-for-an-event-type: GET /v2/slots,
 *   header `cal-api-version` "Must be set to 2024-09-04. If not set to this value, the endpoint will default
 *   to an older version" (whose query is startTime/endTime: the fake answers such a request as the older
 *   version would, 400 for the missing startTime); query eventTypeId, start and end (UTC ISO 8601, a date
 *   alone meaning the start or end of that day), timeZone (default UTC); answers
 *   `{"status":"success","data":{"2050-09-05":[{"start":"2050-09-05T09:00:00.000+02:00"}]}}`, dates and
 *   offsets in timeZone, `{}` when nothing is free.
 * - Create a booking, https://cal.com/docs/api-reference/v2/bookings/create-a-booking: POST /v2/bookings,
 *   header `cal-api-version` "Must be set to 2024-08-13" (the older version wants `responses`: 400 without
 *   it); body start ("in ISO 8601 format in UTC timezone"), eventTypeId, attendee {name, timeZone, email,
 *   phoneNumber in international format}; at least one contact method ("Attendee email or phone number
 *   properties wrong. They must have at least one contact method (email or phone number)."); 201
 *   `{"status":"success","data":{"id","uid","title","status":"accepted","start","end",...}}`.
 * - Get my profile, https://cal.com/docs/api-reference/v2/me/get-my-profile: GET /v2/me answers
 *   `{"status":"success","data":{"id","username","email","timeZone",...}}` (the Providers page's check).
 * - Authentication: `Authorization: Bearer <api key prefixed with cal_>`; the fake requires the key on both
 *   endpoints (a wrong or missing one: 401 UnauthorizedException). Errors are
 *   `{"status":"error","timestamp","path","error":{"code","message"}}`; a taken or unavailable slot is a 400
 *   "User either already has booking at this time or is not available"; `throttleNext()` answers 429
 *   ThrottlerException as Cal.com's rate limit does.
 */
import type http from 'node:http';
import { HttpFake, readBody, sendJson } from './listen.js';

export const CAL_SLOTS_VERSION = '2024-09-04';
export const CAL_BOOKINGS_VERSION = '2024-08-13';

export interface CalRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

export interface CalBooking {
  id: number;
  uid: string;
  start: string;
  eventTypeId: number;
  attendee: Record<string, unknown>;
}

/** '+02:00' style offset of `ms` in `tz`, from Intl's longOffset name ('GMT+02:00', 'GMT' for zero). */
function offsetText(ms: number, tz: string): string {
  const name =
    new Intl.DateTimeFormat('en-US', { timeZone: tz, timeZoneName: 'longOffset' })
      .formatToParts(ms)
      .find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /GMT([+-]\d{2}):?(\d{2})?/.exec(name);
  return m ? `${m[1]}:${m[2] ?? '00'}` : '+00:00';
}

/** `ms` as Cal.com writes a slot: local wall clock in `tz` with its offset. */
function localIso(ms: number, tz: string): { date: string; iso: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(ms)
      .map((p) => [p.type, p.value]),
  );
  const date = `${parts.year}-${parts.month}-${parts.day}`;
  return { date, iso: `${date}T${parts.hour}:${parts.minute}:${parts.second}.000${offsetText(ms, tz)}` };
}

const validZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

/** A date alone is the start (or end) of that day in UTC; otherwise an ISO instant. */
function instantOf(value: string, endOfDay: boolean): number {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return Date.parse(`${value}T${endOfDay ? '23:59:59.999' : '00:00:00.000'}Z`);
  return Date.parse(value);
}

export class CalcomFake extends HttpFake {
  readonly requests: CalRequest[] = [];
  readonly bookings: CalBooking[] = [];

  /**
   * @param apiKey the key the company connected
   * @param eventTypeId the only event type the account has
   * @param slots the free start times (UTC ISO); a booked one is no longer free
   * @param lengthMinutes the event type's length
   */
  constructor(
    readonly apiKey = 'cal_live_0123456789abcdef',
    readonly eventTypeId = 1234,
    public slots: string[] = [],
    readonly lengthMinutes = 30,
  ) {
    super();
  }

  private error(res: http.ServerResponse, path: string, status: number, code: string, message: string) {
    sendJson(res, status, { status: 'error', timestamp: new Date().toISOString(), path, error: { code, message } });
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
    if (req.headers.authorization !== `Bearer ${this.apiKey}`)
      return this.error(res, url.pathname, 401, 'UnauthorizedException', 'Invalid Access Token.');
    if (this.takeThrottle()) {
      return this.error(res, url.pathname, 429, 'TooManyRequestsException', 'ThrottlerException: Too Many Requests');
    }
    if (req.method === 'GET' && url.pathname === '/v2/me')
      return sendJson(res, 200, {
        status: 'success',
        data: { id: 1, username: 'acme', email: 'owner@acme.example', timeZone: 'Europe/Rome', weekStart: 'Monday' },
      });
    if (req.method === 'GET' && url.pathname === '/v2/slots') return this.slotsAnswer(url, res);
    if (req.method === 'POST' && url.pathname === '/v2/bookings') return this.book(req, body, res);
    return this.error(res, url.pathname, 404, 'NotFoundException', `Cannot ${req.method} ${url.pathname}`);
  }

  private slotsAnswer(url: URL, res: http.ServerResponse) {
    const q = url.searchParams;
    if (this.requests.at(-1)?.headers['cal-api-version'] !== CAL_SLOTS_VERSION)
      // the older version of /v2/slots reads startTime and endTime
      return this.error(res, url.pathname, 400, 'BadRequestException', 'startTime must be a valid ISO 8601 date string');
    const start = q.get('start');
    const end = q.get('end');
    if (!start || !end) return this.error(res, url.pathname, 400, 'BadRequestException', 'start and end are required');
    const from = instantOf(start, false);
    const to = instantOf(end, true);
    if (Number.isNaN(from) || Number.isNaN(to))
      return this.error(res, url.pathname, 400, 'BadRequestException', 'start and end must be ISO 8601 date strings');
    const tz = q.get('timeZone') ?? 'UTC';
    if (!validZone(tz)) return this.error(res, url.pathname, 400, 'BadRequestException', `Invalid time zone ${tz}`);
    if (q.get('eventTypeId') !== String(this.eventTypeId))
      return this.error(res, url.pathname, 404, 'NotFoundException', `Event Type with id=${q.get('eventTypeId')} not found`);
    const data: Record<string, { start: string }[]> = {};
    for (const s of this.slots) {
      const ms = Date.parse(s);
      if (ms < from || ms > to) continue;
      const { date, iso } = localIso(ms, tz);
      const day = data[date] ?? [];
      day.push({ start: iso });
      data[date] = day;
    }
    sendJson(res, 200, { status: 'success', data });
  }

  private book(req: http.IncomingMessage, body: unknown, res: http.ServerResponse) {
    const path = '/v2/bookings';
    const b = (body ?? {}) as Record<string, unknown>;
    if (req.headers['cal-api-version'] !== CAL_BOOKINGS_VERSION && b.responses === undefined)
      // the older version of /v2/bookings takes the attendee in `responses`
      return this.error(res, path, 400, 'BadRequestException', 'responses should not be null or undefined');
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json') || typeof body !== 'object' || !body)
      return this.error(res, path, 400, 'BadRequestException', 'Body must be JSON');
    const problems: string[] = [];
    if (typeof b.start !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z$/.test(b.start))
      problems.push('start must be a valid ISO 8601 date string in UTC');
    if (typeof b.eventTypeId !== 'number') problems.push('eventTypeId must be a number');
    const a = (b.attendee ?? null) as Record<string, unknown> | null;
    if (!a || typeof a !== 'object') problems.push('attendee should not be null or undefined');
    else {
      if (typeof a.name !== 'string' || !a.name) problems.push('attendee.name must be a string');
      if (typeof a.timeZone !== 'string' || !validZone(a.timeZone)) problems.push('attendee.timeZone must be a valid time zone');
      if (a.email !== undefined && (typeof a.email !== 'string' || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(a.email)))
        problems.push('attendee.email must be an email');
      if (a.phoneNumber !== undefined && (typeof a.phoneNumber !== 'string' || !/^\+[1-9]\d{6,14}$/.test(a.phoneNumber)))
        problems.push('attendee.phoneNumber must be a valid phone number');
    }
    if (problems.length > 0) return this.error(res, path, 400, 'BadRequestException', problems.join(', '));
    if (a && a.email === undefined && a.phoneNumber === undefined)
      return this.error(
        res,
        path,
        400,
        'BadRequestException',
        'Attendee email or phone number properties wrong. They must have at least one contact method (email or phone number).',
      );
    if (b.eventTypeId !== this.eventTypeId)
      return this.error(res, path, 404, 'NotFoundException', `Event type with id=${b.eventTypeId} not found`);
    const startMs = Date.parse(b.start as string);
    const free = this.slots.findIndex((s) => Date.parse(s) === startMs);
    if (free < 0)
      return this.error(
        res,
        path,
        400,
        'BadRequestException',
        'User either already has booking at this time or is not available',
      );
    this.slots.splice(free, 1);
    const id = 1000 + this.bookings.length;
    const uid = `bk_${id}_${startMs.toString(36)}`;
    const start = new Date(startMs).toISOString();
    this.bookings.push({ id, uid, start, eventTypeId: this.eventTypeId, attendee: a ?? {} });
    sendJson(res, 201, {
      status: 'success',
      data: {
        id,
        uid,
        title: 'Appointment',
        status: 'accepted',
        start,
        end: new Date(startMs + this.lengthMinutes * 60_000).toISOString(),
        duration: this.lengthMinutes,
        eventTypeId: this.eventTypeId,
        attendees: [{ name: a?.name, email: a?.email, timeZone: a?.timeZone, phoneNumber: a?.phoneNumber }],
        location: 'integrations:daily',
      },
    });
  }
}
