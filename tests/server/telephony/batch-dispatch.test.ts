import { afterEach, beforeEach, expect, it } from 'vitest';
import { newBatchRow } from '../../../server/modules/batches/batch-call.repo.js';
import { BatchDispatcher } from '../../../server/modules/batches/dispatcher.js';
import { liveCalls } from '../../../server/modules/telephony/service.js';
import { saveCompanyWebhookUrl } from '../../../server/modules/webhooks/outbox.js';
import { newId } from '../../../server/platform/crypto/ids.js';
import { BATCH_MESSAGES, type Batch } from '../../../src/api/contract/batch.js';
import { TELEPHONY_MESSAGES } from '../../../src/api/contract/telephony.js';
import type { TwilioFake } from '../../fakes/twilio.js';
import { logIn } from '../auth-helpers.js';
import { type CallServer, sampleAgent, savePayload } from '../call/harness.js';
import { describeEachDb } from '../helpers.js';
import { carrierNumber, type PhoneWorld, startTwilioWorld } from './phone-world.js';

/**
 * The batch dispatcher dialling a batch through the fake Twilio on both databases: the
 * recipients table as a leased queue, the company's concurrency limit, retries of busy and no answer,
 * outcomes, completion; and two dispatchers claiming from one batch without a double claim. Then the
 * dispatcher's rules: the dialling rules on the API, the pace shared by two dispatchers (two servers on
 * one database), the self-pause, and a batch of 30 with scripted outcomes under a test clock (window,
 * concurrency, retries, pause, resume, cancel).
 */
describeEachDb('the batch dispatcher', (kind) => {
  let twilio: TwilioFake;
  let s: CallServer;
  const FROM = '+14155550100';

  let world: PhoneWorld<TwilioFake>;

  beforeEach(async () => {
    world = await startTwilioWorld(kind);
    ({ carrier: twilio, s } = world);
    const agent = await sampleAgent(s);
    await carrierNumber(s, 'twilio', FROM, { inbound: null, outbound: agent._id });
    const at = new Date().toISOString();
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
      s.t.clock.advance(20);
      await dispatcher.tick();
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await batchRow(id)).status).toBe('completed');
    expect((await batchRow(id)).sent_count).toBe(7);
    // some calls went through: not marked as failed
    expect(Number((await batchRow(id)).all_failed)).toBe(0);
    // the company's webhook is told once, with the outcomes (batch_completed)
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
        const r = await d.claim(id, s.user.companyId, { pace: false });
        if (!r || r === 'paced') return;
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
    const dispatcher = new BatchDispatcher(s.t.deps);
    // one tick per second of the test clock (the default pace: one new call per second)
    const tick = () => {
      s.t.clock.advance(1000);
      return dispatcher.tick();
    };
    await tick();
    expect(twilio.calls).toHaveLength(1);
    const paused = await s.t.req('POST', `/api/v1/batch-call/${id}/pause`, { token: s.user.token });
    expect(paused.status).toBe(200);
    expect(((await paused.json()) as { batch: { status: string } }).batch.status).toBe('paused');
    await twilio.calls[0]?.done;
    for (let i = 0; i < 5; i++) {
      await tick();
      await new Promise((r) => setTimeout(r, 30));
    }
    expect(twilio.calls).toHaveLength(1);
    // a paused batch is not claimed from, even by a tick that read it as sending just before the pause
    expect(await dispatcher.claim(id, s.user.companyId, { pace: false })).toBeUndefined();
    // the call in progress finished and its outcome is recorded while paused
    const first = (await recipients(id))[0];
    expect(first?.state).toBe('completed');
    const resumed = await s.t.req('POST', `/api/v1/batch-call/${id}/resume`, { token: s.user.token });
    expect(resumed.status).toBe(200);
    await tick();
    expect(twilio.calls).toHaveLength(2);
    const canceled = await s.t.req('POST', `/api/v1/batch-call/${id}/cancel`, { token: s.user.token });
    expect(canceled.status).toBe(200);
    for (let i = 0; i < 5; i++) {
      await tick();
      await new Promise((r) => setTimeout(r, 30));
    }
    expect(twilio.calls).toHaveLength(2);
    expect((await batchRow(id)).status).toBe('canceled');
    // pausing a batch that is not sending is refused
    const again = await s.t.req('POST', `/api/v1/batch-call/${id}/pause`, { token: s.user.token });
    expect(again.status).toBe(409);
  });

  /** The batch API as the company's user; signed in again once the test clock has moved on (tokens expire). */
  let signedIn: { token: string; at: number } | undefined;
  beforeEach(() => {
    signedIn = undefined;
  });
  const api = async (method: string, path: string, body?: unknown, headers?: Record<string, string>) => {
    const now = s.t.clock.now().getTime();
    if (!signedIn || Math.abs(now - signedIn.at) > 60_000) {
      const { body: login } = await logIn(s.t, s.user.email, s.user.password);
      signedIn = { token: login.token, at: now };
    }
    return s.t.req(method, `/api/v1/batch-call${path}`, { token: signedIn.token, body, ...(headers ? { headers } : {}) });
  };
  const batchOf = async (res: Response) => ((await res.json()) as { batch: Batch }).batch;

  /** A batch through the API: created with `rules`, its recipients uploaded as CSV, sent. */
  async function apiBatch(rules: Record<string, unknown>, phones: string[]) {
    const created = await api(
      'POST',
      '',
      { name: 'Rules', fromNumber: FROM, sendMode: 'now', ...rules },
      { 'Idempotency-Key': newId() },
    );
    expect(created.status, await created.clone().text()).toBe(201);
    const id = (await batchOf(created))._id;
    const csv = `phone_number,name\n${phones.map((p, i) => `${p},Person ${i + 1}`).join('\n')}\n`;
    const up = await api('POST', `/${id}/recipients`, csv, { 'Content-Type': 'text/csv' });
    expect(up.status, await up.clone().text()).toBe(200);
    const sent = await api('POST', `/${id}/send`);
    expect(sent.status, await sent.clone().text()).toBe(200);
    return id;
  }

  it('the dialling rules are set on create and PATCH, validated, and shown on the batch', async () => {
    const window = { days: [1, 2, 3, 4, 5], start: '09:00', end: '17:00' };
    const res = await api(
      'POST',
      '',
      {
        name: 'Rules',
        fromNumber: FROM,
        sendMode: 'now',
        callingWindow: window,
        timeZone: 'Europe/London',
        maxAttempts: 3,
        retryDelaySeconds: 300,
      },
      { 'Idempotency-Key': newId() },
    );
    expect(res.status).toBe(201);
    const batch = await batchOf(res);
    expect(batch).toMatchObject({
      callingWindow: window,
      timeZone: 'Europe/London',
      maxAttempts: 3,
      retryDelaySeconds: 300,
      pausedReason: null,
    });
    // the defaults: any time, UTC, one retry after 120 s
    const plain = await batchOf(
      await api('POST', '', { name: 'Plain', fromNumber: FROM, sendMode: 'now' }, { 'Idempotency-Key': newId() }),
    );
    expect(plain).toMatchObject({
      callingWindow: null,
      timeZone: 'UTC',
      maxAttempts: 2,
      retryDelaySeconds: 120,
      pausedReason: null,
    });
    // stored as given: the dispatcher reads the same row
    const row = await batchRow(batch._id);
    expect([JSON.parse(row.calling_window ?? 'null'), row.time_zone, row.max_attempts, row.retry_delay_s]).toEqual([
      window,
      'Europe/London',
      3,
      300,
    ]);

    const patched = await api('PATCH', `/${batch._id}`, { callingWindow: null, maxAttempts: 1 });
    expect(patched.status).toBe(200);
    expect(await batchOf(patched)).toMatchObject({
      callingWindow: null,
      timeZone: 'Europe/London',
      maxAttempts: 1,
      retryDelaySeconds: 300,
    });
    const read = await api('GET', `/${batch._id}`);
    expect(await batchOf(read)).toMatchObject({ callingWindow: null, maxAttempts: 1 });

    const bad = await api('PATCH', `/${batch._id}`, { timeZone: 'Mars/Olympus', retryDelaySeconds: 5 });
    expect(bad.status).toBe(400);
    const refused = await api(
      'POST',
      '',
      { name: 'Bad', fromNumber: FROM, sendMode: 'now', maxAttempts: 9 },
      { 'Idempotency-Key': newId() },
    );
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain(BATCH_MESSAGES.maxAttempts);
    // a batch that has ended keeps its rules
    expect((await api('POST', `/${batch._id}/cancel`)).status).toBe(200);
    expect((await api('PATCH', `/${batch._id}`, { maxAttempts: 2 })).status).toBe(409);
    expect((await batchRow(batch._id)).max_attempts).toBe(1);
  });

  it('two dispatchers (two servers on one database) keep one pace per company: new calls at least 1 s apart', async () => {
    await s.t.deps.db.db.updateTable('company_billing').set({ concurrency_limit: 20 }).execute();
    twilio.calleeHangsUpAfterMs = 50;
    const phones = Array.from({ length: 30 }, (_, i) => `+1415555${String(2000 + i)}`);
    const id = await sendingBatch(phones);
    const starts = async () =>
      (
        await s.t.deps.db.db
          .selectFrom('call_sessions')
          .select('created_at')
          .where('company_id', '=', s.user.companyId)
          .orderBy('created_at')
          .execute()
      ).map((r) => Date.parse(r.created_at));
    const gaps = (times: number[]) => times.slice(1).map((t, i) => t - (times[i] as number));
    /** `seconds` of the test clock in steps of 250 ms, every dispatcher ticking at once each step */
    const run = async (dispatchers: BatchDispatcher[], seconds: number) => {
      for (let i = 0; i < seconds * 4; i++) {
        s.t.clock.advance(250);
        await Promise.all(dispatchers.map((d) => d.tick()));
      }
    };
    // the default pace: one a second; 6 s of clock
    await run([new BatchDispatcher(s.t.deps), new BatchDispatcher(s.t.deps)], 6);
    const slow = await starts();
    expect(slow.length).toBeGreaterThanOrEqual(5);
    expect(slow.length).toBeLessThanOrEqual(6);
    expect(Math.min(...gaps(slow))).toBeGreaterThanOrEqual(1000);
    expect((await recipients(id)).filter((r) => r.state !== 'queued')).toHaveLength(slow.length);

    // a faster pace (BATCH_DIALS_PER_SECOND, here through DispatcherOptions): 4 a second, for 2 s of clock
    s.t.clock.advance(5000);
    await run([new BatchDispatcher(s.t.deps, { dialsPerSecond: 4 }), new BatchDispatcher(s.t.deps, { dialsPerSecond: 4 })], 2);
    const fast = (await starts()).slice(slow.length);
    expect(fast.length).toBeGreaterThanOrEqual(7);
    expect(fast.length).toBeLessThanOrEqual(8);
    expect(Math.min(...gaps(fast))).toBeGreaterThanOrEqual(250);
    // 30 recipients, and still most of them waiting their turn
    expect((await recipients(id)).filter((r) => r.state === 'queued').length).toBe(30 - slow.length - fast.length);
  });

  it('a batch whose calls fail at 50% or more over two minutes pauses itself and says why; resume clears it', async () => {
    twilio.calleeHangsUpAfterMs = 50;
    const failing = Array.from({ length: 6 }, (_, i) => `+1415555${String(3000 + i)}`);
    for (const p of failing) twilio.outcomes.set(p, 'failed');
    const id = await apiBatch({}, [...failing, '+14155553100', '+14155553101', '+14155553102']);
    const dispatcher = new BatchDispatcher(s.t.deps, { dialsPerSecond: 50 });
    const until = Date.now() + 20_000;
    while ((await batchRow(id)).status === 'sending') {
      if (Date.now() > until) throw new Error('the batch did not pause itself');
      s.t.clock.advance(200);
      await dispatcher.tick();
      await new Promise((r) => setTimeout(r, 20));
    }
    const paused = await batchOf(await api('GET', `/${id}`));
    expect(paused.status).toBe('paused');
    const m = /^Paused automatically: (\d+) of (\d+) calls in the last 2 minutes failed\.$/.exec(paused.pausedReason ?? '');
    expect(m, paused.pausedReason ?? 'no reason').not.toBeNull();
    const [failed, finished] = [Number(m?.[1]), Number(m?.[2])];
    expect(finished).toBeGreaterThanOrEqual(4);
    expect(failed * 2).toBeGreaterThanOrEqual(finished);
    const rows = await recipients(id);
    expect(rows.filter((r) => r.state === 'failed').length).toBeGreaterThanOrEqual(failed);
    // nothing new is dialled while paused
    const dialled = twilio.calls.length;
    for (let i = 0; i < 5; i++) {
      s.t.clock.advance(1000);
      await dispatcher.tick();
    }
    expect(twilio.calls.length).toBe(dialled);

    const resumed = await batchOf(await api('POST', `/${id}/resume`));
    expect([resumed.status, resumed.pausedReason]).toEqual(['sending', null]);
    // the failures before the resume do not pause it again
    await dispatcher.tick();
    expect((await batchRow(id)).status).toBe('sending');
    // paused by hand: no reason
    const manual = await batchOf(await api('POST', `/${id}/pause`));
    expect([manual.status, manual.pausedReason]).toEqual(['paused', null]);
  });

  it('dials the carrier refuses count as failures: the batch pauses itself after four of them', async () => {
    const phones = Array.from({ length: 10 }, (_, i) => `+1415555${String(6000 + i)}`);
    const id = await apiBatch({}, phones);
    // the carrier's credentials no longer match: every dial is refused (401)
    twilio.authToken = 'rotated-elsewhere';
    const dispatcher = new BatchDispatcher(s.t.deps);
    for (let i = 0; i < 10 && (await batchRow(id)).status === 'sending'; i++) {
      s.t.clock.advance(1000);
      await dispatcher.tick();
    }
    expect(twilio.refusals.length).toBe(4);
    const batch = await batchOf(await api('GET', `/${id}`));
    expect([batch.status, batch.pausedReason]).toEqual(['paused', BATCH_MESSAGES.pausedAutomatically(4, 4)]);
    expect((await recipients(id)).map((r) => r.state)).toEqual([...Array(4).fill('failed'), ...Array(6).fill('queued')]);
  });

  it('a dial refused because the carrier was disconnected keeps its reason: batch detail and recipients export', async () => {
    const phones = ['+14155556101', '+14155556102'];
    const id = await apiBatch({}, phones);
    const gone = await s.t.req('DELETE', '/api/v1/provider/disconnect', { token: s.user.token, body: { name: 'twilio' } });
    expect(gone.status).toBe(200);
    const dispatcher = new BatchDispatcher(s.t.deps);
    for (let i = 0; i < 5 && (await recipients(id)).some((r) => r.state === 'queued'); i++) {
      s.t.clock.advance(1000);
      await dispatcher.tick();
    }
    expect(twilio.calls).toEqual([]);
    const reason = TELEPHONY_MESSAGES.notConnected('Twilio');
    const detail = (await (await api('GET', `/${id}`)).json()) as { calls: { rows: { state: string; reason: string | null }[] } };
    expect(detail.calls.rows.map((r) => [r.state, r.reason])).toEqual([
      ['failed', reason],
      ['failed', reason],
    ]);
    const csv = await (await api('GET', `/${id}/recipients.csv`)).text();
    const [head, ...lines] = csv.trim().split(/\r?\n/);
    expect(head?.split(',').at(-1)).toBe('Failure Reason');
    expect(lines.map((l) => l.endsWith(`,${reason}`))).toEqual([true, true]);
    // every dial failed: the batch completes, marked as failed rather than a success
    for (let i = 0; i < 5 && (await batchRow(id)).status === 'sending'; i++) await dispatcher.tick();
    expect(await batchOf(await api('GET', `/${id}`))).toMatchObject({ status: 'completed', allFailed: true });
  });

  it('a busy recipient whose call ends while the batch is paused keeps its retry; once canceled, it does not', async () => {
    const [busy, busy2] = ['+14155555001', '+14155555002'];
    twilio.outcomes.set(busy, 'busy');
    twilio.outcomes.set(busy2, 'busy');
    const id = await apiBatch({ retryDelaySeconds: 60 }, [busy, busy2]);
    const dispatcher = new BatchDispatcher(s.t.deps);
    const tick = () => {
      s.t.clock.advance(1000);
      return dispatcher.tick();
    };
    await tick();
    expect(twilio.calls.map((c) => c.to)).toEqual([busy]);
    expect((await api('POST', `/${id}/pause`)).status).toBe(200);
    await twilio.calls[0]?.done;
    await tick();
    const [first] = await recipients(id);
    expect([first?.state, Number(first?.attempts)]).toEqual(['queued', 1]);
    expect(first?.next_attempt_at).toBe(new Date(s.t.clock.now().getTime() + 60_000).toISOString());
    expect((await api('POST', `/${id}/resume`)).status).toBe(200);
    await tick();
    // the other recipient first (the retry waits for its delay), then the retry after 60 s
    expect(twilio.calls.map((c) => c.to)).toEqual([busy, busy2]);
    expect((await api('POST', `/${id}/cancel`)).status).toBe(200);
    await twilio.calls[1]?.done;
    for (let i = 0; i < 70; i++) await tick();
    expect(twilio.calls).toHaveLength(2);
    expect((await recipients(id)).map((r) => [r.phone_number, r.state, Number(r.attempts)])).toEqual([
      [busy, 'queued', 1],
      [busy2, 'busy', 1],
    ]);
  });

  it('a batch of 30 with scripted outcomes: the window under a test clock, the concurrency limit, retries, pause, resume, cancel', async () => {
    // the company calls London as well as the US (Billing > Limits: its own numbers are all US)
    await s.t.deps.db.db.updateTable('company_billing').set({ concurrency_limit: 3, allowed_countries: 'GB,US' }).execute();
    const agent = await sampleAgent(s);
    const saved = await s.t.req('PUT', `/api/v1/agent/${agent._id}`, {
      token: s.user.token,
      body: savePayload(agent, {
        editor: {
          ...(agent.editor as object),
          voicemailDetection: true,
          voicemailAction: 'leave',
          voicemailMessage: 'Hi {{name}}, please call us back.',
        },
      }),
    });
    expect(saved.status, await saved.clone().text()).toBe(200);
    twilio.calleeHangsUpAfterMs = 400;
    const london = Array.from({ length: 8 }, (_, i) => `+44207946${String(1000 + i)}`);
    const newYork = Array.from({ length: 8 }, (_, i) => `+1212555${String(1000 + i)}`);
    const tollFree = Array.from({ length: 6 }, (_, i) => `+1800555${String(1000 + i)}`); // no zone: the batch's
    const losAngeles = Array.from({ length: 8 }, (_, i) => `+1415555${String(4000 + i)}`);
    const script: [string, 'busy' | 'no-answer' | 'voicemail'][] = [
      [london[0] as string, 'busy'],
      [london[1] as string, 'voicemail'],
      [newYork[0] as string, 'busy'],
      [newYork[1] as string, 'no-answer'],
      [newYork[2] as string, 'voicemail'],
      [tollFree[0] as string, 'no-answer'],
    ];
    for (const [p, o] of script) twilio.outcomes.set(p, o);
    // Monday 23 November 2026, 13:00 UTC: 13:00 in London, 08:00 in New York, 05:00 in Los Angeles
    s.t.clock.current = new Date('2026-11-23T13:00:00Z');
    const id = await apiBatch(
      {
        callingWindow: { days: [1, 2, 3, 4, 5], start: '09:00', end: '17:00' },
        timeZone: 'America/New_York',
        maxAttempts: 2,
        retryDelaySeconds: 60,
      },
      [...london, ...newYork, ...tollFree, ...losAngeles],
    );
    expect(await recipients(id)).toHaveLength(30);

    const dispatcher = new BatchDispatcher(s.t.deps);
    const dialledAt = new Map<string, number[]>();
    let seen = 0;
    let maxLive = 0;
    /** One second of the test clock per tick; every tick samples the live calls against the limit. */
    const tick = async () => {
      s.t.clock.advance(1000);
      await dispatcher.tick();
      const live = await liveCalls(s.t.deps.db.db, s.user.companyId);
      maxLive = Math.max(maxLive, live, twilio.active);
      expect(live).toBeLessThanOrEqual(3);
      expect(twilio.active).toBeLessThanOrEqual(3);
      for (const c of twilio.calls.slice(seen)) dialledAt.set(c.to, [...(dialledAt.get(c.to) ?? []), s.t.clock.now().getTime()]);
      seen = twilio.calls.length;
      await new Promise((r) => setTimeout(r, 15));
    };
    const stateOf = async (phones: string[]) => {
      const rows = await recipients(id);
      return rows.filter((r) => phones.includes(r.phone_number));
    };
    const settled = async (phones: string[]) =>
      (await stateOf(phones)).every((r) => r.state !== 'queued' && r.state !== 'calling');
    const tickUntil = async (done: () => Promise<boolean>, what: string) => {
      const until = Date.now() + 40_000;
      while (!(await done())) {
        if (Date.now() > until) throw new Error(`${what}: ${JSON.stringify(await recipients(id))}`);
        await tick();
      }
    };
    const dialled = (phones: string[]) => phones.filter((p) => dialledAt.has(p));

    // 1. only London is inside its window
    await tickUntil(() => settled(london), 'London not finished');
    expect(dialled([...newYork, ...tollFree, ...losAngeles])).toEqual([]);
    expect(s.t.clock.now().toISOString() < '2026-11-23T14:00:00.000Z').toBe(true);
    // the busy number was called again after the batch's retry delay (60 s of the test clock), not before
    const busyTimes = dialledAt.get(london[0] as string) ?? [];
    expect(busyTimes).toHaveLength(2);
    const retryRow = (await stateOf([london[0] as string]))[0];
    expect((busyTimes[1] as number) - (busyTimes[0] as number)).toBeGreaterThanOrEqual(60_000);
    expect(retryRow?.attempts).toBe(2);
    // everyone else is waiting for their window: the batch is still sending, nothing is live
    for (let i = 0; i < 5; i++) await tick();
    expect((await batchRow(id)).status).toBe('sending');
    expect(await liveCalls(s.t.deps.db.db, s.user.companyId)).toBe(0);

    // 2. 14:00 UTC: 09:00 in New York; the toll-free numbers follow the batch's zone (New York)
    s.t.clock.current = new Date('2026-11-23T14:00:00Z');
    await tickUntil(async () => dialled([...newYork, ...tollFree]).length >= 4, 'New York not dialled');
    expect((await api('POST', `/${id}/pause`)).status).toBe(200);
    const atPause = twilio.calls.length;
    // paused: the calls in progress finish (a busy one is kept for its retry), nothing new is placed
    await tickUntil(
      async () => (await stateOf([...newYork, ...tollFree])).every((r) => r.state !== 'calling'),
      'calls in progress',
    );
    for (let i = 0; i < 70; i++) await tick();
    expect(twilio.calls.length).toBe(atPause);
    expect(dialled(losAngeles)).toEqual([]);
    expect((await batchRow(id)).status).toBe('paused');
    expect((await api('POST', `/${id}/resume`)).status).toBe(200);
    await tickUntil(() => settled([...newYork, ...tollFree]), 'New York not finished');
    expect(dialled(losAngeles)).toEqual([]);
    expect((await batchRow(id)).status).toBe('sending');

    // 3. 17:00 UTC: 09:00 in Los Angeles; cancel after three calls
    s.t.clock.current = new Date('2026-11-23T17:00:00Z');
    await tickUntil(async () => dialled(losAngeles).length >= 3, 'Los Angeles not dialled');
    expect((await api('POST', `/${id}/cancel`)).status).toBe(200);
    const atCancel = twilio.calls.length;
    await tickUntil(async () => (await liveCalls(s.t.deps.db.db, s.user.companyId)) === 0, 'calls in progress after cancel');
    for (let i = 0; i < 5; i++) await tick();
    await tick();
    expect(twilio.calls.length).toBe(atCancel);
    expect((await batchRow(id)).status).toBe('canceled');

    // never more calls at once than the limit, and the limit was used
    expect(twilio.maxActive).toBeLessThanOrEqual(3);
    expect(maxLive).toBeGreaterThanOrEqual(2);
    // at most one new call per second of the clock
    const all = [...dialledAt.values()].flat().sort((x, y) => x - y);
    expect(new Set(all).size).toBe(all.length);

    // final states: outcome and attempts per recipient; the canceled batch's recipients not called stay queued
    const outcome = new Map(script);
    const expected = (p: string) => {
      const o = outcome.get(p);
      if (o === 'busy') return [p, 'busy', 2];
      if (o === 'no-answer') return [p, 'no_answer', 2];
      if (o === 'voicemail') return [p, 'voicemail', 1];
      return [p, 'completed', 1];
    };
    const calledLa = dialled(losAngeles);
    expect(calledLa).toHaveLength(3);
    expect((await recipients(id)).map((r) => [r.phone_number, r.state, Number(r.attempts)])).toEqual([
      ...[...london, ...newYork, ...tollFree].map(expected),
      ...losAngeles.map((p) => (calledLa.includes(p) ? [p, 'completed', 1] : [p, 'queued', 0])),
    ]);
    const dials = (p: string) => twilio.calls.filter((c) => c.to === p).length;
    expect([...london, ...newYork, ...tollFree, ...losAngeles].map(dials)).toEqual(
      [...london, ...newYork, ...tollFree, ...losAngeles].map((p) =>
        expected(p)[2] === 2 ? 2 : calledLa.includes(p) || !losAngeles.includes(p) ? 1 : 0,
      ),
    );
    expect((await batchRow(id)).sent_count).toBe(25);
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
