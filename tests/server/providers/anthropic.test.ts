import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CALL_STARTED_TURN, createAnthropic, toAnthropicMessages } from '../../../server/voice/providers/anthropic/messages.js';
import type { LlmRequest } from '../../../server/voice/providers/types.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { BOOK_TOOL, collect, llmRequest, refusal, textOf, until } from './llm-helpers.js';

let fake: FakeAnthropic;
const provider = createAnthropic({ firstByteMs: 2000, idleMs: 2000 });

beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
});

const request = (overrides: Partial<LlmRequest> = {}) => llmRequest(fake, 'claude-3-5-haiku-20241022', overrides);
const BOOK = BOOK_TOOL;

describe('toAnthropicMessages', () => {
  it('puts system text on top, tool calls in tool_use blocks, results first in a user turn, and merges same-role turns', () => {
    const out = toAnthropicMessages([
      { role: 'system', content: 'Prompt.' },
      { role: 'assistant', content: 'Hello, this is the clinic.' },
      { role: 'user', content: 'Hi.' },
      { role: 'user', content: 'I need a visit on Tuesday.' },
      { role: 'system', content: 'Knowledge: Tuesdays 9-12.' },
      {
        role: 'assistant',
        content: 'Let me book that.',
        toolCalls: [{ id: 't1', name: 'book_appointment', arguments: { day: 'Tuesday' } }],
      },
      { role: 'tool', toolCallId: 't1', name: 'book_appointment', content: 'booked' },
      { role: 'user', content: 'Thanks!' },
      { role: 'assistant', content: '' },
    ]);
    expect(out.system).toBe('Prompt.\n\nKnowledge: Tuesdays 9-12.');
    expect(out.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: CALL_STARTED_TURN }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Hello, this is the clinic.' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Hi.' },
          { type: 'text', text: 'I need a visit on Tuesday.' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me book that.' },
          { type: 'tool_use', id: 't1', name: 'book_appointment', input: { day: 'Tuesday' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'booked' },
          { type: 'text', text: 'Thanks!' },
        ],
      },
    ]);
  });
});

describe('Anthropic Messages adapter', () => {
  it('sends the documented request and streams the reply in small deltas, in order, before it ends', async () => {
    const text = 'Sure, we have openings on Tuesday morning.';
    fake.script([{ text, paceMs: 5, usage: { input_tokens: 321, output_tokens: 12 } }]);
    const events = [];
    let completedAtFirstDelta: boolean | undefined;
    for await (const e of provider.stream(request({ tools: [BOOK], temperature: 1.4 }))) {
      if (e.type === 'delta' && completedAtFirstDelta === undefined) completedAtFirstDelta = fake.requests[0]?.completed;
      events.push(e);
    }
    expect(completedAtFirstDelta).toBe(false);
    expect(events.filter((e) => e.type === 'delta').length).toBeGreaterThan(5);
    expect(textOf(events)).toBe(text);
    expect(events.slice(-2)).toEqual([
      { type: 'usage', inputTokens: 321, outputTokens: 12 },
      { type: 'done', finishReason: 'stop' },
    ]);
    const [sent] = fake.requests;
    expect(sent?.headers['x-api-key']).toBe(fake.apiKey);
    expect(sent?.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent?.headers['content-type']).toBe('application/json');
    expect(sent?.body).toEqual({
      model: 'claude-3-5-haiku-20241022',
      max_tokens: 300,
      system: 'You are the front desk of a dental clinic.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Can I book a cleaning?' }] }],
      tools: [{ name: BOOK.name, description: BOOK.description, input_schema: BOOK.parameters }],
      temperature: 1,
      stream: true,
    });
  });

  it('assembles tool_use input from input_json_delta pieces; a tool round trip is accepted', async () => {
    fake.script([
      {
        text: 'Let me check.',
        toolUses: [
          { id: 'toolu_1', name: 'book_appointment', input: { day: 'Tuesday', note: 'first visit, "cleaning"' } },
          { id: 'toolu_2', name: 'end_call', input: {} },
        ],
      },
    ]);
    const events = await collect(provider, request({ tools: [BOOK] }));
    expect(events.filter((e) => e.type === 'tool_call').map((e) => e.type === 'tool_call' && e.call)).toEqual([
      { id: 'toolu_1', name: 'book_appointment', arguments: { day: 'Tuesday', note: 'first visit, "cleaning"' } },
      { id: 'toolu_2', name: 'end_call', arguments: {} },
    ]);
    expect(events.at(-1)).toEqual({ type: 'done', finishReason: 'tool_calls' });

    fake.script([{ text: 'Booked for Tuesday.' }]);
    const next = await collect(
      provider,
      request({
        tools: [BOOK],
        messages: [
          { role: 'user', content: 'Tuesday please' },
          {
            role: 'assistant',
            content: 'Let me check.',
            toolCalls: [{ id: 'toolu_1', name: 'book_appointment', arguments: { day: 'Tuesday' } }],
          },
          { role: 'tool', toolCallId: 'toolu_1', name: 'book_appointment', content: '{"ok":true}' },
        ],
      }),
    );
    expect(textOf(next)).toBe('Booked for Tuesday.');
  });

  it('a refused key is an auth error', async () => {
    const e = await refusal(provider, request({ apiKey: 'sk-ant-wrong-key-0000000000' }));
    expect(e).toMatchObject({ provider: 'anthropic', kind: 'auth', status: 401 });
    expect(e.message).toBe('Anthropic refused the API key (401 authentication_error)');
  });

  it.each([
    [429, 'rate_limit_error', 'rate_limited'],
    [400, 'invalid_request_error', 'bad_request'],
    [529, 'overloaded_error', 'unavailable'],
    [500, 'api_error', 'unavailable'],
  ] as const)('an HTTP %i %s answer is %s', async (status, type, kind) => {
    fake.script([{ error: { status, type, message: `scripted ${type}` } }]);
    const e = await refusal(provider, request());
    expect(e).toMatchObject({ kind, status });
    expect(e.message).toContain(`(${status} ${type}): scripted ${type}`);
  });

  it('a retired model is refused with the provider message naming it', async () => {
    const current = await startFakeAnthropic({ models: ['claude-haiku-4-5-20251001'] });
    try {
      const e = await refusal(
        provider,
        request({ apiKey: current.apiKey, baseUrl: current.url, model: 'claude-3-haiku-20240307' }),
      );
      expect(e.kind).toBe('bad_request');
      expect(e.message).toBe('Anthropic refused the request (404 not_found_error): model: claude-3-haiku-20240307');
    } finally {
      await current.close();
    }
  });

  it('an error event mid-stream (overloaded) and a dropped connection are unavailable', async () => {
    fake.script([{ text: 'One two three four five six', errorAfterDeltas: 2 }]);
    const e = await refusal(provider, request());
    expect(e.kind).toBe('unavailable');
    expect(e.message).toBe('Anthropic failed (overloaded_error): Overloaded');

    fake.script([{ text: 'One two three four five six', dropAfterDeltas: 1 }]);
    expect((await refusal(provider, request())).kind).toBe('unavailable');
  });

  it('a slow first byte is a timeout', async () => {
    fake.script([{ text: 'late', firstByteDelayMs: 3000 }]);
    const e = await refusal(createAnthropic({ firstByteMs: 100 }), request());
    expect(e.kind).toBe('timeout');
    await until(() => fake.requests[0]?.closedEarly === true);
  });

  it('an abort ends the stream at once and closes the request', async () => {
    fake.script([{ text: 'A long answer that keeps going for quite a while, word after word after word.', paceMs: 30 }]);
    const controller = new AbortController();
    await expect(
      (async () => {
        for await (const e of provider.stream(request({ signal: controller.signal }))) if (e.type === 'delta') controller.abort();
      })(),
    ).rejects.toMatchObject({ name: 'AbortError' });
    await until(() => fake.requests[0]?.closedEarly === true);
    expect(fake.requests[0]?.completed).toBe(false);
  });
});

const SHAPE = {
  name: 'visit_summary',
  description: 'What the caller wants.',
  schema: {
    type: 'object',
    properties: { day: { type: ['string', 'null'] } },
    required: ['day'],
    additionalProperties: false,
  },
};

describe('Anthropic: a structured answer (LlmRequest.structuredOutput) as a forced tool', () => {
  it("adds the tool with the schema, forces it, and streams its input as text, ending with 'stop'", async () => {
    fake.script([{ toolUses: [{ name: 'visit_summary', input: { day: 'Tuesday' } }] }]);
    const events = await collect(provider, request({ structuredOutput: SHAPE, tools: [BOOK] }));
    expect(JSON.parse(textOf(events))).toEqual({ day: 'Tuesday' });
    expect(events.filter((e) => e.type === 'tool_call')).toEqual([]);
    expect(events.at(-1)).toEqual({ type: 'done', finishReason: 'stop' });
    const body = fake.requests.at(-1)?.body as Record<string, unknown>;
    expect(body.tools).toEqual([
      { name: BOOK.name, description: BOOK.description, input_schema: BOOK.parameters },
      { name: 'visit_summary', description: 'What the caller wants.', input_schema: SHAPE.schema },
    ]);
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'visit_summary' });
  });

  it('without it, no tool_choice is sent and tool calls stay tool calls', async () => {
    fake.script([{ toolUses: [{ name: BOOK.name, input: { day: 'Monday' } }] }]);
    const events = await collect(provider, request({ tools: [BOOK] }));
    expect(events.filter((e) => e.type === 'tool_call')).toHaveLength(1);
    expect(fake.requests.at(-1)?.body).not.toHaveProperty('tool_choice');
  });
});
