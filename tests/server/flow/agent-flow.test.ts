import type * as v from 'valibot';
import { expect, it } from 'vitest';
import { AGENT_EDITOR_FORM_DEFAULTS, editorFormToSavePayload } from '../../../src/api/contract/agent/editor-form.js';
import { FLOW_MESSAGES, type FlowInput } from '../../../src/api/contract/agent/flow.js';
import type { AgentFunctionSchema } from '../../../src/api/contract/agent/functions.js';
import { sampleFlow } from '../../unit/flow/sample.js';
import { signUp } from '../auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from '../helpers.js';

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary shapes
type Body = any;
type AgentFunction = v.InferInput<typeof AgentFunctionSchema>;

async function call(t: TestApp, method: string, url: string, init: { body?: unknown; token?: string } = {}) {
  const res = await t.req(method, `/api/v1${url}`, init);
  return { status: res.status, body: (await res.json()) as Body };
}

const BOOK: AgentFunction = {
  id: 1,
  type: 'book_appointment_cal',
  name: 'book_appointment_cal',
  event_type_id: 42,
  timezone: 'UTC',
};

/** A save payload the way the editor builds it, made a flow agent when `flow` is given. */
function payload(name: string, flow?: FlowInput, functions: AgentFunction[] = [BOOK]) {
  const base = editorFormToSavePayload({ ...AGENT_EDITOR_FORM_DEFAULTS, voice: 'Rachel', voiceId: 'voice-a', agentName: name });
  const editor = { ...base.editor, functions };
  return flow ? { ...base, editor, kind: 'conversation_flow', flow } : { ...base, editor };
}

describeEachDb('conversation flow agents', (db) => {
  const t = useTestApp(db);

  it('creates a flow agent and answers its kind and flow on GET /agent/{id}, its kind on GET /agent', async () => {
    const { token } = await signUp(t());
    const created = await call(t(), 'POST', '/agent', { token, body: payload('Harbor Clinic', sampleFlow()) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.data.agent._id;
    expect(created.body.data.agent.kind).toBe('conversation_flow');

    const got = await call(t(), 'GET', `/agent/${id}`, { token });
    expect(got.body.data.agent.kind).toBe('conversation_flow');
    expect(got.body.data.agent.flow.start_node_id).toBe('greet');
    expect(got.body.data.agent.flow.nodes.map((n: Body) => n.id)).toEqual(['greet', 'age', 'split', 'book', 'human', 'bye']);
    expect(got.body.data.agent.flow.nodes[4].global.condition.prompt).toBe('The caller asks for a person');

    const list = await call(t(), 'GET', '/agent?limit=100', { token });
    const kinds = Object.fromEntries(list.body.data.agents.map((a: Body) => [a.agent_name, a.kind]));
    expect(kinds['Harbor Clinic']).toBe('conversation_flow');
    // the sample agent every company starts with is a single-prompt agent
    expect(Object.values(kinds)).toContain('single_prompt');
    // the list leaves the flow out, like the prompt
    for (const a of list.body.data.agents) expect(a).not.toHaveProperty('flow');
  });

  it('answers a missing kind as single_prompt and keeps no flow for it', async () => {
    const { token } = await signUp(t());
    const created = await call(t(), 'POST', '/agent', { token, body: { ...payload('Plain'), flow: sampleFlow() } });
    expect(created.status).toBe(201);
    const got = await call(t(), 'GET', `/agent/${created.body.data.agent._id}`, { token });
    expect(got.body.data.agent.kind).toBe('single_prompt');
    expect(got.body.data.agent).not.toHaveProperty('flow');
  });

  it('answers 400 naming each problem of an invalid flow and its node', async () => {
    const { token } = await signUp(t());
    const flow = sampleFlow();
    flow.nodes = flow.nodes.filter((n) => n.id !== 'age');
    const res = await call(t(), 'POST', '/agent', { token, body: payload('Broken', flow, []) });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
    expect(res.body.problems).toEqual([
      { node_id: 'greet', edge_id: 'e1', message: FLOW_MESSAGES.unknownTarget('age') },
      { node_id: 'split', edge_id: 'e4', message: FLOW_MESSAGES.unknownVariable('age') },
      { node_id: 'book', message: FLOW_MESSAGES.unknownFunction('book_appointment_cal') },
      { node_id: 'split', message: FLOW_MESSAGES.unreachable },
      { node_id: 'book', message: FLOW_MESSAGES.unreachable },
    ]);
    expect(res.body.msg).toContain('node book: The agent has no function named book_appointment_cal');
    expect(res.body.errors.flow).toBe(res.body.msg);

    const noFlow = await call(t(), 'POST', '/agent', { token, body: { ...payload('No flow'), kind: 'conversation_flow' } });
    expect(noFlow.status).toBe(400);
    expect(noFlow.body.problems).toEqual([{ node_id: '', message: FLOW_MESSAGES.flowRequired }]);

    const badShape = await call(t(), 'POST', '/agent', {
      token,
      body: payload('Bad shape', { ...sampleFlow(), nodes: [{ id: 'x', type: 'teleport', name: 'X' }] } as unknown as FlowInput),
    });
    expect(badShape.status).toBe(400);
    const badKind = await call(t(), 'POST', '/agent', { token, body: { ...payload('Bad kind'), kind: 'multi_prompt' } });
    expect(badKind.status).toBe(400);
  });

  it('updates the flow with PUT, refuses an invalid one, and keeps kind and flow through a save that does not name them', async () => {
    const { token } = await signUp(t());
    const created = await call(t(), 'POST', '/agent', { token, body: payload('Harbor', sampleFlow()) });
    const id = created.body.data.agent._id;

    const flow = sampleFlow();
    flow.global_prompt = 'You are the receptionist of Bay Clinic.';
    const put = await call(t(), 'PUT', `/agent/${id}`, { token, body: { ...payload('Harbor', flow), version: 1 } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.data.agent.flow.global_prompt).toBe('You are the receptionist of Bay Clinic.');

    const broken = sampleFlow();
    broken.start_node_id = 'nowhere';
    const bad = await call(t(), 'PUT', `/agent/${id}`, { token, body: payload('Harbor', broken) });
    expect(bad.status).toBe(400);
    expect(bad.body.problems).toContainEqual({ node_id: 'nowhere', message: FLOW_MESSAGES.unknownStart('nowhere') });

    // a single-prompt editor's save (no kind, no flow) keeps the flow
    const plain = await call(t(), 'PUT', `/agent/${id}`, { token, body: { ...payload('Harbor renamed'), version: 2 } });
    expect(plain.status, JSON.stringify(plain.body)).toBe(200);
    expect(plain.body.data.agent.kind).toBe('conversation_flow');
    expect(plain.body.data.agent.flow.global_prompt).toBe('You are the receptionist of Bay Clinic.');
    // ... but not when it takes away a function the flow runs
    const gone = await call(t(), 'PUT', `/agent/${id}`, { token, body: payload('Harbor', undefined, []) });
    expect(gone.status).toBe(400);
    expect(gone.body.problems).toEqual([{ node_id: 'book', message: FLOW_MESSAGES.unknownFunction('book_appointment_cal') }]);
    // a dialog patch keeps it too
    const dialog = await call(t(), 'PUT', `/agent/${id}`, { token, body: { agent_name: 'Harbor desk' } });
    expect(dialog.status).toBe(200);
    expect(dialog.body.data.agent.kind).toBe('conversation_flow');
    expect(dialog.body.data.agent.flow.nodes).toHaveLength(6);

    // naming the kind turns it into a single-prompt agent, which keeps no flow
    const single = await call(t(), 'PUT', `/agent/${id}`, { token, body: { ...payload('Harbor'), kind: 'single_prompt' } });
    expect(single.status).toBe(200);
    expect(single.body.data.agent.kind).toBe('single_prompt');
    expect(single.body.data.agent).not.toHaveProperty('flow');
  });

  it("never shows one company's flow agent to another", async () => {
    const a = await signUp(t());
    const b = await signUp(t());
    const created = await call(t(), 'POST', '/agent', { token: a.token, body: payload('Secret flow', sampleFlow()) });
    const id = created.body.data.agent._id;
    expect((await call(t(), 'GET', `/agent/${id}`, { token: b.token })).status).toBe(404);
    expect((await call(t(), 'PUT', `/agent/${id}`, { token: b.token, body: payload('Taken', sampleFlow()) })).status).toBe(404);
  });

  it("keeps a conversation node's knowledge bases to the company's own", async () => {
    const a = await signUp(t());
    const b = await signUp(t());
    const kbOf = async (token: string, name: string) => {
      const upload = new FormData();
      upload.set('knowledge_base_name', name);
      upload.append('knowledge_base_texts', JSON.stringify({ title: 'Hours', text: 'Open all night.' }));
      const res = await call(t(), 'POST', '/knowledge-base', { token, body: upload });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.data.knowledge_base.knowledge_base_id as string;
    };
    const mine = await kbOf(a.token, 'Mine');
    const theirs = await kbOf(b.token, 'Theirs');
    const flow = sampleFlow();
    const greet = flow.nodes[0] as { knowledge_base_ids?: string[] };
    greet.knowledge_base_ids = [mine, theirs, 'faq-draft'];
    const created = await call(t(), 'POST', '/agent', { token: a.token, body: payload('Scoped', flow) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.agent.flow.nodes[0].knowledge_base_ids).toEqual([mine, 'faq-draft']);

    // a save that sends a flow without a kind is scoped the same way
    const id = created.body.data.agent._id;
    const put = await call(t(), 'PUT', `/agent/${id}`, { token: a.token, body: { ...payload('Scoped'), flow } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.data.agent.kind).toBe('conversation_flow');
    expect(put.body.data.agent.flow.nodes[0].knowledge_base_ids).toEqual([mine, 'faq-draft']);
  });
});
