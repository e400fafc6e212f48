import { expect, it } from 'vitest';
import { queueCallEvent } from '../../../server/modules/webhooks/outbox.js';
import type { ToolKinds } from '../../../server/voice/tools/runner.js';
import type { PreparedTool, ToolKind, ToolOutcome } from '../../../server/voice/tools/types.js';
import {
  type CallServer,
  connectProvider,
  openBrowser,
  readEvents,
  sampleAgent,
  savePayload,
  useCallServer,
  waitFor,
} from '../call/harness.js';
import { InProcessProviders } from '../call/in-process-providers.js';
import { describeEachDb } from '../helpers.js';

/**
 * A conversation-flow agent in Test LLM, with the in-process LLM answering scripted replies (transition
 * tools, set_variables) and the agent's function injected: the path each chat takes through a small
 * receptionist flow is stored with the call, answered by GET /call/{id} and filtered by GET /call/?node=.
 */
const FLOW = {
  start_node_id: 'greet',
  global_prompt: 'You are the receptionist of Harbor Clinic.',
  nodes: [
    {
      id: 'greet',
      type: 'conversation',
      name: 'Greeting',
      instruction: { type: 'prompt', text: 'Ask how you can help.' },
      edges: [
        { id: 'e-visit', to: 'identify', condition: { type: 'prompt', prompt: 'The caller wants a visit' } },
        { id: 'e-bye', to: 'goodbye', condition: { type: 'prompt', prompt: 'The caller needs nothing' } },
      ],
    },
    {
      id: 'identify',
      type: 'extract',
      name: 'Identify',
      instruction: { type: 'prompt', text: 'Ask for the name and age of {{caller}}.' },
      variables: [
        { name: 'patient', type: 'text', description: 'The full name' },
        { name: 'age', type: 'number', description: 'Age in years' },
      ],
      edges: [{ id: 'e-identified', to: 'age-check', condition: { type: 'always' } }],
    },
    {
      id: 'age-check',
      type: 'logic_split',
      name: 'Senior?',
      edges: [
        { id: 'e-senior', to: 'senior', condition: { type: 'expression', expression: 'age >= 65' } },
        { id: 'e-adult', to: 'triage', condition: { type: 'else' } },
      ],
    },
    {
      id: 'senior',
      type: 'conversation',
      name: 'Senior priority',
      instruction: { type: 'static_text', text: 'As a senior, {{patient}}, you get priority.' },
      edges: [{ id: 'e-senior-said', to: 'triage', condition: { type: 'always' } }],
    },
    {
      id: 'triage',
      type: 'conversation',
      name: 'Triage',
      instruction: { type: 'prompt', text: 'Ask whether to book, or to speak with the desk.' },
      edges: [
        { id: 'e-book', to: 'book', condition: { type: 'prompt', prompt: 'The caller wants an appointment' } },
        { id: 'e-desk', to: 'desk', condition: { type: 'prompt', prompt: 'The caller wants the front desk' } },
        { id: 'e-done', to: 'goodbye', condition: { type: 'prompt', prompt: 'The caller is done' } },
      ],
    },
    {
      id: 'book',
      type: 'function',
      name: 'Book',
      function: 'book_visit',
      edges: [
        { id: 'e-booked', to: 'confirm', condition: { type: 'result', ok: true } },
        { id: 'e-not-booked', to: 'sorry', condition: { type: 'result', ok: false } },
      ],
    },
    {
      id: 'confirm',
      type: 'conversation',
      name: 'Confirm',
      instruction: { type: 'static_text', text: 'Your visit is booked.' },
      edges: [{ id: 'e-confirmed', to: 'goodbye', condition: { type: 'always' } }],
    },
    {
      id: 'desk',
      type: 'transfer',
      name: 'Front desk',
      number: '+15550001111',
      edges: [{ id: 'e-desk-failed', to: 'sorry', condition: { type: 'result', ok: false } }],
    },
    {
      id: 'sorry',
      type: 'conversation',
      name: 'Sorry',
      instruction: { type: 'static_text', text: 'I could not do that now; we will call you back.' },
      edges: [{ id: 'e-sorry-said', to: 'goodbye', condition: { type: 'always' } }],
    },
    {
      id: 'hours',
      type: 'conversation',
      name: 'Opening hours',
      global: { condition: { type: 'prompt', prompt: 'The caller asks when the clinic is open' }, return: 'return' },
      instruction: { type: 'static_text', text: 'We are open nine to five.' },
      edges: [],
    },
    {
      id: 'goodbye',
      type: 'end',
      name: 'Goodbye',
      instruction: { type: 'static_text', text: 'Goodbye from Harbor Clinic!' },
      edges: [],
    },
  ],
};

const BOOK = {
  id: 1,
  type: 'custom',
  name: 'book_visit',
  description: 'Books a visit',
  url: 'https://api.example.com/book',
  parameters: { type: 'object', properties: { patient: { type: 'string' }, age: { type: 'number' } }, required: [] },
  timeout_ms: 8000,
  speak_during: '',
};

interface Step {
  node_id: string;
  name: string;
  entered_at: string;
  left_at: string | null;
  edge_id: string | null;
  reason: string | null;
}

describeEachDb('a conversation-flow agent runs its flow in Test LLM', (kind) => {
  let p: InProcessProviders;
  const server = useCallServer(kind, () => {
    p = new InProcessProviders();
    return p.set();
  });

  /** The injected custom ToolKind: book_visit answers `outcome`; each run's arguments are recorded. */
  function inject(s: CallServer, outcome: ToolOutcome) {
    const runs: Record<string, unknown>[] = [];
    const custom: ToolKind<'custom'> = {
      type: 'custom',
      async prepare(fn) {
        const tool: PreparedTool = {
          fn,
          spec: { name: fn.name, description: fn.description || fn.name, parameters: fn.parameters },
          run: async (args) => {
            runs.push(args);
            return outcome;
          },
          close: async () => {},
        };
        return [tool];
      },
    };
    s.rt.toolKinds = { custom } as ToolKinds;
    return runs;
  }

  async function startChat(s: CallServer, editorPatch: Record<string, unknown> = {}, flow: unknown = FLOW) {
    await connectProvider(s, 'openai');
    const agent = await sampleAgent(s);
    const res = await s.t.req('POST', '/api/v1/chat', {
      token: s.user.token,
      body: {
        agent_id: agent._id,
        agent: savePayload(agent, {
          message: '',
          kind: 'conversation_flow',
          flow,
          editor: { ...(agent.editor as object), functions: [BOOK], ...editorPatch },
        }),
        dynamic_variables: { caller: 'the caller' },
      },
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { data: { chat_id: string } }).data.chat_id;
  }
  const send = async (s: CallServer, chatId: string, content: string) =>
    readEvents(await s.t.req('POST', `/api/v1/chat/${chatId}/message`, { token: s.user.token, body: { content } }));
  const text = (events: Record<string, unknown>[]) =>
    events
      .filter((e) => e.type === 'delta')
      .map((e) => e.text)
      .join('');
  const nodes = (events: Record<string, unknown>[]) => events.filter((e) => e.type === 'node').map((e) => e.node_id);
  async function detail(s: CallServer, id: string) {
    const res = await s.t.req('GET', `/api/v1/call/${id}`, { token: s.user.token });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { flow_path: Step[]; status: string; transcript: { text: string }[] } }).data;
  }
  const walk = (path: Step[]) => path.map((st) => [st.node_id, st.edge_id, st.reason]);
  const systemOf = (i: number) => p.llmRequests[i]?.messages[0]?.content ?? '';
  const toolNames = (i: number) => p.llmRequests[i]?.tools.map((t) => t.name) ?? [];

  it('a four-step receptionist: greeting -> identify (extract) -> senior split -> triage -> book (function ok) -> confirm -> goodbye; the path is stored and answered', async () => {
    const s = server();
    const runs = inject(s, { ok: true, result: 'booked for Monday' });
    const chatId = await startChat(s, { agentLevelWebhook: 'https://hooks.example.com/a' });

    p.replies = [{ toolCalls: [{ name: 'next_e-visit', arguments: {} }] }, { text: 'May I have your name and age?' }];
    const first = await send(s, chatId, 'I would like a visit');
    expect(nodes(first)).toEqual(['greet', 'identify']);
    expect(text(first)).toBe('May I have your name and age?');
    // the greeting's tools: its prompt edges and the global node; its instruction in the system prompt
    expect(toolNames(0)).toEqual(['book_visit', 'next_e-visit', 'next_e-bye', 'goto_hours']);
    expect(p.llmRequests[0]?.tools.find((t) => t.name === 'next_e-visit')?.description).toContain('The caller wants a visit');
    expect(systemOf(0)).toContain('You are the receptionist of Harbor Clinic.');
    expect(systemOf(0)).toContain('Ask how you can help.');
    // after the transition, in the same turn: the extract node's instruction (variables filled) and set_variables
    expect(systemOf(1)).toContain('Ask for the name and age of the caller.');
    expect(toolNames(1)).toContain('set_variables');
    expect(p.llmRequests[1]?.tools.find((t) => t.name === 'set_variables')?.parameters).toMatchObject({
      properties: { patient: { type: 'string' }, age: { type: 'number' } },
    });

    p.replies = [
      { toolCalls: [{ name: 'set_variables', arguments: { patient: 'Ann Lee', age: 70 } }] },
      { text: 'Shall I book?' },
    ];
    const second = await send(s, chatId, 'Ann Lee, seventy');
    expect(nodes(second)).toEqual(['age-check', 'senior', 'triage']);
    expect(text(second)).toBe('As a senior, Ann Lee, you get priority. Shall I book?');

    p.replies = [{ toolCalls: [{ name: 'next_e-book', arguments: {} }] }];
    const third = await send(s, chatId, 'Book me please');
    expect(nodes(third)).toEqual(['book', 'confirm', 'goodbye']);
    expect(runs).toEqual([{ patient: 'Ann Lee', age: 70 }]);
    expect(third.filter((e) => e.type === 'tool_result').map((e) => [e.name, e.ok])).toEqual([
      ['next_e-book', true],
      ['book_visit', true],
    ]);
    expect(text(third)).toBe('Your visit is booked. Goodbye from Harbor Clinic!');
    expect(third.at(-1)).toEqual({ type: 'done', ended: true });

    const call = await detail(s, chatId);
    expect(call.status).toBe('ended');
    expect(walk(call.flow_path)).toEqual([
      ['greet', 'e-visit', 'The caller wants a visit'],
      ['identify', 'e-identified', 'always'],
      ['age-check', 'e-senior', 'expression age >= 65'],
      ['senior', 'e-senior-said', 'always'],
      ['triage', 'e-book', 'The caller wants an appointment'],
      ['book', 'e-booked', 'function ok'],
      ['confirm', 'e-confirmed', 'always'],
      ['goodbye', null, null],
    ]);
    for (const [i, st] of call.flow_path.entries()) {
      expect(Date.parse(st.entered_at)).not.toBeNaN();
      if (i < call.flow_path.length - 1) expect(st.left_at).toBe(call.flow_path[i + 1]?.entered_at);
    }
    expect(call.flow_path.at(-1)?.name).toBe('Goodbye');
    expect(call.transcript.at(-1)?.text).toBe('Your visit is booked. Goodbye from Harbor Clinic!');

    // the call_ended webhook carries the same path
    await queueCallEvent(s.t.deps, 'call_ended', { companyId: s.user.companyId, callId: chatId });
    const queued = await s.t.deps.db.db.selectFrom('webhook_deliveries').select(['event', 'payload']).execute();
    const ended = queued.find((q) => q.event === 'call_ended');
    expect((JSON.parse(ended?.payload ?? '{}') as { call?: { flow_path?: Step[] } }).call?.flow_path).toEqual(call.flow_path);
  });

  it('a global node entered from the middle says its text and returns to where the call was', async () => {
    const s = server();
    inject(s, { ok: true, result: 'ok' });
    const chatId = await startChat(s);
    p.replies = [{ toolCalls: [{ name: 'next_e-visit', arguments: {} }] }, { text: 'Your name and age?' }];
    await send(s, chatId, 'A visit please');
    p.replies = [{ toolCalls: [{ name: 'goto_hours', arguments: {} }] }, { text: 'Now, your name and age?' }];
    const events = await send(s, chatId, 'Wait, when are you open?');
    expect(nodes(events)).toEqual(['hours', 'identify']);
    expect(text(events)).toBe('We are open nine to five. Now, your name and age?');
    await s.t.req('POST', `/api/v1/chat/${chatId}/end`, { token: s.user.token });
    const call = await detail(s, chatId);
    expect(walk(call.flow_path)).toEqual([
      ['greet', 'e-visit', 'The caller wants a visit'],
      ['identify', null, 'global: The caller asks when the clinic is open'],
      ['hours', null, 'back to where the call was'],
      ['identify', null, null],
    ]);
  });

  it('an expression split: under 65 goes straight to triage', async () => {
    const s = server();
    inject(s, { ok: true, result: 'ok' });
    const chatId = await startChat(s);
    p.replies = [{ toolCalls: [{ name: 'next_e-visit', arguments: {} }] }, { text: 'Name and age?' }];
    await send(s, chatId, 'A visit');
    p.replies = [{ toolCalls: [{ name: 'set_variables', arguments: { patient: 'Bo', age: 30 } }] }, { text: 'Book?' }];
    const events = await send(s, chatId, 'Bo, 30');
    expect(nodes(events)).toEqual(['age-check', 'triage']);
    await s.t.req('POST', `/api/v1/chat/${chatId}/end`, { token: s.user.token });
    expect(walk((await detail(s, chatId)).flow_path).slice(2)).toEqual([
      ['age-check', 'e-adult', 'else'],
      ['triage', null, null],
    ]);
  });

  it('a function node that fails takes its failure edge; a transfer in a chat fails the same way', async () => {
    const s = server();
    inject(s, { ok: false, result: 'The calendar is full.' });
    const chatId = await startChat(s);
    p.replies = [{ toolCalls: [{ name: 'next_e-visit', arguments: {} }] }, { text: 'Name and age?' }];
    await send(s, chatId, 'A visit');
    p.replies = [{ toolCalls: [{ name: 'set_variables', arguments: { patient: 'Cy', age: 40 } }] }, { text: 'Book?' }];
    await send(s, chatId, 'Cy, 40');
    p.replies = [{ toolCalls: [{ name: 'next_e-book', arguments: {} }] }];
    const events = await send(s, chatId, 'Book it');
    expect(nodes(events)).toEqual(['book', 'sorry', 'goodbye']);
    expect(text(events)).toBe('I could not do that now; we will call you back. Goodbye from Harbor Clinic!');
    expect(walk((await detail(s, chatId)).flow_path).slice(4)).toEqual([
      ['book', 'e-not-booked', 'function failed'],
      ['sorry', 'e-sorry-said', 'always'],
      ['goodbye', null, null],
    ]);

    const other = await startChat(s);
    p.replies = [{ toolCalls: [{ name: 'next_e-visit', arguments: {} }] }, { text: 'Name and age?' }];
    await send(s, other, 'A visit');
    p.replies = [{ toolCalls: [{ name: 'set_variables', arguments: { patient: 'Di', age: 20 } }] }, { text: 'Book?' }];
    await send(s, other, 'Di, 20');
    p.replies = [{ toolCalls: [{ name: 'next_e-desk', arguments: {} }] }];
    const desk = await send(s, other, 'A person please');
    expect(nodes(desk)).toEqual(['desk', 'sorry', 'goodbye']);
    expect(walk((await detail(s, other)).flow_path)[4]).toEqual(['desk', 'e-desk-failed', 'function failed']);
  });

  it('a function node with no edge for its outcome stays, and the model answers from the function result', async () => {
    const s = server();
    inject(s, { ok: false, result: 'The calendar is full.' });
    const onlyOk = {
      ...FLOW,
      nodes: FLOW.nodes.map((n) => (n.id === 'book' ? { ...n, edges: n.edges.filter((e) => e.id === 'e-booked') } : n)),
    };
    const chatId = await startChat(s, {}, onlyOk);
    p.replies = [{ toolCalls: [{ name: 'next_e-visit', arguments: {} }] }, { text: 'Name and age?' }];
    await send(s, chatId, 'A visit');
    p.replies = [{ toolCalls: [{ name: 'set_variables', arguments: { patient: 'Ed', age: 50 } }] }, { text: 'Book?' }];
    await send(s, chatId, 'Ed, 50');
    const before = p.llmRequests.length;
    p.replies = [{ toolCalls: [{ name: 'next_e-book', arguments: {} }] }, { text: 'Sorry, the calendar is full.' }];
    const events = await send(s, chatId, 'Book it');
    expect(nodes(events)).toEqual(['book']);
    expect(text(events)).toBe('Sorry, the calendar is full.');
    const last = p.llmRequests[before + 1]?.messages ?? [];
    expect(last.at(-1)).toEqual({ role: 'system', content: 'The function book_visit answered: The calendar is full.' });
    await s.t.req('POST', `/api/v1/chat/${chatId}/end`, { token: s.user.token });
    expect(walk((await detail(s, chatId)).flow_path).at(-1)).toEqual(['book', null, null]);
  });

  it("a conversation node's knowledge bases are searched for the turns in that node", async () => {
    const s = server();
    inject(s, { ok: true, result: 'ok' });
    const form = new FormData();
    form.set('knowledge_base_name', 'Clinic');
    form.append('knowledge_base_texts', JSON.stringify({ title: 'Clinic', text: 'Parking is free in the north lot.' }));
    const kb = await s.t.req('POST', '/api/v1/knowledge-base', { token: s.user.token, body: form });
    expect(kb.status).toBe(201);
    const kbId = ((await kb.json()) as { data: { knowledge_base: { knowledge_base_id: string } } }).data.knowledge_base
      .knowledge_base_id;
    await s.t.deps.db.db
      .insertInto('knowledge_base_chunks')
      .values({
        knowledge_base_id: kbId,
        position: 0,
        company_id: s.user.companyId,
        source_index: 0,
        content: 'Parking is free in the north lot.',
      })
      .execute();
    const withKb = {
      ...FLOW,
      nodes: FLOW.nodes.map((n) => (n.id === 'triage' ? { ...n, knowledge_base_ids: [kbId] } : n)),
    };
    const chatId = await startChat(s, {}, withKb);
    const knowledgeIn = (i: number) =>
      (p.llmRequests[i]?.messages ?? []).some((m) => m.role === 'system' && m.content.includes('north lot'));
    p.replies = [{ text: 'How can I help?' }];
    await send(s, chatId, 'Is parking free?');
    // the greeting has no knowledge base
    expect(knowledgeIn(0)).toBe(false);
    p.replies = [{ toolCalls: [{ name: 'next_e-visit', arguments: {} }] }, { text: 'Name and age?' }];
    await send(s, chatId, 'A visit');
    p.replies = [{ toolCalls: [{ name: 'set_variables', arguments: { patient: 'Fay', age: 30 } }] }, { text: 'Book?' }];
    await send(s, chatId, 'Fay, 30');
    const before = p.llmRequests.length;
    p.replies = [{ text: 'Yes, in the north lot.' }];
    await send(s, chatId, 'Is parking free?');
    expect(knowledgeIn(before)).toBe(true);
  });

  it('GET /call/?node= lists the calls that reached a node; the path is kept at metadata_only, the values are not', async () => {
    const s = server();
    inject(s, { ok: true, result: 'ok' });
    const reached = await startChat(s, { dataStorage: 'metadata_only' });
    p.replies = [{ toolCalls: [{ name: 'next_e-visit', arguments: {} }] }, { text: 'Name and age?' }];
    await send(s, reached, 'A visit');
    p.replies = [{ toolCalls: [{ name: 'set_variables', arguments: { patient: 'Secret Name', age: 80 } }] }, { text: 'Book?' }];
    await send(s, reached, 'Secret Name, 80');
    await s.t.req('POST', `/api/v1/chat/${reached}/end`, { token: s.user.token });
    const notReached = await startChat(s);
    p.replies = [{ toolCalls: [{ name: 'next_e-bye', arguments: {} }] }];
    await send(s, notReached, 'Nothing, bye');

    const list = async (node: string) => {
      const res = await s.t.req('GET', `/api/v1/call/?node=${node}`, { token: s.user.token });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: { calls: { _id: string }[]; pagination: { total: number } } };
      return body.data.calls.map((c) => c._id);
    };
    expect(await list('senior')).toEqual([reached]);
    expect((await list('greet')).sort()).toEqual([reached, notReached].sort());
    expect(await list('goodbye')).toEqual([notReached]);
    expect(await list('nowhere')).toEqual([]);
    expect((await s.t.req('GET', '/api/v1/call/?node=a.b', { token: s.user.token })).status).toBe(400);

    const call = await detail(s, reached);
    expect(walk(call.flow_path).map(([id]) => id)).toEqual(['greet', 'identify', 'age-check', 'senior', 'triage']);
    expect(JSON.stringify(call)).not.toContain('Secret Name');
    const row = await s.t.deps.db.db.selectFrom('call_sessions').selectAll().where('id', '=', reached).executeTakeFirstOrThrow();
    expect(row.flow_state).toBeNull();
    expect(JSON.stringify(row)).not.toContain('Secret Name');
  });

  async function startFlowWebCall(s: CallServer) {
    for (const name of ['deepgram', 'openai', 'elevenlabs']) await connectProvider(s, name);
    const agent = await sampleAgent(s);
    const res = await s.t.req('POST', '/api/v1/call/web', {
      token: s.user.token,
      body: {
        agent_id: agent._id,
        agent: savePayload(agent, {
          message: '',
          kind: 'conversation_flow',
          flow: FLOW,
          editor: { ...(agent.editor as object), functions: [BOOK] },
        }),
      },
    });
    expect(res.status).toBe(201);
    const { data } = (await res.json()) as { data: { call_id: string; access_token: string } };
    const browser = openBrowser(s, data.call_id, data.access_token);
    await browser.opened;
    return { data, browser };
  }

  it('a web call saves its path with its progress, while it goes on', async () => {
    const s = server();
    inject(s, { ok: true, result: 'booked' });
    const { data, browser } = await startFlowWebCall(s);
    p.replies = [{ toolCalls: [{ name: 'next_e-visit', arguments: {} }] }, { text: 'Your name and age?' }];
    const stt = await waitFor(() => p.stt[0], 'the speech stream');
    stt.emit({ type: 'speech_started', at: performance.now() });
    stt.emit({ type: 'transcript', text: 'A visit please.', isFinal: true, speechFinal: true, at: performance.now() });
    await waitFor(() => browser.of('state').at(-1)?.value === 'listening' && p.ttsTexts.length === 1, 'the turn heard');
    const live = await waitFor(async () => {
      const d = await detail(s, data.call_id);
      return d.flow_path.length === 2 ? d : undefined;
    }, 'the path saved during the call');
    expect(live.status).toBe('ongoing');
    expect(walk(live.flow_path)).toEqual([
      ['greet', 'e-visit', 'The caller wants a visit'],
      ['identify', null, null],
    ]);
    browser.ws.send(JSON.stringify({ type: 'hangup' }));
    await browser.closed;
  });

  it('a web call runs the same flow: the voice says the static texts, the goodbye ends the call, the path is stored', async () => {
    const s = server();
    inject(s, { ok: true, result: 'booked' });
    for (const name of ['deepgram', 'openai', 'elevenlabs']) await connectProvider(s, name);
    const agent = await sampleAgent(s);
    const res = await s.t.req('POST', '/api/v1/call/web', {
      token: s.user.token,
      body: {
        agent_id: agent._id,
        agent: savePayload(agent, {
          message: '',
          kind: 'conversation_flow',
          flow: FLOW,
          editor: { ...(agent.editor as object), functions: [BOOK] },
        }),
      },
    });
    expect(res.status).toBe(201);
    const { data } = (await res.json()) as { data: { call_id: string; access_token: string } };
    const browser = openBrowser(s, data.call_id, data.access_token);
    await browser.opened;
    p.replies = [{ toolCalls: [{ name: 'goto_hours', arguments: {} }] }, { toolCalls: [{ name: 'next_e-bye', arguments: {} }] }];
    const stt = await waitFor(() => p.stt[0], 'the speech stream');
    stt.emit({ type: 'speech_started', at: performance.now() });
    stt.emit({
      type: 'transcript',
      text: 'When are you open? That is all.',
      isFinal: true,
      speechFinal: true,
      at: performance.now(),
    });
    await browser.closed;
    expect(p.ttsTexts.map((t) => t.text)).toEqual(['We are open nine to five.', 'Goodbye from Harbor Clinic!']);
    // the call window is told each node entered
    expect(browser.of('node').map((e) => e.node_id)).toEqual(['greet', 'hours', 'greet', 'goodbye']);
    const call = await waitFor(async () => {
      const d = await detail(s, data.call_id);
      return d.status === 'ended' ? d : undefined;
    }, 'the call stored');
    expect(walk(call.flow_path)).toEqual([
      ['greet', null, 'global: The caller asks when the clinic is open'],
      ['hours', null, 'back to where the call was'],
      ['greet', 'e-bye', 'The caller needs nothing'],
      ['goodbye', null, null],
    ]);
  });
});
