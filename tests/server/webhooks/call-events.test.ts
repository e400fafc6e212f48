import { afterEach, beforeEach, expect, it } from 'vitest';
import { createCallSession } from '../../../server/modules/conversations/session.repo.js';
import { STALE_HEARTBEAT_MS, sweepCalls } from '../../../server/modules/conversations/sweep.js';
import { createWebhookWorker } from '../../../server/modules/webhooks/worker.js';
import { settled } from '../../../server/platform/jobs/later.js';
import { connectProvider, openBrowser, sampleAgent, savePayload, useCallServer, waitFor } from '../call/harness.js';
import { InProcessProviders } from '../call/in-process-providers.js';
import { describeEachDb } from '../helpers.js';
import { WebhookReceiver } from './receiver.js';

/** The call engine's hook: a real web call (providers in memory) tells the agent's webhook it started and ended. */
describeEachDb('webhooks from the call engine', (kind) => {
  const server = useCallServer(kind, () => new InProcessProviders().set());
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterEach(async () => {
    await receiver.close();
  });

  it("a web call sends call_started and call_ended to the agent's webhook", async () => {
    const s = server();
    s.t.deps.config.allowPrivateWebhookUrls = true;
    for (const name of ['deepgram', 'openai', 'elevenlabs']) await connectProvider(s, name);
    const secret = await s.t.req('POST', '/api/v1/webhook/secret', { token: s.user.token });
    receiver.secret = ((await secret.json()) as { data: { secret: string } }).data.secret;
    receiver.now = () => s.t.clock.now().getTime();
    const agent = await sampleAgent(s);
    const res = await s.t.req('POST', '/api/v1/call/web', {
      token: s.user.token,
      body: {
        agent_id: agent._id,
        agent: savePayload(agent, {
          message: '',
          editor: { endCallOnSilence: 0.002, reminderTimes: 0, agentLevelWebhook: receiver.url },
        }),
      },
    });
    const { data } = (await res.json()) as { data: { call_id: string; access_token: string } };
    const browser = openBrowser(s, data.call_id, data.access_token);
    await browser.closed;
    const db = s.t.deps.db.db;
    await waitFor(async () => {
      await settled(s.t.deps);
      const rows = await db.selectFrom('webhook_deliveries').select('event').execute();
      return rows.length === 2;
    }, 'two deliveries');
    await createWebhookWorker(s.t.deps).runOnce();
    const events = receiver.accepted.map((r) => JSON.parse(r.body) as { event: string; call: Record<string, unknown> });
    expect(events.map((e) => e.event).sort()).toEqual(['call_ended', 'call_started']);
    expect(receiver.accepted.every((r) => r.verified)).toBe(true);
    const ended = events.find((e) => e.event === 'call_ended')?.call;
    expect(ended).toMatchObject({ call_id: data.call_id, status: 'ended', disconnection_reason: 'inactivity', type: 'web' });
    const started = events.find((e) => e.event === 'call_started')?.call;
    expect(started).toMatchObject({ call_id: data.call_id, status: 'ongoing' });
  });

  it('a call whose server died is ended by the sweeper and still sent as call_ended', async () => {
    const s = server();
    const db = s.t.deps.db.db;
    const start = s.t.clock.now();
    const agent = await sampleAgent(s);
    const doc = savePayload(agent, { editor: { ...(agent.editor as object), agentLevelWebhook: 'https://hooks.example.com/a' } });
    const row = await createCallSession(db, {
      companyId: s.user.companyId,
      accountId: s.user.accountId,
      agentId: agent._id,
      agent: doc as never,
      type: 'web',
      from: '',
      to: '',
      phoneNumber: '',
      variables: {},
      now: start,
    });
    await db
      .updateTable('call_sessions')
      .set({ status: 'ongoing', started_at: start.toISOString(), heartbeat_at: start.toISOString(), server_id: 'srv-gone' })
      .where('id', '=', row.id)
      .execute();
    s.t.clock.advance(STALE_HEARTBEAT_MS + 1000);
    expect(await sweepCalls(s.t.deps)).toMatchObject({ ended: 1 });
    await settled(s.t.deps);
    const queued = await db.selectFrom('webhook_deliveries').selectAll().execute();
    expect(queued).toHaveLength(1);
    expect(JSON.parse(queued[0]?.payload as string)).toMatchObject({
      event: 'call_ended',
      call: { call_id: row.id, status: 'error', disconnection_reason: 'error_unknown' },
    });
    expect(await db.selectFrom('call_analyses').select('call_id').execute()).toEqual([{ call_id: row.id }]);
  });
});
