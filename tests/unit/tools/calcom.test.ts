import type { AgentFunctionOf } from '@contract/agent/functions.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bookAppointmentCal, CAL_NOT_CONNECTED, checkAvailabilityCal } from '../../../server/voice/tools/calcom/index.js';
import { toolKindOf } from '../../../server/voice/tools/registry.js';
import type { ToolEnv } from '../../../server/voice/tools/types.js';
import { CAL_BOOKINGS_VERSION, CAL_SLOTS_VERSION, CalcomFake } from '../../fakes/calcom.js';
import { access, toolEnv } from './tool-env.js';

const NOW = new Date('2026-12-07T17:00:00Z');
const KEY = 'cal_live_0123456789abcdef';
const check: AgentFunctionOf<'check_availability_cal'> = {
  id: 1,
  type: 'check_availability_cal',
  name: 'check_availability',
  description: '',
  speak_during: '',
  timeout_ms: 8000,
  event_type_id: 1234,
  timezone: 'Europe/Rome',
};
const bookFn: AgentFunctionOf<'book_appointment_cal'> = { ...check, id: 2, type: 'book_appointment_cal', name: 'book' };

async function run(fn: typeof check | typeof bookFn, args: Record<string, unknown>, env: ToolEnv) {
  const kind = fn.type === 'check_availability_cal' ? checkAvailabilityCal : bookAppointmentCal;
  // biome-ignore lint/suspicious/noExplicitAny: one of two kinds
  const [tool] = await (kind as any).prepare(fn, env);
  return tool.run(args, env);
}

describe('Cal.com functions against the Cal.com v2 fake', () => {
  let cal: CalcomFake;
  let env: ToolEnv;
  beforeEach(async () => {
    cal = await new CalcomFake(KEY, 1234, [
      '2026-12-08T08:00:00Z',
      '2026-12-08T08:30:00Z',
      '2026-12-08T09:00:00Z',
      '2026-12-09T13:00:00Z',
      '2026-12-12T13:00:00Z',
    ]).start();
    env = toolEnv(NOW, { calcom: access(KEY, cal.url) });
  });
  afterEach(() => cal.close());

  it('is registered for both types and offers the model a window and a booking', async () => {
    expect(toolKindOf('check_availability_cal')).toBe(checkAvailabilityCal);
    expect(toolKindOf('book_appointment_cal')).toBe(bookAppointmentCal);
    const [tool] = await bookAppointmentCal.prepare(bookFn, env);
    expect(tool?.spec.name).toBe('book');
    expect(tool?.spec.parameters).toMatchObject({ type: 'object', required: ['start', 'name'] });
    expect(tool?.spec.description).toContain('Europe/Rome');
  });

  it('asks GET /v2/slots with the key, version 2024-09-04 and the window in UTC; answers local times in the zone', async () => {
    const out = await run(check, { start_date: '2026-12-08', days: 2 }, env);
    expect(out.ok).toBe(true);
    const req = cal.requests[0];
    expect(req?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req?.headers['cal-api-version']).toBe(CAL_SLOTS_VERSION);
    expect(req?.query).toEqual({
      eventTypeId: '1234',
      start: '2026-12-07T23:00:00.000Z',
      end: '2026-12-09T22:59:59.000Z',
      timeZone: 'Europe/Rome',
    });
    expect(JSON.parse(out.result)).toMatchObject({
      timezone: 'Europe/Rome',
      free: { '2026-12-08': ['09:00', '09:30', '10:00'], '2026-12-09': ['14:00'] },
      shown: 4,
      total: 4,
    });
    expect(out.result).toContain('Times are in Europe/Rome');
  });

  it('lists at most 20 start times and says how many there were', async () => {
    cal.slots = Array.from({ length: 30 }, (_, i) => new Date(Date.parse('2026-12-08T07:00:00Z') + i * 900_000).toISOString());
    const out = JSON.parse((await run(check, { start_date: '2026-12-08' }, env)).result);
    expect(out.shown).toBe(20);
    expect(out.total).toBe(30);
    expect(Object.values(out.free as Record<string, string[]>).flat()).toHaveLength(20);
  });

  it('refuses a window longer than 14 days or a bad date without asking Cal.com', async () => {
    expect(await run(check, { start_date: '2026-12-08', days: 15 }, env)).toEqual({
      ok: false,
      result: 'the window can be at most 14 days: ask for fewer days',
    });
    expect((await run(check, { start_date: '2026-02-30' }, env)).ok).toBe(false);
    expect((await run(check, { start_date: '2026-12-08', end_date: '2026-12-01' }, env)).ok).toBe(false);
    expect(cal.requests).toHaveLength(0);
  });

  it('books with POST /v2/bookings, version 2024-08-13, the start in UTC and the attendee in the zone', async () => {
    const out = await run(bookFn, { start: '2026-12-08T09:30', name: 'Ada Lovelace', email: 'ada@example.com' }, env);
    expect(out.ok).toBe(true);
    const req = cal.requests[0];
    expect(req?.method).toBe('POST');
    expect(req?.headers['cal-api-version']).toBe(CAL_BOOKINGS_VERSION);
    expect(req?.headers['content-type']).toBe('application/json');
    expect(req?.body).toEqual({
      start: '2026-12-08T08:30:00.000Z',
      eventTypeId: 1234,
      attendee: { name: 'Ada Lovelace', timeZone: 'Europe/Rome', email: 'ada@example.com' },
    });
    expect(JSON.parse(out.result)).toEqual({
      booked: true,
      id: 1000,
      uid: cal.bookings[0]?.uid,
      status: 'accepted',
      start: '2026-12-08 09:30',
      timezone: 'Europe/Rome',
    });
  });

  it('books a caller with a phone number only (attendee.phoneNumber), and takes a start with an offset', async () => {
    const out = await run(bookFn, { start: '2026-12-09T14:00:00+01:00', name: 'Bob', phone: '+39 06 1234 5678' }, env);
    expect(out.ok).toBe(true);
    expect(cal.requests[0]?.body).toMatchObject({
      start: '2026-12-09T13:00:00.000Z',
      attendee: { name: 'Bob', phoneNumber: '+390612345678' },
    });
    expect((cal.requests[0]?.body as { attendee: object } | undefined)?.attendee).not.toHaveProperty('email');
  });

  it("answers a taken slot with Cal.com's reason, for the model to offer another time", async () => {
    expect((await run(bookFn, { start: '2026-12-08T09:00', name: 'A', email: 'a@example.com' }, env)).ok).toBe(true);
    const again = await run(bookFn, { start: '2026-12-08T09:00', name: 'B', email: 'b@example.com' }, env);
    expect(again).toEqual({
      ok: false,
      result: 'Cal.com refused the request (400): User either already has booking at this time or is not available',
    });
  });

  it('needs a name and an email or phone before asking Cal.com', async () => {
    expect((await run(bookFn, { start: '2026-12-08T09:00', name: 'A' }, env)).result).toContain(
      'email address or a phone number',
    );
    expect((await run(bookFn, { start: 'tomorrow at nine', name: 'A', email: 'a@example.com' }, env)).ok).toBe(false);
    expect(cal.requests).toHaveLength(0);
  });

  it('answers a refused key (401) and a rate limit (429) in words, never with the key', async () => {
    const wrong = toolEnv(NOW, { calcom: access('cal_live_wrong', cal.url) });
    const refused = await run(check, { start_date: '2026-12-08' }, wrong);
    expect(refused.ok).toBe(false);
    expect(refused.result).toContain('refused the key (401)');
    expect(refused.result).not.toContain('cal_live_wrong');
    cal.throttleNext();
    const limited = await run(bookFn, { start: '2026-12-08T09:00', name: 'A', email: 'a@example.com' }, env);
    expect(limited).toEqual({ ok: false, result: 'Cal.com is limiting requests right now (429): try again in a moment' });
  });

  it('answers "not connected" without a request when the company has no Cal.com key', async () => {
    const none = toolEnv(NOW, {});
    expect(await run(check, {}, none)).toEqual({ ok: false, result: CAL_NOT_CONNECTED });
    expect(await run(bookFn, { start: '2026-12-08T09:00', name: 'A', email: 'a@example.com' }, none)).toEqual({
      ok: false,
      result: CAL_NOT_CONNECTED,
    });
    expect(cal.requests).toHaveLength(0);
  });

  it('an unreachable Cal.com is a short failure; an aborted call rejects', async () => {
    const gone = toolEnv(NOW, { calcom: access(KEY, 'http://127.0.0.1:1') });
    expect(await run(check, {}, gone)).toEqual({ ok: false, result: 'Cal.com could not be reached' });
    const ctl = new AbortController();
    ctl.abort();
    await expect(run(check, {}, toolEnv(NOW, { calcom: access(KEY, cal.url) }, ctl.signal))).rejects.toThrow();
  });
});

describe('the Cal.com fake refuses what Cal.com refuses', () => {
  let cal: CalcomFake;
  beforeEach(async () => {
    cal = await new CalcomFake(KEY, 1234, ['2026-12-08T08:00:00Z']).start();
  });
  afterEach(() => cal.close());

  const slots = (headers: Record<string, string>) =>
    fetch(`${cal.url}/v2/slots?eventTypeId=1234&start=2026-12-08&end=2026-12-09&timeZone=UTC`, { headers });
  const booking = (headers: Record<string, string>, body: unknown) =>
    fetch(`${cal.url}/v2/bookings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const good = {
    start: '2026-12-08T08:00:00Z',
    eventTypeId: 1234,
    attendee: { name: 'A', email: 'a@example.com', timeZone: 'UTC' },
  };

  it('a missing or wrong key: 401', async () => {
    expect((await slots({ 'cal-api-version': CAL_SLOTS_VERSION })).status).toBe(401);
    expect((await slots({ authorization: 'Bearer nope', 'cal-api-version': CAL_SLOTS_VERSION })).status).toBe(401);
    expect((await booking({ 'cal-api-version': CAL_BOOKINGS_VERSION }, good)).status).toBe(401);
  });

  it('each endpoint wants its own version header', async () => {
    const auth = { authorization: `Bearer ${KEY}` };
    expect((await slots(auth)).status).toBe(400);
    expect((await slots({ ...auth, 'cal-api-version': CAL_BOOKINGS_VERSION })).status).toBe(400);
    expect((await slots({ ...auth, 'cal-api-version': CAL_SLOTS_VERSION })).status).toBe(200);
    expect((await booking({ ...auth, 'cal-api-version': CAL_SLOTS_VERSION }, good)).status).toBe(400);
    expect((await booking(auth, good)).status).toBe(400);
  });

  it('a booking without a contact method, with a local start, or at a time that is not free: 400', async () => {
    const h = { authorization: `Bearer ${KEY}`, 'cal-api-version': CAL_BOOKINGS_VERSION };
    const noContact = await booking(h, { ...good, attendee: { name: 'A', timeZone: 'UTC' } });
    expect(noContact.status).toBe(400);
    expect(((await noContact.json()) as { error: { message: string } }).error.message).toContain('at least one contact method');
    expect((await booking(h, { ...good, start: '2026-12-08T09:00:00+01:00' })).status).toBe(400);
    expect((await booking(h, { ...good, start: '2026-12-08T10:00:00Z' })).status).toBe(400);
    expect((await booking(h, good)).status).toBe(201);
  });
});
