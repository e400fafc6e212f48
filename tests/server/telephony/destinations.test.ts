import { afterEach, beforeEach, expect, it } from 'vitest';
import { DESTINATION_MESSAGES } from '../../../src/api/contract/destinations.js';
import type { TwilioFake } from '../../fakes/twilio.js';
import { waitFor } from '../call/harness.js';
import { describeEachDb } from '../helpers.js';
import { agentOnCarrierNumber, carrierNumber, type PhoneWorld, startTwilioWorld } from './phone-world.js';

/**
 * Where outbound calls may go (src/api/contract/destinations.ts), against the fake Twilio: the numbers toll
 * fraud dials are refused with their reason before anything reaches the carrier; an allowed country is
 * dialled; the allowed countries default to those of the company's numbers and are set on Billing > Limits;
 * a batch upload marks the same numbers invalid with the same reasons.
 */
describeEachDb('the destination policy of outbound calls', (kind) => {
  const NUMBER = '+14155550100';
  let world: PhoneWorld<TwilioFake>;
  beforeEach(async () => {
    world = await startTwilioWorld(kind);
    await agentOnCarrierNumber(world.s, 'twilio', NUMBER, { message: 'Hello!' });
  });
  afterEach(() => world.close());

  const dial = (to: string) =>
    world.s.t.req('POST', '/api/v1/call/create', { token: world.s.user.token, body: { from_number: NUMBER, to_number: to } });
  const setCountries = async (allowedCountries: string[]) => {
    const res = await world.s.t.req('PUT', '/api/v1/billing/limits', {
      token: world.s.user.token,
      body: { concurrencyLimit: 10, monthlySpendLimit: 500, allowedCountries },
    });
    expect(res.status, await res.clone().text()).toBe(200);
  };

  /** The numbers of the toll-fraud report, each with the refusal it must get (the company's numbers are US). */
  const FRAUD: [string, string][] = [
    ['+19005550100', 'Calls to +1900… are not allowed: premium-rate numbers are blocked.'],
    [
      '+882345678901',
      'Calls to +882… are not allowed: international network, satellite and other non-geographic numbers are blocked.',
    ],
    ['+5351234567', "Calls to +53… are not allowed: Cuba (CU) is not in this company's allowed countries (US)."],
    ['+447012345678', 'Calls to +4470… are not allowed: UK personal numbers (070) are blocked.'],
    ['+212612345678', "Calls to +212… are not allowed: Morocco (MA) is not in this company's allowed countries (US)."],
    ['+999999999999999', 'Calls to +999… are not allowed: +999 is not assigned to any country.'],
  ];

  it('refuses the numbers toll fraud dials, each with its reason, before anything reaches Twilio', async () => {
    for (const [to, message] of FRAUD) {
      const res = await dial(to);
      const body = (await res.json()) as { success: boolean; msg: string };
      expect([to, res.status, body]).toEqual([to, 403, expect.objectContaining({ success: false, msg: message })]);
    }
    expect(world.carrier.calls).toEqual([]);
    expect(await world.s.t.deps.db.db.selectFrom('call_sessions').select('id').execute()).toEqual([]);
  });

  it('dials an allowed country; the allowed countries default to the company’s numbers and are set on Billing > Limits', async () => {
    world.carrier.calleeHangsUpAfterMs = 100;
    const placed = await dial('+14155550123');
    expect(placed.status, await placed.clone().text()).toBe(201);
    const call = await waitFor(() => world.carrier.calls.find((c) => c.to === '+14155550123'), 'the call placed');
    await call.done;

    const LONDON = '+442079460958';
    const refused = await dial(LONDON);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { msg: string }).msg).toBe(
      "Calls to +44… are not allowed: United Kingdom (GB) is not in this company's allowed countries (US).",
    );
    // a London number of its own makes the UK one of the company's countries
    await carrierNumber(world.s, 'twilio', '+442079460100', { inbound: null, outbound: null });
    const limits = await world.s.t.req('GET', '/api/v1/billing/limits', { token: world.s.user.token });
    expect(((await limits.json()) as { numberCountries: string[] }).numberCountries).toEqual(['GB', 'US']);
    expect((await dial(LONDON)).status).toBe(201);
    // still never a blocked range, whatever the countries
    expect((await dial('+449012345678')).status).toBe(403);

    // set on Billing > Limits, the list replaces the numbers' countries
    await setCountries(['GB']);
    const us = await dial('+14155550124');
    expect(us.status).toBe(403);
    expect(((await us.json()) as { msg: string }).msg).toBe(
      "Calls to +1415… are not allowed: United States (US) is not in this company's allowed countries (GB).",
    );
    await setCountries(['CU', 'US']);
    expect(((await (await dial('+5351234567')).json()) as { success: boolean }).success).toBe(true);
    expect(world.carrier.calls.map((c) => c.to)).toEqual(['+14155550123', LONDON, '+5351234567']);
  });

  it('a batch upload marks the recipients the company may not call invalid, with the same reasons', async () => {
    const { s } = world;
    const created = await s.t.req('POST', '/api/v1/batch-call', {
      token: s.user.token,
      headers: { 'Idempotency-Key': `destinations-${kind}` },
      body: { name: 'Reminders', fromNumber: NUMBER, sendMode: 'now' },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const batchId = ((await created.json()) as { batch: { _id: string } }).batch._id;
    const csv = ['phone_number', '+14155550123', ...FRAUD.map(([to]) => to)].join('\n');
    const res = await s.t.req('POST', `/api/v1/batch-call/${batchId}/recipients`, {
      token: s.user.token,
      body: csv,
      headers: { 'Content-Type': 'text/csv' },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { valid: number; invalid: number; errors: { row: number; reason: string }[] };
    expect(body.valid).toBe(1);
    expect(body.invalid).toBe(FRAUD.length);
    expect(body.errors).toEqual(FRAUD.map(([, reason], i) => ({ row: i + 3, reason })));
    const stored = await s.t.deps.db.db.selectFrom('batch_recipients').select('phone_number').execute();
    expect(stored.map((r) => r.phone_number)).toEqual(['+14155550123']);
    expect(DESTINATION_MESSAGES.blocked('+1900', 'premium-rate numbers are blocked')).toBe(FRAUD[0]?.[1]);
  });
});
