import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ANALYSIS_SHAPE_NAME,
  type AnalysisWorker,
  analysisSchema,
  createAnalysisWorker,
  parseAnalysis,
  queueAnalysis,
  RETRY_DELAYS_MS,
} from '../../../server/modules/calls/analysis.js';
import { createCallSession, finishCallSession } from '../../../server/modules/conversations/session.repo.js';
import { AGENT_EDITOR_DEFAULTS } from '../../../src/api/contract/agent/defaults.js';
import type { AnalysisField } from '../../../src/api/contract/agent/records.js';
import type { AgentDoc } from '../../../src/api/contract/agent/save.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/openai.js';
import { type SignedUp, signUp } from '../auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from '../helpers.js';

const FIELDS: AnalysisField[] = [
  { name: 'appointment_day', type: 'text', description: 'The day the caller booked', choices: [] },
  { name: 'party_size', type: 'number', description: 'How many people', choices: [] },
  { name: 'wants_callback', type: 'boolean', description: '', choices: [] },
  { name: 'department', type: 'enum', description: 'Which team', choices: ['sales', 'support', 'billing'] },
];

const GOOD = {
  summary: 'The caller booked a table for four on Friday.',
  sentiment: 'positive',
  goal_achieved: true,
  custom: { appointment_day: 'Friday', party_size: 4, wants_callback: false, department: 'sales' },
};

describe('parseAnalysis: the LLM answer is checked against the field types', () => {
  it('accepts each type, null for what the call did not say, and a fenced JSON block', () => {
    expect(parseAnalysis(JSON.stringify(GOOD), FIELDS)).toEqual({
      summary: GOOD.summary,
      sentiment: 'positive',
      successful: true,
      custom: GOOD.custom,
    });
    const fenced = `\`\`\`json\n${JSON.stringify({ ...GOOD, custom: { party_size: null } })}\n\`\`\``;
    expect(parseAnalysis(fenced, FIELDS).custom).toEqual({
      appointment_day: null,
      party_size: null,
      wants_callback: null,
      department: null,
    });
  });

  it.each([
    ['not json at all', 'The analysis was not valid JSON'],
    [JSON.stringify([1]), 'The analysis was not a JSON object'],
    [JSON.stringify({ ...GOOD, summary: 3 }), 'summary must be a string'],
    [JSON.stringify({ ...GOOD, sentiment: 'happy' }), 'sentiment must be one of positive, neutral, negative'],
    [JSON.stringify({ ...GOOD, goal_achieved: 'yes' }), 'goal_achieved must be true or false'],
    [JSON.stringify({ ...GOOD, custom: { ...GOOD.custom, appointment_day: 5 } }), 'appointment_day must be a string'],
    [JSON.stringify({ ...GOOD, custom: { ...GOOD.custom, party_size: '4' } }), 'party_size must be a number'],
    [JSON.stringify({ ...GOOD, custom: { ...GOOD.custom, wants_callback: 'no' } }), 'wants_callback must be a boolean'],
    [
      JSON.stringify({ ...GOOD, custom: { ...GOOD.custom, department: 'hr' } }),
      'department must be one of sales, support, billing',
    ],
  ])('refuses %s', (answer, message) => {
    expect(() => parseAnalysis(answer, FIELDS)).toThrow(message);
  });
});

describe('analysisSchema: the shape asked of the provider', () => {
  it("keeps strict mode's rules: every key required, no other keys, a value the call does not say is null", () => {
    const schema = analysisSchema(FIELDS) as {
      required: string[];
      additionalProperties: boolean;
      properties: Record<string, Record<string, unknown>> & {
        custom: { required: string[]; additionalProperties: boolean; properties: Record<string, unknown> };
      };
    };
    expect(schema.required).toEqual(['summary', 'sentiment', 'goal_achieved', 'custom']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.sentiment).toMatchObject({ type: 'string', enum: ['positive', 'neutral', 'negative'] });
    expect(schema.properties.custom.required).toEqual(['appointment_day', 'party_size', 'wants_callback', 'department']);
    expect(schema.properties.custom.additionalProperties).toBe(false);
    expect(schema.properties.custom.properties).toEqual({
      appointment_day: { type: ['string', 'null'], description: 'The day the caller booked' },
      party_size: { type: ['number', 'null'], description: 'How many people' },
      wants_callback: { type: ['boolean', 'null'] },
      department: { type: ['string', 'null'], enum: ['sales', 'support', 'billing', null], description: 'Which team' },
    });
    expect(analysisSchema([]).properties).toMatchObject({ custom: { properties: {}, required: [] } });
  });
});

const agentDoc = {
  name: 'Ava',
  prompt: 'Book tables for the restaurant.',
  message: '',
  settings: {
    llm: { service: 'openai', options: { model: 'gpt-4o' } },
    tts: { service: 'elevenlabs', options: { voice_id: 'v1', model: 'auto' } },
    stt: { service: 'deepgram', options: { language: 'en-US', model: 'nova-2' } },
  },
  editor: { ...AGENT_EDITOR_DEFAULTS, postCallAnalysisFields: FIELDS, postCallAnalysisData: 'Note any allergies.' },
} as unknown as AgentDoc;

async function endedCall(t: TestApp, user: SignedUp, agent: AgentDoc = agentDoc) {
  const db = t.deps.db.db;
  const now = t.clock.now();
  const row = await createCallSession(db, {
    companyId: user.companyId,
    accountId: user.accountId,
    agentId: null,
    agent,
    type: 'web',
    from: '',
    to: '',
    phoneNumber: '',
    variables: {},
    now,
  });
  const started = { ...row, status: 'ongoing', started_at: now.toISOString() };
  await db
    .updateTable('call_sessions')
    .set({ status: 'ongoing', started_at: started.started_at })
    .where('id', '=', row.id)
    .execute();
  await finishCallSession(db, started, {
    status: 'ended',
    reason: 'user_hangup',
    errorMessage: null,
    transcript: [
      { role: 'agent', text: 'Hello, Bella Cucina.', start_ms: 0, end_ms: 800 },
      { role: 'user', text: 'A table for four on Friday, please.', start_ms: 1000, end_ms: 2500 },
    ],
    latency: [],
    usage: {} as never,
    cost: 0.01,
    recording: null,
    endedAt: new Date(now.getTime() + 30_000),
  });
  return row.id;
}

/** A company that signed up and connected the fake OpenAI's key. */
async function userWithOpenAi(t: TestApp, openai: FakeOpenAi): Promise<SignedUp> {
  t.deps.config.providerUrls = { ...t.deps.config.providerUrls, openai: openai.url };
  const user = await signUp(t);
  const res = await t.req('POST', '/api/v1/provider/values', {
    token: user.token,
    body: { name: 'openai', keys: [{ name: 'API Key', value: openai.apiKey }] },
  });
  expect(res.status).toBe(201);
  return user;
}

describeEachDb('post-call analysis against the fake OpenAI', (kind) => {
  const t = useTestApp(kind);
  let openai: FakeOpenAi;
  let user: SignedUp;
  beforeEach(async () => {
    openai = await startFakeOpenAi();
    user = await userWithOpenAi(t(), openai);
  });
  afterEach(async () => {
    await openai.close();
  });

  const detail = async (id: string) => {
    const res = await t().req('GET', `/api/v1/call/${id}`, { token: user.token });
    // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary shapes
    return ((await res.json()) as any).data;
  };

  it('fills summary, sentiment, Successful and the custom fields of each type; call_analyzed is queued', async () => {
    const callId = await endedCall(t(), user);
    await t()
      .deps.db.db.insertInto('company_webhooks')
      .values({
        company_id: user.companyId,
        url: 'https://hooks.example.com/parley',
        secret: null,
        secret_hint: null,
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      })
      .execute();
    expect((await detail(callId)).analysis).toBeNull();
    await queueAnalysis(t().deps, { companyId: user.companyId, callId });
    expect((await detail(callId)).analysis).toMatchObject({ status: 'pending' });
    openai.scriptChat([{ text: JSON.stringify(GOOD) }]);
    expect(await createAnalysisWorker(t().deps).runOnce()).toBe(true);

    const d = await detail(callId);
    expect(d.analysis).toEqual({
      status: 'done',
      summary: GOOD.summary,
      sentiment: 'positive',
      successful: true,
      custom: GOOD.custom,
      error: null,
    });
    expect(d.call_successful).toBe(true);
    // what the LLM was asked: the agent's model, the fields with their types, the transcript
    const sent = openai.chatRequests.at(-1)?.body as { model: string; messages: { role: string; content: string }[] };
    expect(sent.model).toBe('gpt-4o');
    const system = sent.messages[0]?.content ?? '';
    expect(system).toContain('"department" (one of "sales", "support", "billing"');
    expect(system).toContain('"party_size" (number');
    expect(system).toContain('Note any allergies.');
    expect(sent.messages[1]?.content).toContain('Caller: A table for four on Friday, please.');
    // the shape itself is asked for: a strict json_schema built from the fields (the fake refuses a schema
    // strict mode does not take)
    expect((sent as unknown as { response_format: unknown }).response_format).toEqual({
      type: 'json_schema',
      json_schema: {
        name: ANALYSIS_SHAPE_NAME,
        description: 'The analysis of the finished call.',
        strict: true,
        schema: analysisSchema(FIELDS),
      },
    });

    const queued = await t().deps.db.db.selectFrom('webhook_deliveries').selectAll().execute();
    expect(queued.map((q) => q.event)).toEqual(['call_analyzed']);
    const payload = JSON.parse(queued[0]?.payload as string);
    expect(payload.call.analysis).toMatchObject({ status: 'done', custom: GOOD.custom });
    expect(payload.call.call_successful).toBe(true);
  });

  it('a malformed answer is retried, and after 3 attempts the analysis is failed; the call record stays', async () => {
    const callId = await endedCall(t(), user);
    await queueAnalysis(t().deps, { companyId: user.companyId, callId });
    openai.scriptChat([
      { text: 'Sure! The caller was happy.' },
      { text: JSON.stringify({ ...GOOD, custom: { ...GOOD.custom, party_size: 'four' } }) },
      { text: JSON.stringify({ ...GOOD, custom: { ...GOOD.custom, department: 'kitchen' } }) },
    ]);
    const worker = createAnalysisWorker(t().deps);
    expect(await worker.runOnce()).toBe(true);
    expect((await detail(callId)).analysis).toMatchObject({ status: 'pending' });
    expect(await worker.runOnce()).toBe(false);
    t().clock.advance(RETRY_DELAYS_MS[0]);
    expect(await worker.runOnce()).toBe(true);
    t().clock.advance(RETRY_DELAYS_MS[1]);
    expect(await worker.runOnce()).toBe(true);
    const d = await detail(callId);
    expect(d.analysis).toEqual({
      status: 'failed',
      summary: null,
      sentiment: null,
      successful: null,
      custom: {},
      error: 'department must be one of sales, support, billing',
    });
    expect(d).toMatchObject({ status: 'ended', disconnection_reason: 'user_hangup', call_successful: false });
    t().clock.advance(3600_000);
    expect(await worker.runOnce()).toBe(false);
    expect(openai.chatRequests).toHaveLength(3);
  });

  it('a malformed answer then a good one: done on the retry', async () => {
    const callId = await endedCall(t(), user);
    await queueAnalysis(t().deps, { companyId: user.companyId, callId });
    openai.scriptChat([{ text: '{"summary": "cut off' }, { text: JSON.stringify({ ...GOOD, goal_achieved: false }) }]);
    const worker = createAnalysisWorker(t().deps);
    await worker.runOnce();
    t().clock.advance(RETRY_DELAYS_MS[0]);
    await worker.runOnce();
    const d = await detail(callId);
    expect(d.analysis).toMatchObject({ status: 'done', successful: false });
    expect(d.call_successful).toBe(false);
  });

  it('a refused key fails the analysis at once with the provider message, not after minutes of retries', async () => {
    const callId = await endedCall(t(), user);
    await queueAnalysis(t().deps, { companyId: user.companyId, callId });
    await t().req('DELETE', '/api/v1/provider/disconnect', { token: user.token, body: { name: 'openai' } });
    // a key OpenAI refuses, saved while OpenAI could not be reached to try it (Connect refuses one it can try)
    const urls = t().deps.config.providerUrls;
    t().deps.config.providerUrls = { ...urls, openai: 'http://127.0.0.1:9' };
    const saved = await t().req('POST', '/api/v1/provider/values', {
      token: user.token,
      body: { name: 'openai', keys: [{ name: 'API Key', value: 'sk-wrong-key-000000000000' }] },
    });
    expect(saved.status).toBe(201);
    t().deps.config.providerUrls = urls;
    const worker = createAnalysisWorker(t().deps);
    await worker.runOnce();
    const row = await t().deps.db.db.selectFrom('call_analyses').selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'failed', attempts: 1 });
    expect(row.error).toContain('OpenAI refused the API key (401');
    expect(row.error).not.toContain('sk-wrong-key');
    expect((await detail(callId)).analysis).toMatchObject({ status: 'failed', error: row.error });
    t().clock.advance(3600_000);
    expect(await worker.runOnce()).toBe(false);
    expect(openai.chatRequests).toHaveLength(1);
  });

  it('a request the provider refuses (400) fails at once with its reason; a 429 is retried', async () => {
    const refused = await endedCall(t(), user);
    await queueAnalysis(t().deps, { companyId: user.companyId, callId: refused });
    openai.scriptChat([
      { error: { status: 400, message: "Invalid schema for response_format 'call_analysis': too deep." } },
      { error: { status: 429, message: 'Rate limit reached for gpt-4o.', type: 'requests', code: 'rate_limit_exceeded' } },
    ]);
    const worker = createAnalysisWorker(t().deps);
    await worker.runOnce();
    expect((await detail(refused)).analysis).toMatchObject({
      status: 'failed',
      error:
        "OpenAI refused the request (400 invalid_request_error): Invalid schema for response_format 'call_analysis': too deep.",
    });
    const limited = await endedCall(t(), user);
    await queueAnalysis(t().deps, { companyId: user.companyId, callId: limited });
    await worker.runOnce();
    expect((await detail(limited)).analysis).toMatchObject({ status: 'pending' });
    const row = await t()
      .deps.db.db.selectFrom('call_analyses')
      .selectAll()
      .where('call_id', '=', limited)
      .executeTakeFirstOrThrow();
    expect(row.error).toContain('OpenAI is rate limiting this key (429');
  });

  it("the model's refusal (Structured Outputs) fails the analysis at once with the model's words", async () => {
    const callId = await endedCall(t(), user);
    await queueAnalysis(t().deps, { companyId: user.companyId, callId });
    openai.scriptChat([{ refusal: "I'm sorry, I can't help with that request." }]);
    const worker = createAnalysisWorker(t().deps);
    await worker.runOnce();
    expect((await detail(callId)).analysis).toMatchObject({
      status: 'failed',
      error: "OpenAI's model refused to answer: I'm sorry, I can't help with that request.",
    });
    t().clock.advance(3600_000);
    expect(await worker.runOnce()).toBe(false);
    expect(openai.chatRequests).toHaveLength(1);
  });
});

describeEachDb('post-call analysis against the fake Anthropic: a forced tool whose input is the analysis', (kind) => {
  const t = useTestApp(kind);
  let anthropic: FakeAnthropic;
  let user: SignedUp;
  const claudeAgent = {
    ...agentDoc,
    settings: { ...agentDoc.settings, llm: { service: 'anthropic', options: { model: 'claude-3.5-haiku' } } },
  } as unknown as AgentDoc;
  beforeEach(async () => {
    anthropic = await startFakeAnthropic();
    t().deps.config.providerUrls = { ...t().deps.config.providerUrls, anthropic: anthropic.url };
    user = await signUp(t());
    const res = await t().req('POST', '/api/v1/provider/values', {
      token: user.token,
      body: { name: 'anthropic', keys: [{ name: 'API Key', value: anthropic.apiKey }] },
    });
    expect(res.status).toBe(201);
  });
  afterEach(async () => {
    await anthropic.close();
  });
  const detail = async (id: string) => {
    const res = await t().req('GET', `/api/v1/call/${id}`, { token: user.token });
    // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary shapes
    return ((await res.json()) as any).data;
  };

  it('asks for the tool call_analysis with the schema, forced, and stores its input as the analysis', async () => {
    const callId = await endedCall(t(), user, claudeAgent);
    await queueAnalysis(t().deps, { companyId: user.companyId, callId });
    anthropic.script([{ toolUses: [{ name: ANALYSIS_SHAPE_NAME, input: GOOD }] }]);
    expect(await createAnalysisWorker(t().deps).runOnce()).toBe(true);
    expect((await detail(callId)).analysis).toEqual({
      status: 'done',
      summary: GOOD.summary,
      sentiment: 'positive',
      successful: true,
      custom: GOOD.custom,
      error: null,
    });
    const sent = anthropic.requests.at(-1)?.body as Record<string, unknown>;
    expect(sent.model).toBe('claude-haiku-4-5');
    expect(sent.tools).toEqual([
      { name: ANALYSIS_SHAPE_NAME, description: 'The analysis of the finished call.', input_schema: analysisSchema(FIELDS) },
    ]);
    expect(sent.tool_choice).toEqual({ type: 'tool', name: ANALYSIS_SHAPE_NAME });
  });

  it('the input is still checked against the field types; a refused request fails at once', async () => {
    const wrong = await endedCall(t(), user, claudeAgent);
    await queueAnalysis(t().deps, { companyId: user.companyId, callId: wrong });
    anthropic.script([
      { toolUses: [{ name: ANALYSIS_SHAPE_NAME, input: { ...GOOD, custom: { ...GOOD.custom, party_size: 'four' } } }] },
      { error: { status: 400, type: 'invalid_request_error', message: 'tools.0.custom.input_schema: JSON schema is invalid' } },
    ]);
    const worker = createAnalysisWorker(t().deps);
    await worker.runOnce();
    expect((await detail(wrong)).analysis).toMatchObject({ status: 'pending' });
    const row = await t()
      .deps.db.db.selectFrom('call_analyses')
      .selectAll()
      .where('call_id', '=', wrong)
      .executeTakeFirstOrThrow();
    expect(row.error).toBe('party_size must be a number');
    t().clock.advance(RETRY_DELAYS_MS[0]);
    await worker.runOnce();
    expect((await detail(wrong)).analysis).toMatchObject({
      status: 'failed',
      error: 'Anthropic refused the request (400 invalid_request_error): tools.0.custom.input_schema: JSON schema is invalid',
    });
  });
});

// ---------------------------------------------------------------------------------------------
// One company's slow LLM must not hold up another company's analyses

const SLOW = 'Slow tenant: book tables.';
/** an answer that drips 4 characters every 50 ms: about 50 s for the whole of it */
const DRIP = { text: `${' '.repeat(4000)}${JSON.stringify(GOOD)}`, paceMs: 50 };

describeEachDb('post-call analysis: fairness across companies and the deadline of an attempt', (kind) => {
  const t = useTestApp(kind);
  let openai: FakeOpenAi;
  let worker: AnalysisWorker | undefined;
  beforeEach(async () => {
    openai = await startFakeOpenAi();
    // company A's LLM drips (the fake tells the companies apart by the agent's prompt)
    openai.scriptChat((body) => (String(body.messages[0]?.content).includes(SLOW) ? DRIP : { text: JSON.stringify(GOOD) }));
  });
  afterEach(async () => {
    // the drips end with the fake, so the worker's runs end too
    await openai.close();
    await worker?.stop();
    worker = undefined;
  });

  const statuses = async (companyId: string) =>
    (await t().deps.db.db.selectFrom('call_analyses').select('status').where('company_id', '=', companyId).execute()).map(
      (r) => r.status,
    );
  const count = (list: string[], status: string) => list.filter((s) => s === status).length;

  it("company B's analysis is done while company A's slow ones still run, A never running more than its share", async () => {
    t().deps.config.jobLimits = { analysisConcurrency: 4, analysisPerCompany: 2, analysisDeadlineMs: 25_000 };
    const a = await userWithOpenAi(t(), openai);
    const b = await userWithOpenAi(t(), openai);
    const slowAgent = { ...agentDoc, prompt: SLOW } as AgentDoc;
    for (let i = 0; i < 6; i++)
      await queueAnalysis(t().deps, { companyId: a.companyId, callId: await endedCall(t(), a, slowAgent) });
    // B's call ended after all of A's
    t().clock.advance(1000);
    const bCall = await endedCall(t(), b);
    await queueAnalysis(t().deps, { companyId: b.companyId, callId: bCall });

    worker = createAnalysisWorker(t().deps, { pollMs: 20 });
    worker.start();
    // a bounded wait for a state (A's answers would take about 50 s each)
    await vi.waitFor(async () => expect(await statuses(b.companyId)).toEqual(['done']), { timeout: 10_000, interval: 50 });
    const left = await statuses(a.companyId);
    expect(count(left, 'done')).toBe(0);
    expect(count(left, 'running')).toBe(2);
    expect(count(left, 'pending')).toBe(4);
    // the LLM was asked for A's two running analyses and B's, nothing more
    expect(openai.chatRequests).toHaveLength(3);
  });

  it('an attempt that outlives its deadline is ended (the dripping stream is closed) and retried later', async () => {
    t().deps.config.jobLimits = { analysisDeadlineMs: 1000 };
    const a = await userWithOpenAi(t(), openai);
    const callId = await endedCall(t(), a, { ...agentDoc, prompt: SLOW } as AgentDoc);
    await queueAnalysis(t().deps, { companyId: a.companyId, callId });
    worker = createAnalysisWorker(t().deps);
    // a bounded wait: without a deadline the attempt would go on for the whole 50 s drip
    await Promise.race([worker.runOnce(), new Promise((r) => setTimeout(r, 10_000))]);
    const row = await t().deps.db.db.selectFrom('call_analyses').selectAll().executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      status: 'pending',
      attempts: 1,
      error: 'The LLM did not finish the analysis within 1 second.',
      lease_until: null,
    });
    expect(row.next_attempt_at).toBe(new Date(t().clock.now().getTime() + RETRY_DELAYS_MS[0]).toISOString());
    await vi.waitFor(() => expect(openai.chatRequests[0]?.closedEarly).toBe(true), { timeout: 5000, interval: 20 });
    expect(openai.chatRequests[0]?.completed).toBe(false);
  });
});
