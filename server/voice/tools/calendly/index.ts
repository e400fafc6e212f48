/**
 * Calendly functions (check_availability_calendly, book_appointment_calendly) with the company's Calendly
 * Personal Access Token (`Authorization: Bearer`):
 * - GET /event_type_available_times
 *   (https://developer.calendly.com/api-docs/calendly-api/event-types/list-event-type-available-times):
 *   query event_type (the event type URI), start_time, end_time (UTC; start not in the past, a range of at
 *   most 31 days, 7 before July 2026: the tool asks for at most 7); answers
 *   `{"collection":[{"status":"available","invitees_remaining","start_time","scheduling_url"}]}`.
 * - POST /invitees, the Scheduling API (https://developer.calendly.com/schedule-events-with-ai-agents,
 *   Create Event Invitee): body event_type, start_time (UTC), invitee {name, email, timezone,
 *   text_reminder_number?}; answers 201 `{"resource":{"uri","event","status","cancel_url",...}}`. The
 *   invitee's email is required.
 * Errors are `{"title","message","details":[{"parameter","message"}]}`. The base is CALENDLY_API_URL
 * (server/voice/tools/tool-urls.ts), https://api.calendly.com when unset. A Calendly function has no time
 * zone of its own: the model may give one (IANA), else times are in UTC.
 */

import type { AgentFunctionOf } from '@contract/agent/functions.js';
import { failureOf, providerRequest, shortReason, stringArg } from '../provider-request.js';
import { singleTool } from '../single-tool.js';
import { isTimeZone, slotList, spoken, startOf, windowOf } from '../time-window.js';
import { TOOL_PROVIDER_URLS } from '../tool-urls.js';
import { type ToolEnv, ToolError, type ToolKind, type ToolOutcome, toolFailed } from '../types.js';

export const CALENDLY_NOT_CONNECTED = 'Calendly is not connected on the Providers page';
/** Days one availability check may span (Calendly's older limit; the current one is 31). */
export const CALENDLY_MAX_DAYS = 7;
const LABEL = 'Calendly';
const BASE = TOOL_PROVIDER_URLS.calendly.default;

type CalendlyFunction = AgentFunctionOf<'check_availability_calendly'> | AgentFunctionOf<'book_appointment_calendly'>;

/** Calendly's reason: `message` and the parameters' own messages. */
function calendlyReason(json: unknown): string | undefined {
  const body = json as { title?: unknown; message?: unknown; details?: unknown } | undefined;
  const details = Array.isArray(body?.details)
    ? body.details
        .map((d: { parameter?: unknown; message?: unknown }) =>
          typeof d?.message === 'string' ? `${typeof d.parameter === 'string' ? `${d.parameter}: ` : ''}${d.message}` : '',
        )
        .filter(Boolean)
    : [];
  return shortReason([body?.message, ...details].filter((s) => typeof s === 'string' && s).join(' ')) ?? shortReason(body?.title);
}

/** The zone the model asked for, or UTC; a string answer when it is not an IANA zone. */
function zoneOf(args: Record<string, unknown>): string | { error: string } {
  const tz = stringArg(args, 'timezone', 64);
  if (!tz) return 'UTC';
  return isTimeZone(tz) ? tz : { error: 'timezone must be an IANA time zone, like America/New_York' };
}

async function withCalendly(
  env: ToolEnv,
  body: (access: NonNullable<ToolEnv['keys']['calendly']>) => Promise<ToolOutcome>,
): Promise<ToolOutcome> {
  const access = env.keys.calendly;
  if (!access?.apiKey) return toolFailed(CALENDLY_NOT_CONNECTED);
  try {
    return await body(access);
  } catch (e) {
    if (e instanceof ToolError) return toolFailed(e.message);
    throw e;
  }
}

async function checkAvailability(fn: CalendlyFunction, args: Record<string, unknown>, env: ToolEnv): Promise<ToolOutcome> {
  const tz = zoneOf(args);
  if (typeof tz !== 'string') return toolFailed(tz.error);
  const nowMs = env.deps.clock.now().getTime();
  const window = windowOf(args, tz, nowMs, CALENDLY_MAX_DAYS);
  if (typeof window === 'string') return toolFailed(window);
  // Calendly refuses a start in the past: a window beginning today starts a minute from now
  const fromMs = Math.max(window.fromMs, Math.ceil((nowMs + 60_000) / 1000) * 1000);
  if (fromMs >= window.toMs) return { ok: true, result: JSON.stringify(slotList([], tz, window)) };
  return withCalendly(env, async (access) => {
    const query = new URLSearchParams({
      event_type: fn.event_type,
      start_time: new Date(fromMs).toISOString(),
      end_time: new Date(window.toMs).toISOString(),
    });
    const reply = await providerRequest(LABEL, access, BASE, {
      method: 'GET',
      path: `/event_type_available_times?${query}`,
      signal: env.signal,
    });
    if (reply.status !== 200) return toolFailed(failureOf(LABEL, reply.status, calendlyReason(reply.json)));
    const collection = (reply.json as { collection?: unknown } | undefined)?.collection;
    if (!Array.isArray(collection)) return toolFailed(`${LABEL} answered without available times`);
    const starts = collection
      .filter((t: { status?: unknown }) => t?.status === undefined || t.status === 'available')
      .map((t: { start_time?: unknown }) => Date.parse(String(t?.start_time ?? '')))
      .filter((ms) => !Number.isNaN(ms));
    return { ok: true, result: JSON.stringify(slotList(starts, tz, window)) };
  });
}

async function book(fn: CalendlyFunction, args: Record<string, unknown>, env: ToolEnv): Promise<ToolOutcome> {
  const tz = zoneOf(args);
  if (typeof tz !== 'string') return toolFailed(tz.error);
  const startText = stringArg(args, 'start', 64);
  const startMs = startText ? startOf(startText, tz) : null;
  if (startMs === null) return toolFailed(`start must be a time like 2025-03-14T15:30 in ${tz}`);
  const name = stringArg(args, 'name', 200);
  const email = stringArg(args, 'email', 320);
  const phone = stringArg(args, 'phone', 32).replace(/[\s().-]/g, '');
  if (!name) return toolFailed("The invitee's name is needed to book");
  if (!email) return toolFailed("Calendly needs the invitee's email address to book");
  if (phone && !/^\+[1-9]\d{6,14}$/.test(phone)) return toolFailed('phone must be in international format, like +14155550123');
  return withCalendly(env, async (access) => {
    const invitee: Record<string, string> = { name, email, timezone: tz };
    if (phone) invitee.text_reminder_number = phone;
    const reply = await providerRequest(LABEL, access, BASE, {
      method: 'POST',
      path: '/invitees',
      body: { event_type: fn.event_type, start_time: new Date(startMs).toISOString(), invitee },
      signal: env.signal,
    });
    if (reply.status !== 200 && reply.status !== 201)
      return toolFailed(failureOf(LABEL, reply.status, calendlyReason(reply.json)));
    const resource = (reply.json as { resource?: Record<string, unknown> } | undefined)?.resource;
    if (!resource || typeof resource !== 'object') return toolFailed(`${LABEL} answered without a booking`);
    return {
      ok: true,
      result: JSON.stringify({
        booked: true,
        invitee: resource.uri,
        event: resource.event,
        status: resource.status,
        start: spoken(startMs, tz),
        timezone: tz,
      }),
    };
  });
}

const TIMEZONE = { type: 'string', description: 'IANA time zone of the times, like America/New_York (default UTC)' };

const WINDOW_PARAMETERS = {
  type: 'object',
  properties: {
    start_date: { type: 'string', description: 'First day to check, YYYY-MM-DD (default: today)' },
    end_date: { type: 'string', description: 'Last day to check, YYYY-MM-DD (or give days)' },
    days: {
      type: 'integer',
      minimum: 1,
      maximum: CALENDLY_MAX_DAYS,
      description: 'Number of days to check from start_date (default 1)',
    },
    timezone: TIMEZONE,
  },
  required: [],
};

const BOOK_PARAMETERS = {
  type: 'object',
  properties: {
    start: { type: 'string', description: 'Start time from the available times, YYYY-MM-DDTHH:mm in timezone' },
    name: { type: 'string', description: "The invitee's full name" },
    email: { type: 'string', description: "The invitee's email address (required by Calendly)" },
    phone: { type: 'string', description: 'Optional phone number for text reminders, like +14155550123' },
    timezone: TIMEZONE,
  },
  required: ['start', 'name', 'email'],
};

export const checkAvailabilityCalendly: ToolKind<'check_availability_calendly'> = {
  type: 'check_availability_calendly',
  prepare: async (fn) =>
    singleTool(
      fn,
      `Lists available start times of the Calendly event type for a window of up to ${CALENDLY_MAX_DAYS} days, in the time zone given (UTC by default).`,
      WINDOW_PARAMETERS,
      (args, env) => checkAvailability(fn, args, env),
    ),
};

export const bookAppointmentCalendly: ToolKind<'book_appointment_calendly'> = {
  type: 'book_appointment_calendly',
  prepare: async (fn) =>
    singleTool(
      fn,
      "Books the Calendly event type at an available start time for the invitee. Calendly requires the invitee's name and email address; ask for the email before booking.",
      BOOK_PARAMETERS,
      (args, env) => book(fn, args, env),
    ),
};
