import { afterEach, beforeEach, expect, it } from 'vitest';
import { newId } from '../../../server/lib/ids.js';
import { newBatchRow } from '../../../server/routes/batch-call/batch-call.repo.js';
import { BatchDispatcher } from '../../../server/telephony/dispatcher.js';
import { saveCompanyWebhookUrl } from '../../../server/webhooks/outbox.js';
import { TwilioFake } from '../../fakes/twilio.js';
import { type CallServer, sampleAgent } from '../call/harness.js';
import { describeEachDb } from '../helpers.js';
import { type PhoneWorld, startPhoneWorld } from './phone-world.js';

/**
 * The batch dispatcher (issue 19) dialling a batch through the fake Twilio on both databases: the
 * recipients table as a leased queue, the company's concurrency limit, retries of busy and no answer,
 * outcomes, completion; and two dispatchers claiming from one batch without a double claim.
 */
describeEachDb('the batch dispatcher', (kind) => {
  let twilio: TwilioFake;
  let s: CallServer;
  const FROM = '+14155550100';

  let world: PhoneWorld<TwilioFake>;

  beforeEach(async () => {
    world = await startPhoneWorld(
      kind,
      'twilio',
      () => TwilioFake.start(),
      (c) => [
        { name: 'Account SID', value: c.accountSid },
        { name: 'Auth Token', value: c.authToken },
      ],
    );
    ({ carrier: twilio, s } = world);
    const agent = await sampleAgent(s);
    const at = new Date().toISOString();
    await s.t.deps.db.db
      .insertInto('phone_numbers')
      .values({
        id: newId(),
        company_id: s.user.companyId,
        account_id: null,
        origin: 'company',
        phone_number: FROM,
        provider: 'twilio',
        phone_number_type: 'local',
        phone_number_pretty: FROM,
        area_code: 415,
        nickname: null,
        termination_uri: 'acme.pstn.twilio.com',
        assistant_id: null,
        inbound_agent_id: null,
        outbound_agent_id: agent._id,
        assigned_at: at,
        created_at: at,
        updated_at: at,
      })
      .execute();
    await s.t.deps.db.db
      .insertInto('company_billing')
      .values({
        company_id: s.user.companyId,
        concurrency_limit: 2,
        monthly_spend_limit_cents: 1_000_000,
        contact_name: '',
        contact_email: '',
        contact_address: '',
        contact_tax_id: '',
        updated_at: at,
      })
      .execute();
  });
  afterEach(() => world.close());

  /** A batch being sent, with `phones` as its recipients (a `name` column each). */
  async function sendingBatch(phones: string[], retryDelayS = 0) {
    const id = newId();
    const uploadId = newId();
    const row = newBatchRow({
      id,
      companyId: s.user.companyId,
      name: 'Reminders',
      fromNumber: FROM,
      sendMode: 'now',
      scheduledAt: null,
      status: 'sending',
      idempotencyKey: newId(),
      requestHash: 'x',
      now: new Date(),
    });
    await s.t.deps.db.db
      .insertInto('batch_calls')
      .values({ ...row, upload_id: uploadId, recipients_count: phones.length, retry_delay_s: retryDelayS })
      .execute();
    await s.t.deps.db.db
      .insertInto('batch_recipients')
      .values(
        phones.map((p, i) => ({
          batch_id: id,
          company_id: s.user.companyId,
          upload_id: uploadId,
          row_number: i + 2,
          phone_number: p,
          variables: JSON.stringify({ name: `Person ${i + 1}` }),
        })),
      )
      .execute();
    return id;
  }

  const batchRow = (id: string) =>
    s.t.deps.db.db.selectFrom('batch_calls').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const recipients = (id: string) =>
    s.t.deps.db.db.selectFrom('batch_recipients').selectAll().where('batch_id', '=', id).orderBy('row_number').execute();

  it('dials every recipient within the concurrency limit, retries busy and no answer, records outcomes, completes', async () => {
    const answer = ['+14155550201', '+14155550202', '+14155550203', '+14155550204', '+14155550205'];
    const busy = '+14155550206';
    const noAnswer = '+14155550207';
    twilio.outcomes.set(busy, 'busy');
    twilio.outcomes.set(noAnswer, 'no-answer');
    twilio.calleeHangsUpAfterMs = 150;
    await saveCompanyWebhookUrl(s.t.deps, s.user.companyId, 'https://hooks.example.com/parley');
    const id = await sendingBatch([...answer, busy, noAnswer]);
    const dispatcher = new BatchDispatcher(s.t.deps, { dialsPerSecond: 50 });
    const until = Date.now() + 30_000;
    while ((await batchRow(id)).status === 'sending') {
      if (Date.now() > until) throw new Error(`batch not completed: ${JSON.stringify(await recipients(id))}`);
      await dispatcher.tick();
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await batchRow(id)).status).toBe('completed');
    expect((await batchRow(id)).sent_count).toBe(7);
    // the company's webhook is told once, with the outcomes (issue 20's batch_completed)
    await dispatcher.tick();
    const told = await s.t.deps.db.db
      .selectFrom('webhook_deliveries')
      .select(['event', 'payload', 'url'])
      .where('company_id', '=', s.user.companyId)
      .where('event', '=', 'batch_completed')
      .execute();
    expect(told).toHaveLength(1);
    expect(told[0]?.url).toBe('https://hooks.example.com/parley');
    expect(JSON.parse(told[0]?.payload ?? '{}')).toMatchObject({
      event: 'batch_completed',
      batch: { batch_id: id, status: 'completed', sent_count: 7, outcomes: { completed: 5, busy: 1, no_answer: 1 } },
    });
    // never more calls at once than the company's limit
    expect(twilio.maxActive).toBeLessThanOrEqual(2);
    expect(twilio.maxActive).toBeGreaterThan(0);
    const rows = await recipients(id);
    expect(rows.map((r) => [r.phone_number, r.state, Number(r.attempts)])).toEqual([
      ...answer.map((p) => [p, 'completed', 1]),
      [busy, 'busy', 2],
      [noAnswer, 'no_answer', 2],
    ]);
    // each number dialled once per attempt, never more
    const dials = (p: string) => twilio.calls.filter((c) => c.to === p).length;
    expect(answer.map(dials)).toEqual([1, 1, 1, 1, 1]);
    expect([dials(busy), dials(noAnswer)]).toEqual([2, 2]);
    // the recipient's columns reached the call as dynamic variables
    const first = await s.t.deps.db.db
      .selectFrom('call_sessions')
      .select('dynamic_variables')
      .where('id', '=', rows[0]?.call_id as string)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(first.dynamic_variables).name).toBe('Person 1');
  });

  it('two dispatchers claiming from one batch never claim the same recipient', async () => {
    const phones = Array.from({ length: 20 }, (_, i) => `+1415555${String(1000 + i)}`);
    const id = await sendingBatch(phones);
    const a = new BatchDispatcher(s.t.deps);
    const b = new BatchDispatcher(s.t.deps);
    const claimed: string[] = [];
    const claimAll = async (d: BatchDispatcher) => {
      for (;;) {
        const r = await d.claim(id, s.user.companyId);
        if (!r) return;
        claimed.push(r.phone_number);
      }
    };
    await Promise.all([claimAll(a), claimAll(b), claimAll(a)]);
    expect(claimed.sort()).toEqual([...phones].sort());
    const rows = await recipients(id);
    expect(rows.every((r) => r.state === 'calling' && Number(r.attempts) === 1)).toBe(true);
    expect(new Set(rows.map((r) => r.lease_owner)).size).toBeGreaterThanOrEqual(1);
    expect((await batchRow(id)).sent_count).toBe(20);
    // a canceled batch is not dialled
    await s.t.deps.db.db.updateTable('batch_calls').set({ status: 'canceled' }).where('id', '=', id).execute();
    expect(await a.tick()).toBe(0);
  });

  it('Pause lets calls in progress finish and places no new ones; Resume goes on; Cancel stops dialling at once', async () => {
    twilio.calleeHangsUpAfterMs = 100;
    const phones = ['+14155550301', '+14155550302', '+14155550303', '+14155550304'];
    const id = await sendingBatch(phones);
    const dispatcher = new BatchDispatcher(s.t.deps, { dialsPerSecond: 50 });
    await dispatcher.tick();
    expect(twilio.calls).toHaveLength(1);
    const paused = await s.t.req('POST', `/api/v1/batch-call/${id}/pause`, { token: s.user.token });
    expect(paused.status).toBe(200);
    expect(((await paused.json()) as { batch: { status: string } }).batch.status).toBe('paused');
    await twilio.calls[0]?.done;
    for (let i = 0; i < 5; i++) {
      await dispatcher.tick();
      await new Promise((r) => setTimeout(r, 30));
    }
    expect(twilio.calls).toHaveLength(1);
    // the call in progress finished and its outcome is recorded while paused
    const first = (await recipients(id))[0];
    expect(first?.state).toBe('completed');
    const resumed = await s.t.req('POST', `/api/v1/batch-call/${id}/resume`, { token: s.user.token });
    expect(resumed.status).toBe(200);
    await dispatcher.tick();
    expect(twilio.calls).toHaveLength(2);
    const canceled = await s.t.req('POST', `/api/v1/batch-call/${id}/cancel`, { token: s.user.token });
    expect(canceled.status).toBe(200);
    for (let i = 0; i < 5; i++) {
      await dispatcher.tick();
      await new Promise((r) => setTimeout(r, 30));
    }
    expect(twilio.calls).toHaveLength(2);
    expect((await batchRow(id)).status).toBe('canceled');
    // pausing a batch that is not sending is refused
    const again = await s.t.req('POST', `/api/v1/batch-call/${id}/pause`, { token: s.user.token });
    expect(again.status).toBe(409);
  });

  it("the batch detail's live progress follows the dispatcher: counts per state, the calls with their status", async () => {
    twilio.calleeHangsUpAfterMs = 80;
    const phones = ['+14155550401', '+14155550402', '+14155550403'];
    twilio.outcomes.set('+14155550402', 'busy');
    const id = await sendingBatch(phones, 3600);
    const dispatcher = new BatchDispatcher(s.t.deps, { dialsPerSecond: 50 });
    type Detail = {
      progress: { counts: Record<string, number>; total: number; finished: number };
      calls: { rows: { phone: string; state: string; attempts: number; callId: string | null }[]; total: number };
    };
    const detail = async () =>
      (await (await s.t.req('GET', `/api/v1/batch-call/${id}`, { token: s.user.token })).json()) as Detail;
    const before = await detail();
    expect(before.progress).toMatchObject({ total: 3, finished: 0, counts: { queued: 3, calling: 0 } });
    expect(before.calls).toEqual({ rows: [], total: 0 });
    const until = Date.now() + 20_000;
    // until every recipient was dialled once and none is being called
    for (;;) {
      const rows = await recipients(id);
      if (rows.every((r) => Number(r.attempts) >= 1 && r.state !== 'calling')) break;
      if (Date.now() > until) throw new Error(`not dialled: ${JSON.stringify(rows)}`);
      await dispatcher.tick();
      await new Promise((r) => setTimeout(r, 20));
    }
    const after = await detail();
    // the busy recipient waits an hour for its retry: queued again, its call forgotten
    expect(after.progress).toEqual({
      counts: { queued: 1, calling: 0, completed: 2, busy: 0, no_answer: 0, failed: 0, voicemail: 0 },
      total: 3,
      finished: 2,
    });
    const rows = await recipients(id);
    expect(after.calls.total).toBe(3);
    expect(after.calls.rows.map((r) => [r.phone, r.state, r.attempts, r.callId])).toEqual(
      rows.map((r) => [r.phone_number, r.state, Number(r.attempts), r.call_id]),
    );
  });
});
