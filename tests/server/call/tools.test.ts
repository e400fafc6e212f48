import { expect, it } from 'vitest';
import { CANCELLED_RESULT } from '../../../server/voice/engine/prompt.js';
import type { LlmMessage } from '../../../server/voice/providers/types.js';
import type { ToolKinds } from '../../../server/voice/tools/runner.js';
import type { PreparedTool, ToolEnv, ToolKind, ToolOutcome } from '../../../server/voice/tools/types.js';
import { describeEachDb } from '../helpers.js';
import {
  type CallServer,
  connectProvider,
  openBrowser,
  readEvents,
  sampleAgent,
  savePayload,
  useCallServer,
  waitFor,
} from './harness.js';
import { InProcessProviders } from './in-process-providers.js';

/**
 * The agent's functions inside a call, with a ToolKind injected into the call runtime (the real kinds are
 * tested against their providers' fakes elsewhere): the tool loop of a chat and of a web call, results back
 * to the model, parallel calls, timeouts, invalid arguments, speak_during, barge-in and the 16 KB cut.
 */
describeEachDb('agent functions in a call', (kind) => {
  let p: InProcessProviders;
  const server = useCallServer(kind, () => {
    p = new InProcessProviders();
    return p.set();
  });

  /** The injected custom ToolKind: each function runs `behave` and every run is recorded. */
  interface Run {
    name: string;
    args: Record<string, unknown>;
    env: ToolEnv;
  }
  function inject(s: CallServer, behave: (run: Run) => Promise<ToolOutcome>) {
    const runs: Run[] = [];
    const state = { prepared: 0, closed: 0, runs };
    const custom: ToolKind<'custom'> = {
      type: 'custom',
      async prepare(fn) {
        state.prepared++;
        const tool: PreparedTool = {
          fn,
          spec: { name: fn.name, description: fn.description || fn.name, parameters: fn.parameters },
          run: (args, env) => {
            const run = { name: fn.name, args, env };
            runs.push(run);
            return behave(run);
          },
          close: async () => {
            state.closed++;
          },
        };
        return [tool];
      },
    };
    s.rt.toolKinds = { custom } as ToolKinds;
    return state;
  }

  const fn = (name: string, patch: Record<string, unknown> = {}) => ({
    id: name.length,
    type: 'custom',
    name,
    description: `The ${name} function`,
    url: 'https://api.example.com/hours',
    parameters: { type: 'object', properties: { day: { type: 'string' } }, required: ['day'] },
    timeout_ms: 8000,
    speak_during: 'One moment while I check that.',
    ...patch,
  });

  async function startChat(s: CallServer, functions: unknown[]) {
    await connectProvider(s, 'openai');
    const agent = await sampleAgent(s);
    const res = await s.t.req('POST', '/api/v1/chat', {
      token: s.user.token,
      body: {
        agent_id: agent._id,
        agent: savePayload(agent, { message: '', editor: { ...(agent.editor as object), functions } }),
      },
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { data: { chat_id: string } }).data.chat_id;
  }
  const send = async (s: CallServer, chatId: string, content: string) =>
    readEvents(await s.t.req('POST', `/api/v1/chat/${chatId}/message`, { token: s.user.token, body: { content } }));
  const toolMessages = (messages: LlmMessage[]) =>
    messages.filter((m): m is Extract<LlmMessage, { role: 'tool' }> => m.role === 'tool').map((m) => [m.name, m.content]);

  it('Test LLM: the model calls a function, the stream shows tool_call then tool_result, and the model answers with its result', async () => {
    const s = server();
    const tools = inject(s, async ({ args }) => ({ ok: true, result: JSON.stringify({ day: args.day, open: '9:00' }) }));
    const chatId = await startChat(s, [fn('lookup_hours')]);
    p.replies = [
      { text: 'Let me look. ', toolCalls: [{ name: 'lookup_hours', arguments: { day: 'monday' } }] },
      { text: 'We open at nine on Monday.' },
    ];
    const events = await send(s, chatId, 'When do you open on Monday?');
    const kinds = events.map((e) => e.type);
    const call = kinds.indexOf('tool_call');
    expect(kinds[call + 1]).toBe('tool_result');
    expect(events[call]).toEqual({ type: 'tool_call', name: 'lookup_hours', arguments: { day: 'monday' } });
    expect(events[call + 1]).toMatchObject({
      type: 'tool_result',
      name: 'lookup_hours',
      ok: true,
      result: '{"day":"monday","open":"9:00"}',
    });
    expect(typeof events[call + 1]?.ms).toBe('number');
    // the words before and after, in order
    const text = (from: number, to: number) =>
      events
        .slice(from, to)
        .filter((e) => e.type === 'delta')
        .map((e) => e.text)
        .join('');
    expect(text(0, call)).toBe('Let me look. ');
    expect(text(call, events.length)).toBe('We open at nine on Monday.');
    expect(events.at(-1)).toEqual({ type: 'done', ended: false });
    // the tool ran with the call's facts; the second request carried the call and its result
    expect(tools.runs).toHaveLength(1);
    expect(tools.runs[0]?.env.call).toMatchObject({ call_id: chatId, type: 'chat' });
    expect(p.llmRequests[0]?.tools.map((t) => t.name)).toEqual(['lookup_hours']);
    const second = p.llmRequests[1]?.messages ?? [];
    expect(second.slice(-2)).toEqual([
      {
        role: 'assistant',
        content: 'Let me look. ',
        toolCalls: [{ id: 'call_0', name: 'lookup_hours', arguments: { day: 'monday' } }],
      },
      { role: 'tool', toolCallId: 'call_0', name: 'lookup_hours', content: '{"day":"monday","open":"9:00"}' },
    ]);
    expect(tools.closed).toBe(tools.prepared);

    // the transcript records the call; the next turn gives the model its real result
    const tx = await s.t.req('GET', `/api/v1/chat/${chatId}`, { token: s.user.token });
    const turns = ((await tx.json()) as { data: { transcript: { role: string; text: string; tool_calls?: unknown[] }[] } }).data
      .transcript;
    expect(turns.at(-1)?.text).toBe('Let me look. We open at nine on Monday.');
    expect(turns.at(-1)?.tool_calls).toEqual([
      {
        name: 'lookup_hours',
        arguments: { day: 'monday' },
        type: 'custom',
        status: 'ok',
        result: '{"day":"monday","open":"9:00"}',
        ms: expect.any(Number),
      },
    ]);
    p.replies = [{ text: 'You are welcome.' }];
    await send(s, chatId, 'Thanks');
    expect(toolMessages(p.llmRequests[2]?.messages ?? [])).toEqual([['lookup_hours', '{"day":"monday","open":"9:00"}']]);
  });

  it('several calls in one turn run at once; invalid arguments never reach the tool; a result over 16 KB is cut', async () => {
    const s = server();
    let release: () => void = () => {};
    const both = new Promise<void>((r) => (release = r));
    const tools = inject(s, async ({ name }) => {
      if (name === 'big') return { ok: true, result: 'y'.repeat(20_000) };
      // each waits for the other: they only answer when both run at the same time
      if (tools.runs.filter((r) => r.name !== 'big').length === 2) release();
      await both;
      return { ok: true, result: `${name} done` };
    });
    const chatId = await startChat(s, [fn('first'), fn('second'), fn('big')]);
    p.replies = [
      {
        toolCalls: [
          { name: 'first', arguments: { day: 'monday' } },
          { name: 'second', arguments: { day: 'tuesday' } },
          { name: 'first', arguments: { day: 7 } },
          { name: 'big', arguments: { day: 'friday' } },
        ],
      },
      { text: 'All done.' },
    ];
    const events = await send(s, chatId, 'Do it all');
    const results = events.filter((e) => e.type === 'tool_result');
    expect(results.map((e) => [e.name, e.ok])).toEqual([
      ['first', true],
      ['second', true],
      ['first', false],
      ['big', true],
    ]);
    expect(tools.runs.map((r) => r.args.day)).toEqual(['monday', 'tuesday', 'friday']);
    expect(results[2]?.result).toContain('/day must be string');
    expect(results[3]?.result).toBe(`${'y'.repeat(16_384)}\n[cut: the answer was 20000 bytes; only the first 16384 are shown]`);
    expect(toolMessages(p.llmRequests[1]?.messages ?? []).map(([n, c]) => [n, (c as string).slice(0, 30)])).toEqual([
      ['first', 'first done'],
      ['second', 'second done'],
      ['first', expect.stringContaining('Invalid arguments for first')],
      ['big', 'y'.repeat(30)],
    ]);
    const tx = await s.t.req('GET', `/api/v1/chat/${chatId}`, { token: s.user.token });
    const calls = ((await tx.json()) as { data: { transcript: { tool_calls?: { status: string }[] }[] } }).data.transcript.at(
      -1,
    )?.tool_calls;
    expect(calls?.map((c) => c.status)).toEqual(['ok', 'ok', 'invalid_arguments', 'ok']);
  });

  it('a function starts as soon as the model has called it, before the rest of its answer has arrived', async () => {
    const s = server();
    const tools = inject(s, async ({ args }) => ({ ok: true, result: JSON.stringify({ day: args.day, open: '9:00' }) }));
    const chatId = await startChat(s, [fn('lookup_hours')]);
    /** whether the function had run while the model's answer was still open */
    let ranBeforeEnd: boolean | undefined;
    p.replies = [
      {
        toolCalls: [{ name: 'lookup_hours', arguments: { day: 'monday' } }],
        // the model's usage and the stream's end wait here until the function has run (or 5 s went by)
        beforeEnd: async () => {
          ranBeforeEnd = await waitFor(() => tools.runs.length === 1, 'the function to run', 5_000).then(
            () => true,
            () => false,
          );
        },
      },
      { text: 'We open at nine on Monday.' },
    ];
    const events = await send(s, chatId, 'When do you open on Monday?');
    expect(ranBeforeEnd).toBe(true);
    // and it ran once, its result given to the model as before
    expect(tools.runs).toHaveLength(1);
    expect(events.filter((e) => e.type === 'tool_result').map((e) => e.ok)).toEqual([true]);
    expect(toolMessages(p.llmRequests[1]?.messages ?? [])).toEqual([['lookup_hours', '{"day":"monday","open":"9:00"}']]);
  });

  it('a function past its timeout: the model is told it timed out and goes on', async () => {
    const s = server();
    let aborted = false;
    inject(
      s,
      ({ env }) =>
        new Promise((_, reject) =>
          env.signal.addEventListener('abort', () => {
            aborted = true;
            reject(new Error('aborted'));
          }),
        ),
    );
    const chatId = await startChat(s, [fn('slow_api', { timeout_ms: 1000 })]);
    p.replies = [{ toolCalls: [{ name: 'slow_api', arguments: { day: 'monday' } }] }, { text: 'Sorry, the system is slow.' }];
    const events = await send(s, chatId, 'Check it');
    expect(events.find((e) => e.type === 'tool_result')).toMatchObject({
      ok: false,
      result: 'The function slow_api timed out after 1000 ms',
    });
    expect(aborted).toBe(true);
    expect(toolMessages(p.llmRequests[1]?.messages ?? [])).toEqual([
      ['slow_api', 'The function slow_api timed out after 1000 ms'],
    ]);
    expect(
      events
        .filter((e) => e.type === 'delta')
        .map((e) => e.text)
        .join(''),
    ).toBe('Sorry, the system is slow.');
  });

  it('at most 5 rounds of functions a turn: a model that keeps calling is stopped there', async () => {
    const s = server();
    const tools = inject(s, async () => ({ ok: true, result: 'again' }));
    const chatId = await startChat(s, [fn('loop')]);
    p.replies = [{ text: 'Once more. ', toolCalls: [{ name: 'loop', arguments: { day: 'monday' } }] }];
    const events = await send(s, chatId, 'Go');
    expect(tools.runs).toHaveLength(5);
    expect(p.llmRequests).toHaveLength(6);
    expect(events.filter((e) => e.type === 'tool_call')).toHaveLength(6);
    expect(events.filter((e) => e.type === 'tool_result')).toHaveLength(5);
    expect(events.at(-1)).toEqual({ type: 'done', ended: false });
  });

  // ---------------------------------------------------------------------------------------------
  // Web calls

  async function startWebCall(functions: unknown[]) {
    const s = server();
    for (const name of ['deepgram', 'openai', 'elevenlabs']) await connectProvider(s, name);
    const agent = await sampleAgent(s);
    const res = await s.t.req('POST', '/api/v1/call/web', {
      token: s.user.token,
      body: {
        agent_id: agent._id,
        agent: savePayload(agent, { message: '', editor: { ...(agent.editor as object), interruption: 1, functions } }),
      },
    });
    expect(res.status).toBe(201);
    const { data } = (await res.json()) as { data: { call_id: string; access_token: string } };
    return { s, data };
  }
  async function callerSays(text: string) {
    const stt = await waitFor(() => p.stt[0], 'the speech stream');
    stt.emit({ type: 'speech_started', at: performance.now() });
    stt.emit({ type: 'transcript', text, isFinal: true, speechFinal: true, at: performance.now() });
  }
  async function storedCall(s: CallServer, callId: string) {
    return waitFor(async () => {
      const res = await s.t.req('GET', `/api/v1/call/${callId}`, { token: s.user.token });
      const d = (
        (await res.json()) as {
          data: { status: string; transcript: { role: string; text: string; interrupted?: boolean; tool_calls?: unknown[] }[] };
        }
      ).data;
      return d.status === 'ended' ? d : undefined;
    }, 'call stored');
  }

  it('a web call with a slow function says its speak_during, then the answer; a fast one says nothing while it runs', async () => {
    let answer: (o: ToolOutcome) => void = () => {};
    const { s, data } = await startWebCall([fn('slow_lookup'), fn('fast_lookup', { speak_during: 'Hold on please.' })]);
    inject(s, ({ name }) =>
      name === 'fast_lookup' ? Promise.resolve({ ok: true, result: 'fast' }) : new Promise((r) => (answer = r)),
    );
    const browser = openBrowser(s, data.call_id, data.access_token);
    await browser.opened;
    p.replies = [
      { toolCalls: [{ name: 'fast_lookup', arguments: { day: 'monday' } }] },
      { toolCalls: [{ name: 'slow_lookup', arguments: { day: 'monday' } }] },
      { text: 'We open at nine.' },
    ];
    await callerSays('When do you open?');
    await waitFor(() => p.ttsTexts.some((t) => t.text === 'One moment while I check that.'), 'speak_during spoken');
    answer({ ok: true, result: 'nine' });
    await waitFor(() => p.ttsTexts.some((t) => t.text === 'We open at nine.'), 'the answer spoken');
    await waitFor(() => browser.of('state').at(-1)?.value === 'listening', 'the turn heard');
    browser.ws.send(JSON.stringify({ type: 'hangup' }));
    await browser.closed;
    // the fast function said nothing; the slow one's sentence once, before the answer
    expect(p.ttsTexts.map((t) => t.text)).toEqual(['One moment while I check that.', 'We open at nine.']);
    const d = await storedCall(s, data.call_id);
    const turn = d.transcript.find((t) => t.role === 'agent');
    expect(turn?.text).toBe('One moment while I check that. We open at nine.');
    expect(turn?.tool_calls).toEqual([
      expect.objectContaining({ name: 'fast_lookup', status: 'ok', result: 'fast' }),
      expect.objectContaining({ name: 'slow_lookup', status: 'ok', result: 'nine' }),
    ]);
  });

  it('a barge-in during a function cancels it: its result is dropped and never given to the model', async () => {
    let toolSignal: AbortSignal | undefined;
    let answer: (o: ToolOutcome) => void = () => {};
    const { s, data } = await startWebCall([fn('lookup', { speak_during: '' })]);
    const tools = inject(s, ({ env }) => {
      toolSignal = env.signal;
      return new Promise((r) => (answer = r));
    });
    const browser = openBrowser(s, data.call_id, data.access_token);
    await browser.opened;
    p.msPerChar = 40;
    p.replies = [
      { text: 'Let me check that for you right now.', toolCalls: [{ name: 'lookup', arguments: { day: 'monday' } }] },
      { text: 'Sure, what else?' },
    ];
    await callerSays('When do you open?');
    await waitFor(() => tools.runs.length === 1, 'the function running');
    await waitFor(() => browser.audioBytes > 3200, 'the agent heard');
    p.stt[0]?.emit({ type: 'speech_started', at: performance.now() });
    await waitFor(() => browser.of('clear').length > 0, 'clear');
    await waitFor(() => toolSignal?.aborted, 'the function cancelled');
    answer({ ok: true, result: 'SECRET-RESULT-9AM' });
    p.stt[0]?.emit({
      type: 'transcript',
      text: 'Actually, never mind.',
      isFinal: true,
      speechFinal: true,
      at: performance.now(),
    });
    await waitFor(() => p.llmRequests.length === 2, 'the next answer asked');
    const next = p.llmRequests[1]?.messages ?? [];
    expect(JSON.stringify(next)).not.toContain('SECRET-RESULT-9AM');
    expect(toolMessages(next)).toEqual([['lookup', CANCELLED_RESULT]]);
    browser.ws.send(JSON.stringify({ type: 'hangup' }));
    await browser.closed;
    const d = await storedCall(s, data.call_id);
    const cut = d.transcript.find((t) => t.role === 'agent');
    expect(cut?.interrupted).toBe(true);
    expect(cut?.tool_calls).toEqual([
      { name: 'lookup', arguments: { day: 'monday' }, type: 'custom', status: 'cancelled', result: '', ms: 0 },
    ]);
  });

  it('a Realtime agent runs the function and answers the session with its result, which it speaks in the same turn', async () => {
    const s = server();
    for (const name of ['openai']) await connectProvider(s, name);
    const agent = await sampleAgent(s);
    inject(s, async ({ args }) => ({ ok: true, result: `open at nine on ${args.day}` }));
    const res = await s.t.req('POST', '/api/v1/call/web', {
      token: s.user.token,
      body: {
        agent_id: agent._id,
        agent: savePayload(agent, {
          message: '',
          settings: {
            llm: { options: { model: 'gpt-4o-realtime' } },
            tts: { options: { voice_id: 'EXAVITQu4vr4xnJ9xU1z', model: 'auto' } },
            stt: { options: { language: 'en-US' } },
          },
          editor: { ...(agent.editor as object), functions: [fn('hours')] },
        }),
      },
    });
    expect(res.status).toBe(201);
    const { data } = (await res.json()) as { data: { call_id: string; access_token: string } };
    const browser = openBrowser(s, data.call_id, data.access_token);
    await browser.opened;
    const rt = await waitFor(() => p.realtime[0], 'the realtime session');
    expect(rt.options.tools.map((t) => t.name)).toEqual(['hours']);
    const at = () => performance.now();
    rt.emit({ type: 'speech_started', at: at() });
    rt.emit({ type: 'speech_stopped', at: at() });
    rt.emit({ type: 'tool_call', call: { id: 'call_rt', name: 'hours', arguments: { day: 'monday' } }, at: at() });
    rt.emit({ type: 'response_done', inputTokens: 10, outputTokens: 5, at: at() });
    await waitFor(() => rt.toolResults.length === 1, 'the result sent to the session');
    expect(rt.toolResults).toEqual([{ callId: 'call_rt', output: 'open at nine on monday' }]);
    // the session's answer with the result belongs to the same turn
    rt.emit({ type: 'audio', chunk: new Uint8Array(3200), itemId: 'item_ans', at: at() });
    rt.emit({ type: 'agent_transcript', text: 'We open at nine on Monday.', itemId: 'item_ans', at: at() });
    rt.emit({ type: 'response_done', inputTokens: 10, outputTokens: 5, at: at() });
    await waitFor(() => browser.of('transcript').some((e) => e.role === 'agent' && e.final), 'the answer heard');
    browser.ws.send(JSON.stringify({ type: 'hangup' }));
    await browser.closed;
    const d = await storedCall(s, data.call_id);
    const turn = d.transcript.find((t) => t.role === 'agent');
    expect(turn?.text).toBe('We open at nine on Monday.');
    expect(turn?.tool_calls).toEqual([
      {
        name: 'hours',
        arguments: { day: 'monday' },
        type: 'custom',
        status: 'ok',
        result: 'open at nine on monday',
        ms: expect.any(Number),
      },
    ]);
  });
});
