/**
 * Cal.com functions (check_availability_cal, book_appointment_cal) through Cal.com API v2 with the company's
 * Cal.com key (`Authorization: Bearer`), each endpoint with the `cal-api-version` its documentation names:
 * - GET /v2/slots (https://cal.com/docs/api-reference/v2/slots/get-available-time-slots-for-an-event-type),
 *   `cal-api-version: 2024-09-04`, query eventTypeId, start, end (UTC ISO 8601), timeZone; answers
 *   `{"status":"success","data":{"<date>":[{"start":"<ISO with offset>"}]}}`.
 * - POST /v2/bookings (https://cal.com/docs/api-reference/v2/bookings/create-a-booking),
 *   `cal-api-version: 2024-08-13`, body start (UTC), eventTypeId, attendee {name, timeZone, email and/or
 *   phoneNumber}; answers 201 `{"status":"success","data":{"id","uid","start","end","status",...}}`, and
 *   errors as `{"status":"error","error":{"code","message"}}`.
 * The base is CAL_API_URL (server/voice/tools/tool-urls.ts), https://api.cal.com when unset.
 */

import type { AgentFunctionOf } from '@contract/agent/functions.js';
import { failureOf, providerRequest, shortReason, stringArg } from '../provider-request.js';
import { singleTool } from '../single-tool.js';
import { slotList, spoken, startOf, windowOf } from '../time-window.js';
import { TOOL_PROVIDER_URLS } from '../tool-urls.js';
import { type ToolEnv, ToolError, type ToolKind, type ToolOutcome, toolFailed } from '../types.js';

export const CAL_API_VERSION = { slots: '2024-09-04', bookings: '2024-08-13' } as const;
export const CAL_NOT_CONNECTED = 'Cal.com is not connected on the Providers page';
/** Days one availability check may span. */
export const CAL_MAX_DAYS = 14;
const LABEL = 'Cal.com';
const BASE = TOOL_PROVIDER_URLS.calcom.default;

type CalFunction = AgentFunctionOf<'check_availability_cal'> | AgentFunctionOf<'book_appointment_cal'>;

/** Cal.com's reason in an error body: `error.message` (a string or a list of validation messages). */
function calReason(json: unknown): string | undefined {
  const error = (json as { error?: { message?: unknown } } | undefined)?.error;
  const message = error?.message;
  if (Array.isArray(message)) return shortReason(message.filter((m) => typeof m === 'string').join('; '));
  return shortReason(message) ?? shortReason((json as { message?: unknown } | undefined)?.message);
}

/** Runs `body` with the company's Cal.com access; every ToolError becomes an ok:false answer. */
async function withCal(env: ToolEnv, body: (access: NonNullable<ToolEnv['keys']['calcom']>) => Promise<ToolOutcome>) {
  const access = env.keys.calcom;
  if (!access?.apiKey) return toolFailed(CAL_NOT_CONNECTED);
  try {
    return await body(access);
  } catch (e) {
    if (e instanceof ToolError) return toolFailed(e.message);
    throw e;
  }
}

async function checkAvailability(fn: CalFunction, args: Record<string, unknown>, env: ToolEnv): Promise<ToolOutcome> {
  const window = windowOf(args, fn.timezone, env.deps.clock.now().getTime(), CAL_MAX_DAYS);
  if (typeof window === 'string') return toolFailed(window);
  return withCal(env, async (access) => {
    const query = new URLSearchParams({
      eventTypeId: String(fn.event_type_id),
      start: new Date(window.fromMs).toISOString(),
      end: new Date(window.toMs - 1000).toISOString(),
      timeZone: fn.timezone,
    });
    const reply = await providerRequest(LABEL, access, BASE, {
      method: 'GET',
      path: `/v2/slots?${query}`,
      headers: { 'cal-api-version': CAL_API_VERSION.slots },
      signal: env.signal,
    });
    if (reply.status !== 200) return toolFailed(failureOf(LABEL, reply.status, calReason(reply.json)));
    const data = (reply.json as { data?: unknown } | undefined)?.data;
    if (!data || typeof data !== 'object') return toolFailed(`${LABEL} answered without slots`);
    const starts: number[] = [];
    for (const list of Object.values(data as Record<string, unknown>)) {
      if (!Array.isArray(list)) continue;
      for (const slot of list) {
        const ms = Date.parse(String((slot as { start?: unknown })?.start ?? ''));
        if (!Number.isNaN(ms) && ms >= window.fromMs && ms < window.toMs) starts.push(ms);
      }
    }
    return { ok: true, result: JSON.stringify(slotList(starts, fn.timezone, window)) };
  });
}

async function book(fn: CalFunction, args: Record<string, unknown>, env: ToolEnv): Promise<ToolOutcome> {
  const startText = stringArg(args, 'start', 64);
  const startMs = startText ? startOf(startText, fn.timezone) : null;
  if (startMs === null) return toolFailed(`start must be a time like 2025-03-14T15:30 in ${fn.timezone}`);
  const name = stringArg(args, 'name', 200);
  const email = stringArg(args, 'email', 320);
  const phone = stringArg(args, 'phone', 32).replace(/[\s().-]/g, '');
  if (!name) return toolFailed("The attendee's name is needed to book");
  if (!email && !phone) return toolFailed('An email address or a phone number of the attendee is needed to book');
  if (phone && !/^\+[1-9]\d{6,14}$/.test(phone)) return toolFailed('phone must be in international format, like +14155550123');
  return withCal(env, async (access) => {
    const attendee: Record<string, string> = { name, timeZone: fn.timezone };
    if (email) attendee.email = email;
    if (phone) attendee.phoneNumber = phone;
    const reply = await providerRequest(LABEL, access, BASE, {
      method: 'POST',
      path: '/v2/bookings',
      headers: { 'cal-api-version': CAL_API_VERSION.bookings },
      body: { start: new Date(startMs).toISOString(), eventTypeId: fn.event_type_id, attendee },
      signal: env.signal,
    });
    if (reply.status !== 200 && reply.status !== 201) return toolFailed(failureOf(LABEL, reply.status, calReason(reply.json)));
    const data = (reply.json as { data?: unknown } | undefined)?.data;
    const booking = (Array.isArray(data) ? data[0] : data) as Record<string, unknown> | undefined;
    if (!booking || typeof booking !== 'object') return toolFailed(`${LABEL} answered without a booking`);
    const bookedMs = Date.parse(String(booking.start ?? ''));
    const at = Number.isNaN(bookedMs) ? startMs : bookedMs;
    return {
      ok: true,
      result: JSON.stringify({
        booked: true,
        id: booking.id,
        uid: booking.uid,
        status: booking.status,
        start: spoken(at, fn.timezone),
        timezone: fn.timezone,
      }),
    };
  });
}

const WINDOW_PARAMETERS = {
  type: 'object',
  properties: {
    start_date: { type: 'string', description: 'First day to check, YYYY-MM-DD (default: today)' },
    end_date: { type: 'string', description: 'Last day to check, YYYY-MM-DD (or give days)' },
    days: {
      type: 'integer',
      minimum: 1,
      maximum: CAL_MAX_DAYS,
      description: 'Number of days to check from start_date (default 1)',
    },
  },
  required: [],
};

const BOOK_PARAMETERS = {
  type: 'object',
  properties: {
    start: { type: 'string', description: 'Start time from the free times, YYYY-MM-DDTHH:mm in the calendar time zone' },
    name: { type: 'string', description: "The attendee's full name" },
    email: { type: 'string', description: "The attendee's email address (email or phone is required)" },
    phone: { type: 'string', description: "The attendee's phone number in international format, like +14155550123" },
  },
  required: ['start', 'name'],
};

export const checkAvailabilityCal: ToolKind<'check_availability_cal'> = {
  type: 'check_availability_cal',
  prepare: async (fn) =>
    singleTool(
      fn,
      `Lists free appointment start times on the Cal.com calendar (times in ${fn.timezone}) for a window of days.`,
      WINDOW_PARAMETERS,
      (args, env) => checkAvailability(fn, args, env),
    ),
};

export const bookAppointmentCal: ToolKind<'book_appointment_cal'> = {
  type: 'book_appointment_cal',
  prepare: async (fn) =>
    singleTool(
      fn,
      `Books an appointment on the Cal.com calendar at a free start time (in ${fn.timezone}) for the attendee, with their name and their email or phone number.`,
      BOOK_PARAMETERS,
      (args, env) => book(fn, args, env),
    ),
};
