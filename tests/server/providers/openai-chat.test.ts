import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createOpenAiChat } from '../../../server/voice/providers/openai/chat.js';
import { createProviderRegistry } from '../../../server/voice/providers/registry.js';
import type { LlmRequest } from '../../../server/voice/providers/types.js';
import { LLM_MODEL_IDS } from '../../../src/api/contract/models.js';
import { listen } from '../../fakes/listen.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/openai.js';
import { BOOK_TOOL, collect, llmRequest, refusal, textOf, until } from './llm-helpers.js';

let fake: FakeOpenAi;
const provider = createOpenAiChat({ firstByteMs: 2000, idleMs: 2000 });

beforeAll(async () => {
  fake = await startFakeOpenAi();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.chatRequests.length = 0;
});

const request = (overrides: Partial<LlmRequest> = {}) => llmRequest(fake, 'gpt-4o', overrides);
const BOOK = BOOK_TOOL;

describe('OpenAI Chat Completions adapter', () => {
  it('sends the documented request and streams the reply in small deltas, in order, before it ends', async () => {
    const text = 'Sure, we have openings on Tuesday morning.';
    fake.scriptChat([{ text, paceMs: 5 }]);
    const events = [];
    let completedAtFirstDelta: boolean | undefined;
    for await (const e of provider.stream(request({ tools: [BOOK] }))) {
      if (e.type === 'delta' && completedAtFirstDelta === undefined) completedAtFirstDelta = fake.chatRequests[0]?.completed;
      events.push(e);
    }
    // the first words arrived while the fake was still writing the answer
    expect(completedAtFirstDelta).toBe(false);
    const deltas = events.filter((e) => e.type === 'delta');
    expect(deltas.length).toBeGreaterThan(5);
    expect(textOf(events)).toBe(text);
    expect(events.map((e) => e.type).slice(-2)).toEqual(['usage', 'done']);
    expect(events.at(-1)).toEqual({ type: 'done', finishReason: 'stop' });

    const [sent] = fake.chatRequests;
    expect(sent?.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(sent?.body).toEqual({
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'You are the front desk of a dental clinic.' },
        { role: 'user', content: 'Can I book a cleaning?' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.4,
      max_tokens: 300,
      tools: [{ type: 'function', function: BOOK }],
    });
  });

  it('assembles tool calls from their fragments, and sends tool calls and results back in OpenAI shape', async () => {
    fake.scriptChat([
      {
        text: 'Let me check.',
        toolCalls: [
          { id: 'call_a', name: 'book_appointment', arguments: { day: 'Tuesday', note: 'first visit, "cleaning"' } },
          { id: 'call_b', name: 'end_call', arguments: {} },
        ],
      },
    ]);
    const events = await collect(provider, request({ tools: [BOOK] }));
    expect(events.filter((e) => e.type === 'tool_call').map((e) => e.type === 'tool_call' && e.call)).toEqual([
      { id: 'call_a', name: 'book_appointment', arguments: { day: 'Tuesday', note: 'first visit, "cleaning"' } },
      { id: 'call_b', name: 'end_call', arguments: {} },
    ]);
    expect(events.at(-1)).toEqual({ type: 'done', finishReason: 'tool_calls' });

    fake.scriptChat([{ text: 'Booked for Tuesday.' }]);
    await collect(
      provider,
      request({
        messages: [
          { role: 'user', content: 'Tuesday please' },
          {
            role: 'assistant',
            content: '',
            toolCalls: [{ id: 'call_a', name: 'book_appointment', arguments: { day: 'Tuesday' } }],
          },
          { role: 'tool', toolCallId: 'call_a', name: 'book_appointment', content: '{"ok":true}' },
        ],
      }),
    );
    expect(fake.chatRequests.at(-1)?.body.messages).toEqual([
      { role: 'user', content: 'Tuesday please' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'book_appointment', arguments: '{"day":"Tuesday"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '{"ok":true}' },
    ]);
  });

  it('counts usage from the last chunk', async () => {
    fake.scriptChat([{ text: 'Hello.', usage: { prompt_tokens: 123, completion_tokens: 45 } }]);
    const events = await collect(provider, request());
    expect(events.filter((e) => e.type === 'usage')).toEqual([{ type: 'usage', inputTokens: 123, outputTokens: 45 }]);
  });

  it('a refused key is an auth error that never repeats the key', async () => {
    const e = await refusal(provider, request({ apiKey: 'sk-proj-WRONGwrongWRONGwrong1234' }));
    expect(e.kind).toBe('auth');
    expect(e.provider).toBe('openai');
    expect(e.status).toBe(401);
    expect(e.message).toBe('OpenAI refused the API key (401 invalid_request_error)');
    expect(e.message).not.toContain('1234');
  });

  it.each([
    [429, 'rate_limited'],
    [400, 'bad_request'],
    [404, 'bad_request'],
    [500, 'unavailable'],
    [503, 'unavailable'],
  ] as const)('an HTTP %i answer is %s, with the provider message', async (status, kind) => {
    fake.scriptChat([{ error: { status, message: `scripted failure ${status}`, type: 'some_error' } }]);
    const e = await refusal(provider, request());
    expect(e.kind).toBe(kind);
    expect(e.status).toBe(status);
    expect(e.message).toContain(`scripted failure ${status}`);
  });

  it('a model the provider does not serve is refused with its message naming the model', async () => {
    const narrow = await startFakeOpenAi({ models: ['gpt-4o'] });
    try {
      const e = await refusal(provider, request({ apiKey: narrow.apiKey, baseUrl: narrow.url, model: 'gpt-4o-mini' }));
      expect(e.kind).toBe('bad_request');
      expect(e.message).toBe(
        'OpenAI refused the request (404 invalid_request_error): The model `gpt-4o-mini` does not exist or you do not have access to it.',
      );
    } finally {
      await narrow.close();
    }
  });

  it('a connection dropped mid-stream, or an error chunk, is unavailable after the deltas already given', async () => {
    fake.scriptChat([{ text: 'One two three four five six', dropAfterDeltas: 2 }]);
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const e of provider.stream(request())) if (e.type === 'delta') seen.push(e.text);
      })(),
    ).rejects.toMatchObject({ kind: 'unavailable' });
    expect(seen.join('')).toBe('One two ');

    fake.scriptChat([{ text: 'One two three four five six', errorAfterDeltas: 1 }]);
    const e = await refusal(provider, request());
    expect(e.kind).toBe('unavailable');
    expect(e.message).toContain('The server had an error while processing your request');
  });

  it('a slow first byte is a timeout, and the connection is closed', async () => {
    fake.scriptChat([{ text: 'late', firstByteDelayMs: 3000 }]);
    const quick = createOpenAiChat({ firstByteMs: 100 });
    const e = await refusal(quick, request());
    expect(e.kind).toBe('timeout');
    expect(e.message).toBe('OpenAI did not answer in time');
    await until(() => fake.chatRequests[0]?.closedEarly === true);
  });

  it('an abort ends the stream with the abort reason and closes the request at once', async () => {
    fake.scriptChat([{ text: 'A long answer that keeps going for quite a while, word after word after word.', paceMs: 30 }]);
    const controller = new AbortController();
    const events: string[] = [];
    await expect(
      (async () => {
        for await (const e of provider.stream(request({ signal: controller.signal }))) {
          events.push(e.type);
          if (e.type === 'delta') controller.abort();
        }
      })(),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(events).toEqual(['delta']);
    await until(() => fake.chatRequests[0]?.closedEarly === true);
    expect(fake.chatRequests[0]?.completed).toBe(false);
  });

  it('leaving the loop early closes the request', async () => {
    fake.scriptChat([{ text: 'A long answer that keeps going for quite a while, word after word.', paceMs: 30 }]);
    for await (const e of provider.stream(request())) if (e.type === 'delta') break;
    await until(() => fake.chatRequests[0]?.closedEarly === true);
  });

  it("a company's own Base URL that is private is refused before any connection", async () => {
    const e = await refusal(provider, request({ publicOnly: true }));
    expect(e.kind).toBe('bad_request');
    expect(e.message).toMatch(/^OpenAI Base URL refused: 127\.0\.0\.1 is a loopback address/);
    expect(fake.chatRequests).toHaveLength(0);
    // a name is checked by the lookup that makes the connection
    const byName = await refusal(provider, request({ publicOnly: true, baseUrl: fake.url.replace('127.0.0.1', 'localhost') }));
    expect(byName.message).toMatch(/^OpenAI Base URL refused: localhost resolves to a loopback address/);
    expect(fake.chatRequests).toHaveLength(0);
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

describe('OpenAI Chat Completions: a structured answer (LlmRequest.structuredOutput)', () => {
  it('asks for a strict json_schema response format and streams the JSON as text', async () => {
    fake.scriptChat([{ text: '{"day":"Tuesday"}' }]);
    const events = await collect(provider, request({ structuredOutput: SHAPE }));
    expect(textOf(events)).toBe('{"day":"Tuesday"}');
    expect(fake.chatRequests.at(-1)?.body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'visit_summary', description: 'What the caller wants.', strict: true, schema: SHAPE.schema },
    });
    // without it, nothing is asked
    await collect(provider, request());
    expect(fake.chatRequests.at(-1)?.body).not.toHaveProperty('response_format');
  });

  it("a refusal is a bad_request naming the model's words", async () => {
    fake.scriptChat([{ refusal: 'I cannot help with that.' }]);
    const e = await refusal(provider, request({ structuredOutput: SHAPE }));
    expect(e).toMatchObject({ kind: 'bad_request', message: "OpenAI's model refused to answer: I cannot help with that." });
  });

  it('a schema strict mode does not take is refused by the API (400)', async () => {
    const loose = { ...SHAPE, schema: { type: 'object', properties: { day: { type: 'string' } } } };
    const e = await refusal(provider, request({ structuredOutput: loose }));
    expect(e).toMatchObject({ kind: 'bad_request', status: 400 });
    expect(e.message).toContain("'additionalProperties' is required to be supplied and to be false");
  });
});

describe('a server that never stops (a company Base URL may point anywhere)', () => {
  it('an answer past 8 MB is refused as unavailable and the connection closed', async () => {
    let closed = false;
    const endless = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'x'.repeat(2000) } }] })}\n\n`.repeat(32);
      const pump = () => {
        while (!closed && res.write(chunk)) {}
        if (!closed) res.once('drain', pump);
      };
      res.on('close', () => {
        closed = true;
      });
      pump();
    });
    try {
      let text = 0;
      const e = await (async () => {
        try {
          for await (const event of provider.stream(request({ baseUrl: endless.url })))
            if (event.type === 'delta') text += event.text.length;
        } catch (err) {
          return err;
        }
      })();
      expect(e).toMatchObject({ kind: 'unavailable', message: 'OpenAI sent an oversized answer' });
      expect(text).toBeLessThan(8 * 1024 * 1024);
      await until(() => closed);
    } finally {
      await endless.close();
    }
  });
});

describe('editor models', () => {
  it('every model the editor offers has a provider and a documented model id', () => {
    const registry = createProviderRegistry();
    const route = (id: string) => {
      const r = registry.modelRoute(id);
      return r && { kind: r.kind, provider: r.provider, model: r.providerModel };
    };
    expect(LLM_MODEL_IDS.filter((id) => !registry.modelRoute(id))).toEqual([]);
    expect(route('gpt-4o')).toEqual({ kind: 'llm', provider: 'openai', model: 'gpt-4o' });
    expect(route('gpt-4o-mini')).toEqual({ kind: 'llm', provider: 'openai', model: 'gpt-4o-mini' });
    expect(route('gpt-4o-realtime')).toEqual({ kind: 'realtime', provider: 'openai', model: 'gpt-realtime' });
    expect(route('gpt-4o-mini-realtime')).toEqual({ kind: 'realtime', provider: 'openai', model: 'gpt-realtime-mini' });
    expect(route('claude-3.5-sonnet')).toEqual({ kind: 'llm', provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(route('claude-3-haiku')).toEqual({ kind: 'llm', provider: 'anthropic', model: 'claude-haiku-4-5' });
    expect(route('no-such-model')).toBeUndefined();
  });
});
