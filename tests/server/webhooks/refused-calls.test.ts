import { expect, it } from 'vitest';
import { admitInbound } from '../../../server/modules/telephony/service.js';
import { newId } from '../../../server/platform/crypto/ids.js';
import type { PhoneNumbersTable } from '../../../server/platform/db/schema.js';
import { settled } from '../../../server/platform/jobs/later.js';
import { type SignedUp, signUp } from '../auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from '../helpers.js';
import { insertCalls } from '../seed.js';

const NUMBER = '+14155550100';
const CALLER = '+14155550177';

/** A Twilio number of the company answering with its first agent (or none), and the company-wide webhook set. */
async function world(t: TestApp, user: SignedUp, withAgent: boolean) {
  const db = t.deps.db.db;
  const agent = await db.selectFrom('agents').select('id').where('company_id', '=', user.companyId).executeTakeFirstOrThrow();
  const at = t.clock.now().toISOString();
  const number: PhoneNumbersTable = {
    id: newId(),
    company_id: user.companyId,
    account_id: null,
    origin: 'company',
    phone_number: NUMBER,
    provider: 'twilio',
    phone_number_type: 'local',
    phone_number_pretty: NUMBER,
    area_code: 415,
    nickname: null,
    termination_uri: 'acme.pstn.twilio.com',
    assistant_id: null,
    inbound_agent_id: withAgent ? agent.id : null,
    outbound_agent_id: null,
    assigned_at: at,
    created_at: at,
    updated_at: at,
    carrier_ref: null,
    carrier_previous: null,
  };
  await db.insertInto('phone_numbers').values(number).execute();
  await db
    .insertInto('company_webhooks')
    .values({
      company_id: user.companyId,
      url: 'https://hooks.example.com/parley',
      secret: null,
      secret_hint: null,
      created_at: at,
      updated_at: at,
    })
    .execute();
  return number;
}

async function limits(t: TestApp, user: SignedUp, concurrency: number, spendCents: number) {
  await t.deps.db.db
    .insertInto('company_billing')
    .values({
      company_id: user.companyId,
      concurrency_limit: concurrency,
      monthly_spend_limit_cents: spendCents,
      contact_name: '',
      contact_email: '',
      contact_address: '',
      contact_tax_id: '',
      updated_at: t.clock.now().toISOString(),
    })
    .execute();
}

/** The webhook deliveries queued for the company's calls, with their payload read. */
async function deliveries(t: TestApp) {
  await settled(t.deps);
  const rows = await t.deps.db.db.selectFrom('webhook_deliveries').select(['event', 'call_id', 'payload', 'target']).execute();
  return rows.map((r) => ({ ...r, payload: JSON.parse(r.payload) as { event: string; call: Record<string, unknown> } }));
}

describeEachDb('call_ended for calls refused before an agent answers', (kind) => {
  const t = useTestApp(kind);

  const refusals: [string, (user: SignedUp) => Promise<void>, boolean][] = [
    ['no_inbound_agent', async () => {}, false],
    ['concurrency_limit_reached', (user) => limits(t(), user, 0, 100_000), true],
    [
      'spend_limit_reached',
      async (user) => {
        await limits(t(), user, 10, 100);
        await insertCalls(t(), user.companyId, [{ time: t().clock.now().toISOString(), duration: 60, cost: 1.5 }]);
      },
      true,
    ],
  ];
  for (const [reason, setUp, withAgent] of refusals)
    it(`${reason}: the caller is told, the call is stored and the webhook hears call_ended (no analysis)`, async () => {
      const user = await signUp(t());
      const number = await world(t(), user, withAgent);
      await setUp(user);
      const answer = await admitInbound(t().deps, number, { from: CALLER, to: NUMBER, callSid: 'CA123', provider: 'twilio' });
      expect(answer).toHaveProperty('say');
      const sent = await deliveries(t());
      expect(sent).toHaveLength(1);
      expect(sent[0]).toMatchObject({ event: 'call_ended', target: 'company' });
      expect(sent[0]?.payload).toMatchObject({
        event: 'call_ended',
        call: { call_id: sent[0]?.call_id, status: 'ended', disconnection_reason: reason, type: 'inbound' },
      });
      const session = await t()
        .deps.db.db.selectFrom('call_sessions')
        .select('disconnection_reason')
        .where('id', '=', sent[0]?.call_id as string)
        .executeTakeFirstOrThrow();
      expect(session.disconnection_reason).toBe(reason);
      // nothing was said: no post-call analysis is queued
      expect(await t().deps.db.db.selectFrom('call_analyses').selectAll().execute()).toEqual([]);
    });
});
