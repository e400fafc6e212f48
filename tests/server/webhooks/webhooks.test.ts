import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { announceCall } from '../../../server/modules/conversations/call-events.js';
import { createCallSession, finishCallSession } from '../../../server/modules/conversations/session.repo.js';
import { emitBatchEvent, enqueueDeliveries, queueCallEvent } from '../../../server/modules/webhooks/outbox.js';
import {
  createWebhookWorker,
  DELIVERY_RETENTION_MS,
  MAX_ATTEMPTS,
  RETRY_DELAYS_MS,
  type WebhookWorker,
} from '../../../server/modules/webhooks/worker.js';
import { type AppDatabase, type DbKind, openDatabase } from '../../../server/platform/db/index.js';
import { settled } from '../../../server/platform/jobs/later.js';
import { AGENT_EDITOR_DEFAULTS } from '../../../src/api/contract/agent/defaults.js';
import type { AgentDoc } from '../../../src/api/contract/agent/save.js';
import { DELIVERY_BODY_MAX } from '../../../src/api/contract/webhook.js';
import { logIn, type SignedUp, signUp } from '../auth-helpers.js';
import { buildTestApp, describeEachDb, type TestApp, useTestApp } from '../helpers.js';
import { WebhookReceiver } from './receiver.js';

const agentDoc = (webhook: string) =>
  ({
    name: 'Ava',
    prompt: '',
    message: '',
    settings: {
      llm: { service: 'openai', options: { model: 'gpt-4o' } },
      tts: { service: 'elevenlabs', options: { voice_id: 'v1', model: 'auto' } },
      stt: { service: 'deepgram', options: { language: 'en-US', model: 'nova-2' } },
    },
    editor: { ...AGENT_EDITOR_DEFAULTS, agentLevelWebhook: webhook },
  }) as unknown as AgentDoc;

async function api(t: TestApp, method: string, url: string, init: { body?: unknown; token?: string } = {}) {
  const res = await t.req(method, `/api/v1${url}`, init);
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary shapes
  return { status: res.status, body: (await res.json()) as any };
}

/** A web call of `user` that ran and ended (stored as the engine stores it). */
async function endedCall(t: TestApp, user: SignedUp, agentWebhook: string) {
  const db = t.deps.db.db;
  const now = t.clock.now();
  const row = await createCallSession(db, {
    companyId: user.companyId,
    accountId: user.accountId,
    agentId: null,
    agent: agentDoc(agentWebhook),
    type: 'web',
    from: '',
    to: '',
    phoneNumber: '',
    variables: { name: 'Sam' },
    now,
  });
  await db
    .updateTable('call_sessions')
    .set({ status: 'ongoing', started_at: now.toISOString() })
    .where('id', '=', row.id)
    .execute();
  const started = { ...row, status: 'ongoing', started_at: now.toISOString() };
  const transcript = [
    { role: 'agent' as const, text: 'Hello, this is Ava.', start_ms: 0, end_ms: 900 },
    { role: 'user' as const, text: 'I would like an appointment.', start_ms: 1200, end_ms: 2500 },
  ];
  await finishCallSession(db, started, {
    status: 'ended',
    reason: 'user_hangup',
    errorMessage: null,
    transcript,
    latency: [],
    usage: {
      stt_seconds: 30,
      llm_input_tokens: 100,
      llm_output_tokens: 50,
      tts_characters: 40,
      telephony_minutes: 0,
      llm_model: 'gpt-4o',
    } as never,
    cost: 0.0123,
    recording: `${row.id}.wav`,
    endedAt: new Date(now.getTime() + 42_000),
  });
  return row.id;
}

async function companyHook(t: TestApp, user: SignedUp, receiver: WebhookReceiver) {
  const saved = await api(t, 'PUT', '/webhook', { token: user.token, body: { url: receiver.url } });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  const secret = await api(t, 'POST', '/webhook/secret', { token: user.token });
  expect(secret.status).toBe(201);
  receiver.secret = secret.body.data.secret;
  receiver.now = () => t.clock.now().getTime();
}

async function queueOne(t: TestApp, user: SignedUp) {
  const [id] = await emitBatchEvent(t.deps, user.companyId, { batch_id: 'b1', name: 'November', total: 3 });
  return id as string;
}

const deliveryRow = (t: TestApp, id: string) =>
  t.deps.db.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describeEachDb('webhooks', (kind) => {
  const t = useTestApp(kind);
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterEach(async () => {
    await receiver.close();
  });
  /** the receiver listens on 127.0.0.1: these tests run as an operator with ALLOW_PRIVATE_WEBHOOK_URLS=true */
  const allowPrivate = () => {
    t().deps.config.allowPrivateWebhookUrls = true;
  };

  it('the signing secret is shown once, then only its last 4 characters; rotating replaces it', async () => {
    const user = await signUp(t());
    expect((await api(t(), 'GET', '/webhook', { token: user.token })).body.data).toEqual({
      url: '',
      webhooks: [],
      has_secret: false,
      secret_hint: null,
    });
    const first = await api(t(), 'POST', '/webhook/secret', { token: user.token });
    expect(first.body.msg).toBe('A new signing secret was created. Copy it now: it will not be shown again.');
    const secret: string = first.body.data.secret;
    expect(secret).toMatch(/^whsec_[\w-]{43}$/);
    const shown = await api(t(), 'GET', '/webhook', { token: user.token });
    expect(shown.body.data).toEqual({ url: '', webhooks: [], has_secret: true, secret_hint: secret.slice(-4) });
    expect(JSON.stringify(shown.body)).not.toContain(secret);
    const stored = await t().deps.db.db.selectFrom('company_webhooks').selectAll().executeTakeFirstOrThrow();
    expect(stored.secret).not.toContain(secret.slice(6));
    const second = await api(t(), 'POST', '/webhook/secret', { token: user.token });
    expect(second.body.data.secret).not.toBe(secret);

    // deliveries are signed with the new secret: the old one no longer verifies
    allowPrivate();
    await api(t(), 'PUT', '/webhook', { token: user.token, body: { url: receiver.url } });
    receiver.secret = secret;
    receiver.now = () => t().clock.now().getTime();
    await queueOne(t(), user);
    await createWebhookWorker(t().deps).runOnce();
    expect(receiver.received[0]?.verified).toBe(false);
    receiver.secret = second.body.data.secret;
    await queueOne(t(), user);
    await createWebhookWorker(t().deps).runOnce();
    expect(receiver.received[1]?.verified).toBe(true);
  });

  it.each([
    [
      'http://127.0.0.1:9000/hook',
      'Webhook URL: 127.0.0.1 is a loopback address. Only public internet addresses are allowed here.',
    ],
    ['http://10.1.2.3/hook', 'Webhook URL: 10.1.2.3 is a private address. Only public internet addresses are allowed here.'],
    [
      'http://169.254.169.254/latest/meta-data',
      'Webhook URL: 169.254.169.254 is a link-local address. Only public internet addresses are allowed here.',
    ],
    [
      'http://localhost:8080/hook',
      'Webhook URL: localhost resolves to a loopback address. Only public internet addresses are allowed here.',
    ],
    ['ftp://hooks.example.com', 'url: Enter a valid URL starting with http:// or https://'],
  ])('refuses %s when saved (company and agent webhook)', async (url, message) => {
    const user = await signUp(t());
    const res = await api(t(), 'PUT', '/webhook', { token: user.token, body: { url } });
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe(message);
    expect((await api(t(), 'GET', '/webhook', { token: user.token })).body.data.url).toBe('');
    if (url.startsWith('ftp')) return;
    const agents = await api(t(), 'GET', '/agent?page=1&limit=1', { token: user.token });
    const saved = agents.body.data.agents[0];
    const full = await api(t(), 'GET', `/agent/${saved._id}`, { token: user.token });
    const a = full.body.data.agent;
    const put = await api(t(), 'PUT', `/agent/${a._id}`, {
      token: user.token,
      body: {
        name: a.name,
        prompt: a.prompt,
        message: a.message,
        language: a.language,
        settings: a.settings,
        editor: { ...a.editor, agentLevelWebhook: url },
      },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(400);
    expect(put.body.errors).toEqual({ agentLevelWebhook: message });
    // the agent's Inbound Call Webhook the same way, on an update and on a new agent
    const payload = { name: a.name, prompt: a.prompt, message: a.message, language: a.language, settings: a.settings };
    const inbound = { ...payload, editor: { ...a.editor, inboundCallWebhook: url } };
    const putInbound = await api(t(), 'PUT', `/agent/${a._id}`, { token: user.token, body: inbound });
    expect([putInbound.status, putInbound.body.msg]).toEqual([400, message]);
    expect(putInbound.body.errors).toEqual({ inboundCallWebhook: message });
    const created = await api(t(), 'POST', '/agent', { token: user.token, body: inbound });
    expect([created.status, created.body.errors]).toEqual([400, { inboundCallWebhook: message }]);
    const kept = await api(t(), 'GET', `/agent/${a._id}`, { token: user.token });
    expect(kept.body.data.agent.editor.inboundCallWebhook).toBe(a.editor.inboundCallWebhook);
    expect((await api(t(), 'GET', '/agent?page=1&limit=10', { token: user.token })).body.data.agents).toHaveLength(1);
    // the operator's switch lets private addresses through
    allowPrivate();
    expect((await api(t(), 'PUT', '/webhook', { token: user.token, body: { url } })).status).toBe(200);
    expect((await api(t(), 'PUT', `/agent/${a._id}`, { token: user.token, body: inbound })).status).toBe(200);
  });

  it("lists the company's webhooks: its own URL, then each agent's", async () => {
    const user = await signUp(t());
    await api(t(), 'PUT', '/webhook', { token: user.token, body: { url: 'https://hooks.example.com/company' } });
    const agents = await api(t(), 'GET', '/agent?page=1&limit=1', { token: user.token });
    const a = (await api(t(), 'GET', `/agent/${agents.body.data.agents[0]._id}`, { token: user.token })).body.data.agent;
    const put = await api(t(), 'PUT', `/agent/${a._id}`, {
      token: user.token,
      body: {
        name: a.name,
        prompt: a.prompt,
        message: a.message,
        language: a.language,
        settings: a.settings,
        editor: { ...a.editor, agentLevelWebhook: 'https://hooks.example.com/agent' },
      },
    });
    expect(put.status).toBe(200);
    const other = await signUp(t());
    expect((await api(t(), 'GET', '/webhook', { token: other.token })).body.data.webhooks).toEqual([]);
    expect((await api(t(), 'GET', '/webhook', { token: user.token })).body.data.webhooks).toEqual([
      { id: 'company', label: 'Company webhook', url: 'https://hooks.example.com/company' },
      { id: a._id, label: a.name, url: 'https://hooks.example.com/agent' },
    ]);
  });

  it('call_started and call_ended reach the agent and company webhooks, signed, with transcript, recording, cost and reason', async () => {
    allowPrivate();
    const user = await signUp(t());
    await companyHook(t(), user, receiver);
    const callId = await endedCall(t(), user, `${receiver.url}?agent=1`);
    announceCall(t().deps, 'call.ended', { companyId: user.companyId, callId, analyse: true });
    await settled(t().deps);
    expect(await createWebhookWorker(t().deps).runOnce()).toBe(2);
    expect(receiver.accepted).toHaveLength(2);
    for (const got of receiver.accepted) {
      expect(got.verified).toBe(true);
      expect(got.event).toBe('call_ended');
      expect(got.headers['content-type']).toBe('application/json');
      const body = JSON.parse(got.body);
      expect(body.event).toBe('call_ended');
      expect(body.call).toMatchObject({
        call_id: callId,
        status: 'ended',
        disconnection_reason: 'user_hangup',
        duration: 42,
        transcript: [
          { role: 'agent', text: 'Hello, this is Ava.' },
          { role: 'user', text: 'I would like an appointment.' },
        ],
        dynamic_variables: { name: 'Sam' },
      });
      expect(body.call.cost.total).toBeGreaterThan(0);
      expect(body.call.recording_url).toMatch(new RegExp(`^http://parley\\.test/api/v1/call/${callId}/recording\\?token=`));
    }
    // the signed recording URL plays without a bearer token
    const recordingPath = JSON.parse(receiver.accepted[0]?.body as string).call.recording_url.replace('http://parley.test', '');
    expect((await t().req('GET', recordingPath)).status).not.toBe(403);
    const log = await api(t(), 'GET', '/webhook/deliveries', { token: user.token });
    expect(log.body.data.total).toBe(2);
    expect(log.body.data.deliveries.map((d: { webhook: string }) => d.webhook).sort()).toEqual(['agent', 'company']);
    const companyOnly = await api(t(), 'GET', '/webhook/deliveries?webhook=company', { token: user.token });
    expect(companyOnly.body.data.total).toBe(1);
  });

  it('a failing receiver is retried after 30 s and 2 minutes, then delivered; the log shows every figure', async () => {
    allowPrivate();
    const user = await signUp(t());
    await companyHook(t(), user, receiver);
    receiver.failNext(2);
    const id = await queueOne(t(), user);
    const worker = createWebhookWorker(t().deps);
    expect(await worker.runOnce()).toBe(1);
    expect(await deliveryRow(t(), id)).toMatchObject({ status: 'pending', attempts: 1, status_code: 500, error: 'HTTP 500' });
    t().clock.advance(RETRY_DELAYS_MS[0] - 1000);
    expect(await worker.runOnce()).toBe(0);
    t().clock.advance(1000);
    expect(await worker.runOnce()).toBe(1);
    t().clock.advance(RETRY_DELAYS_MS[1] - 1000);
    expect(await worker.runOnce()).toBe(0);
    t().clock.advance(1000);
    expect(await worker.runOnce()).toBe(1);
    expect(receiver.received).toHaveLength(3);
    expect(receiver.accepted).toHaveLength(1);
    // the same delivery id on every attempt, so a receiver can drop duplicates
    expect(new Set(receiver.received.map((r) => r.delivery))).toEqual(new Set([id]));

    const log = await api(t(), 'GET', '/webhook/deliveries', { token: user.token });
    expect(log.body.data.deliveries[0]).toMatchObject({
      _id: id,
      webhook: 'company',
      event: 'batch_completed',
      status: 'delivered',
      attempts: 3,
      status_code: 200,
      error: null,
      time: t().clock.now().toISOString(),
      next_attempt_at: null,
    });
    expect(typeof log.body.data.deliveries[0].duration_ms).toBe('number');
    const detail = await api(t(), 'GET', `/webhook/deliveries/${id}`, { token: user.token });
    expect(JSON.parse(detail.body.data.request_body)).toEqual({
      event: 'batch_completed',
      batch: { batch_id: 'b1', name: 'November', total: 3 },
    });
    // the receiver answered 10 KB: the log keeps 8 KB
    expect(Buffer.byteLength(detail.body.data.response_body)).toBe(DELIVERY_BODY_MAX);
  });

  it('is marked failed after 5 attempts, with delays growing to 10 minutes; Resend sends it again', async () => {
    allowPrivate();
    const user = await signUp(t());
    await companyHook(t(), user, receiver);
    receiver.failNext(100);
    const id = await queueOne(t(), user);
    const worker = createWebhookWorker(t().deps);
    const delays: number[] = [];
    let last = t().clock.now().getTime();
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      // step the clock a second at a time until the attempt is due
      while ((await worker.runOnce()) === 0) t().clock.advance(1000);
      delays.push(t().clock.now().getTime() - last);
      last = t().clock.now().getTime();
    }
    expect(delays).toEqual([0, 30_000, 120_000, 300_000, 600_000]);
    expect(await deliveryRow(t(), id)).toMatchObject({ status: 'failed', attempts: 5, status_code: 500 });
    t().clock.advance(24 * 3600_000);
    expect(await worker.runOnce()).toBe(0);
    expect(receiver.received).toHaveLength(5);

    receiver.failNext(0);
    // a day later: log in again
    const token = (await logIn(t(), user.email, user.password)).body.token as string;
    const resent = await api(t(), 'POST', `/webhook/deliveries/${id}/resend`, { token });
    expect(resent.status).toBe(201);
    expect(resent.body.data).toMatchObject({ status: 'pending', attempts: 0, event: 'batch_completed' });
    expect(await worker.runOnce()).toBe(1);
    expect(receiver.accepted).toHaveLength(1);
    expect(receiver.accepted[0]?.body).toBe(receiver.received[0]?.body);
    expect(await deliveryRow(t(), resent.body.data._id)).toMatchObject({ status: 'delivered', attempts: 1 });

    // another company sees none of it
    const other = await signUp(t());
    expect((await api(t(), 'GET', `/webhook/deliveries/${id}`, { token: other.token })).status).toBe(404);
    expect((await api(t(), 'POST', `/webhook/deliveries/${id}/resend`, { token: other.token })).status).toBe(404);
    expect((await api(t(), 'GET', '/webhook/deliveries', { token: other.token })).body.data.total).toBe(0);
  });

  it('delivered and failed deliveries leave the log after 30 days; pending ones stay', async () => {
    allowPrivate();
    const user = await signUp(t());
    await companyHook(t(), user, receiver);
    const delivered = await queueOne(t(), user);
    const worker = createWebhookWorker(t().deps);
    await worker.runOnce();
    receiver.failNext(1);
    const pending = await queueOne(t(), user);
    await worker.runOnce();
    t().clock.advance(DELIVERY_RETENTION_MS - 1000);
    expect(await worker.prune()).toBe(0);
    t().clock.advance(2000);
    expect(await worker.prune()).toBe(1);
    const left = await t().deps.db.db.selectFrom('webhook_deliveries').select(['id', 'status']).execute();
    expect(left).toEqual([{ id: pending, status: 'pending' }]);
    expect(left.some((r) => r.id === delivered)).toBe(false);
  });

  it('a receiver that never answers is cut at the time limit and retried', async () => {
    allowPrivate();
    const user = await signUp(t());
    await companyHook(t(), user, receiver);
    receiver.hang();
    const id = await queueOne(t(), user);
    await createWebhookWorker(t().deps, { timeoutMs: 200 }).runOnce();
    expect(await deliveryRow(t(), id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      status_code: null,
      error: 'No answer within 0.2 s',
    });
    receiver.hang(false);
    t().clock.advance(RETRY_DELAYS_MS[0]);
    await createWebhookWorker(t().deps, { timeoutMs: 200 }).runOnce();
    expect(await deliveryRow(t(), id)).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('a delivery left mid-send by a dead server is sent by another once its lease ends, and the dead one cannot overwrite it', async () => {
    allowPrivate();
    const user = await signUp(t());
    await companyHook(t(), user, receiver);
    receiver.hang();
    const id = await queueOne(t(), user);
    // server A claims it and hangs (its process is as good as dead)
    const dead = createWebhookWorker(t().deps, { workerId: 'dead', timeoutMs: 60_000 }).runOnce();
    while (receiver.received.length === 0) await new Promise((r) => setTimeout(r, 5));
    const alive = createWebhookWorker(t().deps, { workerId: 'alive' });
    expect(await alive.runOnce()).toBe(0); // leased
    receiver.hang(false);
    t().clock.advance(60_001);
    expect(await alive.runOnce()).toBe(1);
    expect(await deliveryRow(t(), id)).toMatchObject({ status: 'delivered', attempts: 2, worker: 'alive' });
    // A's connection dies: its failure does not change the delivered row
    await receiver.close();
    receiver = await WebhookReceiver.start();
    await dead;
    expect(await deliveryRow(t(), id)).toMatchObject({ status: 'delivered', attempts: 2, status_code: 200 });
  });

  it.each([
    ['http://127.0.0.1:1/hook', '127.0.0.1 is a loopback address.'],
    ['http://10.0.0.7/hook', '10.0.0.7 is a private address.'],
    ['http://169.254.169.254/latest/meta-data', '169.254.169.254 is a link-local address.'],
    ['http://localhost:1/hook', 'localhost resolves to a loopback address.'],
  ])('refuses to send to %s (DNS or settings changed after it was saved)', async (url, why) => {
    const user = await signUp(t());
    const [id] = await enqueueDeliveries(t().deps, [
      { companyId: user.companyId, target: 'company', agentId: null, url, event: 'batch_completed', callId: null, payload: '{}' },
    ]);
    await createWebhookWorker(t().deps).runOnce();
    const row = await deliveryRow(t(), id as string);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, status_code: null });
    expect(row.error).toContain(why);
  });

  it('a name that resolves to loopback at send time is refused without connecting', async () => {
    const user = await signUp(t());
    const port = new URL(receiver.url).port;
    const [id] = await enqueueDeliveries(t().deps, [
      {
        companyId: user.companyId,
        target: 'company',
        agentId: null,
        url: `http://hooks.customer.example:${port}/hooks`,
        event: 'batch_completed',
        callId: null,
        payload: '{}',
      },
    ]);
    // the name was public when saved; now it points at the server's own loopback
    await createWebhookWorker(t().deps, { lookup: async () => ['127.0.0.1'] }).runOnce();
    expect((await deliveryRow(t(), id as string)).error).toContain('hooks.customer.example resolves to a loopback address.');
    expect(receiver.received).toHaveLength(0);
  });

  it('a redirect (to loopback) is not followed and does not count as delivered', async () => {
    allowPrivate();
    const user = await signUp(t());
    await companyHook(t(), user, receiver);
    const target = await WebhookReceiver.start();
    try {
      receiver.redirect(target.url);
      const id = await queueOne(t(), user);
      await createWebhookWorker(t().deps).runOnce();
      expect(await deliveryRow(t(), id)).toMatchObject({
        status: 'pending',
        status_code: 302,
        error: 'Redirect (302) not followed',
      });
      expect(target.received).toHaveLength(0);
    } finally {
      await target.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// One company's hanging receiver must not hold up another company's webhooks

describeEachDb('webhooks: fairness across companies and the limits of Resend', (kind) => {
  const t = useTestApp(kind);
  let hanging: WebhookReceiver;
  let receiver: WebhookReceiver;
  let worker: WebhookWorker | undefined;
  beforeEach(async () => {
    hanging = await WebhookReceiver.start();
    hanging.hang();
    receiver = await WebhookReceiver.start();
    t().deps.config.allowPrivateWebhookUrls = true;
  });
  afterEach(async () => {
    // the hanging connections end with the receiver, so the worker's sends end too
    await hanging.close();
    await receiver.close();
    await worker?.stop();
    worker = undefined;
  });

  /** Company A with `n` deliveries queued to a receiver that never answers, then company B's call_ended. */
  async function floodThenCallEnded(n: number) {
    const a = await signUp(t());
    await companyHook(t(), a, hanging);
    const queued = Array.from({ length: n }, () => ({
      companyId: a.companyId,
      target: 'company' as const,
      agentId: null,
      url: hanging.url,
      event: 'call_ended',
      callId: null,
      payload: '{"event":"call_ended"}',
    }));
    await enqueueDeliveries(t().deps, queued);
    t().clock.advance(1000);
    const b = await signUp(t());
    await companyHook(t(), b, receiver);
    const callId = await endedCall(t(), b, '');
    const [bDelivery] = await queueCallEvent(t().deps, 'call_ended', { companyId: b.companyId, callId });
    return { a, b, bDelivery: bDelivery as string };
  }
  /** how many of the company's deliveries have this status (and, when given, this many attempts) */
  const countOf = async (companyId: string, status: string, attempts?: number) => {
    let q = t()
      .deps.db.db.selectFrom('webhook_deliveries')
      .select((e) => e.fn.countAll<number>().as('n'))
      .where('company_id', '=', companyId)
      .where('status', '=', status);
    if (attempts !== undefined) q = q.where('attempts', '=', attempts);
    return Number((await q.executeTakeFirstOrThrow()).n);
  };

  it("company B's call_ended goes out in the first round, before most of A's 200 deliveries to a hanging receiver", async () => {
    t().deps.config.jobLimits = { webhookConcurrency: 8, webhookPerCompany: 2 };
    const { a, bDelivery } = await floodThenCallEnded(200);
    const w = createWebhookWorker(t().deps, { timeoutMs: 200 });
    // one round: each company's oldest first, at most 2 of A's
    expect(await w.runOnce()).toBe(3);
    expect(receiver.accepted.map((r) => r.delivery)).toEqual([bDelivery]);
    expect(receiver.accepted[0]?.event).toBe('call_ended');
    expect(await deliveryRow(t(), bDelivery)).toMatchObject({ status: 'delivered', attempts: 1 });
    // A's two attempts ran out of time and wait for their retry; the 198 others were not touched
    expect(await countOf(a.companyId, 'pending', 1)).toBe(2);
    expect(await countOf(a.companyId, 'pending', 0)).toBe(198);
  });

  it('the running worker sends B while A keeps no more than its share of sends waiting on the hanging receiver', async () => {
    t().deps.config.jobLimits = { webhookConcurrency: 8, webhookPerCompany: 2 };
    const { a, bDelivery } = await floodThenCallEnded(200);
    // A's sends hang for the whole 60 s a test-made attempt may last
    worker = createWebhookWorker(t().deps, { timeoutMs: 60_000, pollMs: 20 });
    worker.start();
    await vi.waitFor(async () => expect((await deliveryRow(t(), bDelivery)).status).toBe('delivered'), {
      timeout: 10_000,
      interval: 50,
    });
    // A has two sends waiting on its receiver, no more; the others wait their turn
    expect(await countOf(a.companyId, 'sending')).toBe(2);
    expect(await countOf(a.companyId, 'pending')).toBe(198);
    await vi.waitFor(() => expect(hanging.received).toHaveLength(2), { timeout: 5000, interval: 20 });
  });

  it('Resend: once per delivery a minute, and a company at most its limit a minute: 429 with a clear message and Retry-After', async () => {
    t().deps.config.jobLimits = { resendsPerMinute: 3, resendIntervalMs: 300_000 };
    const user = await signUp(t());
    await companyHook(t(), user, receiver);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await queueOne(t(), user));
    const resend = (id: string, token = user.token) => t().req('POST', `/api/v1/webhook/deliveries/${id}/resend`, { token });

    /** the answer is 429 with this Retry-After and this sentence */
    const refused = async (res: Response) => ({
      status: res.status,
      retryAfter: res.headers.get('retry-after'),
      msg: ((await res.json()) as { msg: string }).msg,
    });

    expect((await resend(ids[0] as string)).status).toBe(201);
    expect(await refused(await resend(ids[0] as string))).toEqual({
      status: 429,
      retryAfter: '300',
      msg: 'This delivery was resent a moment ago. You can resend it again in 5 minutes.',
    });
    expect((await resend(ids[1] as string)).status).toBe(201);
    expect((await resend(ids[2] as string)).status).toBe(201);
    expect(await refused(await resend(ids[3] as string))).toEqual({
      status: 429,
      retryAfter: '60',
      msg: 'Your company resent 3 deliveries in the last minute, the most allowed. Please try again in 1 minute.',
    });
    // nothing was queued by the refused ones: 5 deliveries and 3 resends
    const all = await t().deps.db.db.selectFrom('webhook_deliveries').select('id').execute();
    expect(all).toHaveLength(8);

    // a minute later the company may resend again; the refused delivery was not held against itself
    t().clock.advance(60_000);
    expect((await resend(ids[3] as string)).status).toBe(201);
    // the per-delivery wait still holds for the first one
    expect((await resend(ids[0] as string)).status).toBe(429);
    // another company has its own allowance, and cannot resend A's deliveries at all
    const other = await signUp(t());
    expect((await resend(ids[4] as string, other.token)).status).toBe(404);
  });
});

// ---------------------------------------------------------------------------------------------
// Restarts and several servers: two apps on one database

/** A database two apps open (a SQLite file, or one PostgreSQL schema). */
function sharedDatabase(kind: DbKind) {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'parley-hooks-')), 'shared.sqlite');
  const opened: AppDatabase[] = [];
  return {
    async open() {
      const db =
        kind === 'postgres'
          ? await openDatabase({ url: process.env.TEST_DATABASE_URL as string, pgSchema: schema, poolSize: 5 })
          : await openDatabase({ sqliteFile: file });
      opened.push(db);
      return db;
    },
    async dispose() {
      for (const db of opened.splice(0)) await db.close().catch(() => {});
      if (kind !== 'postgres') return;
      const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    },
  };
}

describeEachDb('webhooks across restarts and servers', (kind) => {
  let shared: ReturnType<typeof sharedDatabase>;
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    shared = sharedDatabase(kind);
    receiver = await WebhookReceiver.start();
  });
  afterEach(async () => {
    await receiver.close();
    await shared.dispose();
  });

  // the servers of one deployment share its keys
  const secrets = { jwtKey: randomBytes(32), masterKey: randomBytes(32) };
  async function server() {
    const app = await buildTestApp(kind, { db: await shared.open(), secrets });
    app.deps.config.allowPrivateWebhookUrls = true;
    return app;
  }

  it('deliveries queued before a restart are sent after it', async () => {
    const before = await server();
    const user = await signUp(before);
    await companyHook(before, user, receiver);
    receiver.failNext(1);
    const first = await queueOne(before, user);
    await createWebhookWorker(before.deps).runOnce(); // fails once, due in 30 s
    const second = await queueOne(before, user);
    await before.deps.db.close();

    const after = await server();
    after.clock.current = new Date(before.clock.now().getTime() + RETRY_DELAYS_MS[0]);
    receiver.now = () => after.clock.now().getTime();
    expect(await createWebhookWorker(after.deps).runOnce()).toBe(2);
    expect(await deliveryRow(after, first)).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(await deliveryRow(after, second)).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(receiver.accepted.map((r) => r.delivery).sort()).toEqual([first, second].sort());
  });

  it('each delivery is sent once when two servers (or two workers) drain the outbox together', async () => {
    const a = await server();
    // PostgreSQL: a second server with its own connections; SQLite: a second worker on the one connection
    const b = kind === 'postgres' ? await server() : a;
    // the company's limit of sends in flight (4 by default) would let whichever server claims first take
    // every turn; raised here so both servers claim at once and the claim itself is what is tested
    for (const app of [a, b]) app.deps.config.jobLimits = { webhookConcurrency: 8, webhookPerCompany: 40 };
    const user = await signUp(a);
    await companyHook(a, user, receiver);
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push(await queueOne(a, user));
    const workers = [createWebhookWorker(a.deps, { workerId: 'a' }), createWebhookWorker(b.deps, { workerId: 'b' })];
    const drain = async (w: (typeof workers)[number]) => {
      while ((await w.runOnce()) > 0) {}
    };
    await Promise.all([
      drain(workers[0] as never),
      drain(workers[1] as never),
      drain(workers[0] as never),
      drain(workers[1] as never),
    ]);
    expect(receiver.received).toHaveLength(40);
    expect(new Set(receiver.received.map((r) => r.delivery))).toEqual(new Set(ids));
    const rows = await a.deps.db.db.selectFrom('webhook_deliveries').select(['status', 'attempts', 'worker']).execute();
    expect(rows.every((r) => r.status === 'delivered' && Number(r.attempts) === 1)).toBe(true);
    if (kind === 'postgres') expect(new Set(rows.map((r) => r.worker))).toEqual(new Set(['a', 'b']));
  });

  it("a company's limit of sends in flight holds across servers: servers claiming at once take 2 of A's, not 2 each", async () => {
    const hanging = await WebhookReceiver.start();
    hanging.hang();
    try {
      const a = await server();
      const b = kind === 'postgres' ? await server() : a;
      for (const app of [a, b]) app.deps.config.jobLimits = { webhookConcurrency: 8, webhookPerCompany: 2 };
      const user = await signUp(a);
      await companyHook(a, user, hanging);
      for (let i = 0; i < 20; i++) await queueOne(a, user);
      // three workers on each server, all claiming at the same moment
      const workers = ['a1', 'a2', 'a3', 'b1', 'b2', 'b3'].map((id) =>
        createWebhookWorker((id.startsWith('a') ? a : b).deps, { workerId: id, timeoutMs: 2000 }),
      );
      expect((await Promise.all(workers.map((w) => w.runOnce()))).reduce((x, y) => x + y)).toBe(2);
      const tried = await a.deps.db.db.selectFrom('webhook_deliveries').select('id').where('attempts', '=', 1).execute();
      expect(tried).toHaveLength(2);
    } finally {
      await hanging.close();
    }
  });
});
