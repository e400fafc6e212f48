import type { AgentFunctionOf } from '@contract/agent/functions.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  bookAppointmentCalendly,
  CALENDLY_NOT_CONNECTED,
  checkAvailabilityCalendly,
} from '../../../server/voice/tools/calendly/index.js';
import { toolKindOf } from '../../../server/voice/tools/registry.js';
import type { ToolEnv } from '../../../server/voice/tools/types.js';
import { CalendlyFake } from '../../fakes/calendly.js';
import { access, toolEnv } from './tool-env.js';

const NOW = new Date('2026-12-07T17:00:00Z');
const TOKEN = 'eyJraWQiOiJwYXQtdGVzdCJ9.calendly-pat';
const EVENT_TYPE = 'https://api.calendly.com/event_types/AAAAAAAAAAAAAAAA';
const check: AgentFunctionOf<'check_availability_calendly'> = {
  id: 1,
  type: 'check_availability_calendly',
  name: 'calendly_times',
  description: 'Free times for a demo',
  speak_during: '',
  timeout_ms: 8000,
  event_type: EVENT_TYPE,
};
const bookFn: AgentFunctionOf<'book_appointment_calendly'> = {
  ...check,
  id: 2,
  type: 'book_appointment_calendly',
  name: 'calendly_book',
};

async function run(fn: typeof check | typeof bookFn, args: Record<string, unknown>, env: ToolEnv) {
  const kind = fn.type === 'check_availability_calendly' ? checkAvailabilityCalendly : bookAppointmentCalendly;
  // biome-ignore lint/suspicious/noExplicitAny: one of two kinds
  const [tool] = await (kind as any).prepare(fn, env);
  return tool.run(args, env);
}

describe('Calendly functions against the Calendly fake', () => {
  let calendly: CalendlyFake;
  let env: ToolEnv;
  beforeEach(async () => {
    calendly = await new CalendlyFake(
      TOKEN,
      EVENT_TYPE,
      ['2026-12-07T16:00:00Z', '2026-12-07T21:00:00Z', '2026-12-08T14:00:00Z', '2026-12-08T15:00:00Z'],
      () => NOW.getTime(),
    ).start();
    env = toolEnv(NOW, { calendly: access(TOKEN, calendly.url) });
  });
  afterEach(() => calendly.close());

  it('is registered for both types; the booking tool says Calendly needs an email', async () => {
    expect(toolKindOf('check_availability_calendly')).toBe(checkAvailabilityCalendly);
    expect(toolKindOf('book_appointment_calendly')).toBe(bookAppointmentCalendly);
    const [tool] = await bookAppointmentCalendly.prepare(bookFn, env);
    expect(tool?.spec.description).toContain('email');
    expect(tool?.spec.parameters).toMatchObject({ required: ['start', 'name', 'email'] });
    const [times] = await checkAvailabilityCalendly.prepare(check, env);
    expect(times?.spec.description.startsWith('Free times for a demo\n')).toBe(true);
  });

  it('asks GET /event_type_available_times with the token, the event type and a future UTC window; answers local times', async () => {
    const out = await run(check, { start_date: '2026-12-07', days: 2, timezone: 'America/New_York' }, env);
    expect(out.ok).toBe(true);
    const req = calendly.requests[0];
    expect(req?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    // the day has begun: Calendly refuses a start in the past, so the window starts a minute from now
    expect(req?.query).toEqual({
      event_type: EVENT_TYPE,
      start_time: '2026-12-07T17:01:00.000Z',
      end_time: '2026-12-09T05:00:00.000Z',
    });
    expect(JSON.parse(out.result)).toMatchObject({
      timezone: 'America/New_York',
      free: { '2026-12-07': ['16:00'], '2026-12-08': ['09:00', '10:00'] },
      total: 3,
    });
  });

  it('times are in UTC when the model gives no zone; a window over 7 days or a bad zone is refused before any request', async () => {
    const out = JSON.parse((await run(check, { start_date: '2026-12-08' }, env)).result);
    expect(out).toMatchObject({ timezone: 'UTC', free: { '2026-12-08': ['14:00', '15:00'] } });
    calendly.requests.length = 0;
    expect((await run(check, { start_date: '2026-12-08', days: 8 }, env)).ok).toBe(false);
    expect((await run(check, { timezone: 'Mars/Olympus' }, env)).ok).toBe(false);
    expect(calendly.requests).toHaveLength(0);
  });

  it('books with POST /invitees: event type, UTC start, invitee name, email, timezone and reminder number', async () => {
    const out = await run(
      bookFn,
      {
        start: '2026-12-08T09:00',
        name: 'Ada',
        email: 'ada@example.com',
        phone: '+1 415 555 0123',
        timezone: 'America/New_York',
      },
      env,
    );
    expect(out.ok).toBe(true);
    const req = calendly.requests[0];
    expect(req?.method).toBe('POST');
    expect(req?.path).toBe('/invitees');
    expect(req?.body).toEqual({
      event_type: EVENT_TYPE,
      start_time: '2026-12-08T14:00:00.000Z',
      invitee: { name: 'Ada', email: 'ada@example.com', timezone: 'America/New_York', text_reminder_number: '+14155550123' },
    });
    expect(JSON.parse(out.result)).toEqual({
      booked: true,
      invitee: calendly.invitees[0]?.uri,
      event: calendly.invitees[0]?.event,
      status: 'active',
      start: '2026-12-08 09:00',
      timezone: 'America/New_York',
    });
  });

  it('without an email the tool says Calendly needs one and sends nothing', async () => {
    const out = await run(bookFn, { start: '2026-12-08T14:00Z', name: 'Ada', phone: '+14155550123' }, env);
    expect(out).toEqual({ ok: false, result: "Calendly needs the invitee's email address to book" });
    expect(calendly.requests).toHaveLength(0);
  });

  it('a time no longer available, a refused token and a rate limit come back in words', async () => {
    const slot = { start: '2026-12-08T14:00:00Z', name: 'A', email: 'a@example.com' };
    expect((await run(bookFn, slot, env)).ok).toBe(true);
    const taken = await run(bookFn, { ...slot, email: 'b@example.com' }, env);
    expect(taken).toEqual({
      ok: false,
      result:
        'Calendly refused the request (400): The supplied parameters are invalid. start_time: The selected time is no longer available.',
    });
    const wrong = await run(check, {}, toolEnv(NOW, { calendly: access('bad-token', calendly.url) }));
    expect(wrong.result).toBe('Calendly refused the key (401): the Calendly card on the Providers page needs a valid key');
    calendly.throttleNext();
    expect((await run(check, {}, env)).result).toContain('(429)');
  });

  it('answers "not connected" without a request when the company has no Calendly token', async () => {
    expect(await run(check, {}, toolEnv(NOW, {}))).toEqual({ ok: false, result: CALENDLY_NOT_CONNECTED });
    expect(await run(bookFn, { start: '2026-12-08T14:00Z', name: 'A', email: 'a@example.com' }, toolEnv(NOW, {}))).toEqual({
      ok: false,
      result: CALENDLY_NOT_CONNECTED,
    });
    expect(calendly.requests).toHaveLength(0);
  });
});

describe('the Calendly fake refuses what Calendly refuses', () => {
  let calendly: CalendlyFake;
  beforeEach(async () => {
    calendly = await new CalendlyFake(TOKEN, EVENT_TYPE, ['2026-12-08T14:00:00Z'], () => NOW.getTime()).start();
  });
  afterEach(() => calendly.close());

  const times = (headers: Record<string, string>, start: string, end: string) =>
    fetch(
      `${calendly.url}/event_type_available_times?${new URLSearchParams({ event_type: EVENT_TYPE, start_time: start, end_time: end })}`,
      {
        headers,
      },
    );
  const auth = { authorization: `Bearer ${TOKEN}` };

  it('no token or a wrong one: 401 Unauthenticated', async () => {
    expect((await times({}, '2026-12-08T00:00:00Z', '2026-12-09T00:00:00Z')).status).toBe(401);
    const wrong = await times({ authorization: 'Bearer x' }, '2026-12-08T00:00:00Z', '2026-12-09T00:00:00Z');
    expect(await wrong.json()).toEqual({ title: 'Unauthenticated', message: 'The access token is invalid' });
  });

  it('a start in the past or a range over 31 days: 400 Invalid Argument', async () => {
    expect((await times(auth, '2026-12-07T00:00:00Z', '2026-12-09T00:00:00Z')).status).toBe(400);
    expect((await times(auth, '2026-12-08T00:00:00Z', '2027-01-09T00:00:00Z')).status).toBe(400);
    expect((await times(auth, '2026-12-08T00:00:00Z', '2027-01-07T00:00:00Z')).status).toBe(200);
  });

  it('an invitee without email or timezone: 400', async () => {
    const post = (invitee: object) =>
      fetch(`${calendly.url}/invitees`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ event_type: EVENT_TYPE, start_time: '2026-12-08T14:00:00Z', invitee }),
      });
    expect((await post({ name: 'A', timezone: 'UTC' })).status).toBe(400);
    expect((await post({ name: 'A', email: 'a@example.com' })).status).toBe(400);
    expect((await post({ name: 'A', email: 'a@example.com', timezone: 'UTC' })).status).toBe(201);
  });
});
