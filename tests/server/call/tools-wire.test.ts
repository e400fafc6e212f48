import { afterEach, beforeEach, expect, it } from 'vitest';
import { createProviderRegistry } from '../../../server/voice/providers/registry.js';
import type { ToolKinds } from '../../../server/voice/tools/runner.js';
import type { ToolKind } from '../../../server/voice/tools/types.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/openai.js';
import { describeEachDb } from '../helpers.js';
import { type CallServer, connectProvider, readEvents, sampleAgent, savePayload, startCallServer } from './harness.js';

/**
 * A Test LLM chat whose agent calls a function, through the real OpenAI adapter against the fake Chat
 * Completions (which refuses a tool call left unanswered): the fake asks for the function, then answers
 * with the result it was given; the chat's stream shows tool_call then tool_result.
 */
describeEachDb('a function through the Chat Completions wire', (kind) => {
  let openai: FakeOpenAi;
  let s: CallServer;
  beforeEach(async () => {
    openai = await startFakeOpenAi();
    s = await startCallServer(kind, createProviderRegistry(), { openai: openai.url });
    await connectProvider(s, 'openai', openai.apiKey);
  });
  afterEach(async () => {
    await s.close();
    await openai.close();
  });

  it('the fake LLM asks for the function, gets its result as a tool message, and answers with it', async () => {
    const custom: ToolKind<'custom'> = {
      type: 'custom',
      async prepare(fn) {
        return [
          {
            fn,
            spec: { name: fn.name, description: fn.description, parameters: fn.parameters },
            run: async (args) => ({ ok: true, result: JSON.stringify({ slots: [`${args.date}T09:00`, `${args.date}T11:30`] }) }),
          },
        ];
      },
    };
    s.rt.toolKinds = { custom } as ToolKinds;
    openai.scriptChat((body) => {
      const last = body.messages.at(-1);
      if (last?.role === 'tool') return { text: `I have these: ${String(last.content)}` };
      return { text: 'Checking. ', toolCalls: [{ id: 'call_abc', name: 'find_slots', arguments: { date: '2026-12-08' } }] };
    });
    const agent = await sampleAgent(s);
    const functions = [
      {
        id: 1,
        type: 'custom',
        name: 'find_slots',
        description: 'Free slots on a day',
        url: 'https://api.example.com/slots',
        parameters: { type: 'object', properties: { date: { type: 'string' } }, required: ['date'] },
      },
    ];
    const started = await s.t.req('POST', '/api/v1/chat', {
      token: s.user.token,
      body: {
        agent_id: agent._id,
        agent: savePayload(agent, { message: '', editor: { ...(agent.editor as object), functions } }),
      },
    });
    const chatId = ((await started.json()) as { data: { chat_id: string } }).data.chat_id;
    const res = await s.t.req('POST', `/api/v1/chat/${chatId}/message`, {
      token: s.user.token,
      body: { content: 'Any slot tomorrow?' },
    });
    const events = await readEvents(res);
    const result = '{"slots":["2026-12-08T09:00","2026-12-08T11:30"]}';
    expect(events.filter((e) => e.type !== 'delta')).toEqual([
      { type: 'tool_call', name: 'find_slots', arguments: { date: '2026-12-08' } },
      { type: 'tool_result', name: 'find_slots', ok: true, result, ms: expect.any(Number) },
      { type: 'done', ended: false },
    ]);
    expect(
      events
        .filter((e) => e.type === 'delta')
        .map((e) => e.text)
        .join(''),
    ).toBe(`Checking. I have these: ${result}`);
    // the second request answered the call by its id, in the wire's shape
    const second = openai.chatRequests[1]?.body as { messages: Record<string, unknown>[] };
    expect(second.messages.slice(-2)).toEqual([
      {
        role: 'assistant',
        content: 'Checking. ',
        tool_calls: [{ id: 'call_abc', type: 'function', function: { name: 'find_slots', arguments: '{"date":"2026-12-08"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_abc', content: result },
    ]);
  });
});
