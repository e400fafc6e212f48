/**
 * The fakes refuse what the real providers refuse, with the real error shapes: a fake that accepted
 * anything would let a broken adapter pass.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { type FakeOpenAi, startFakeOpenAi } from '../../fakes/openai.js';

let openai: FakeOpenAi;
let anthropic: FakeAnthropic;
beforeAll(async () => {
  openai = await startFakeOpenAi();
  anthropic = await startFakeAnthropic();
});
afterAll(async () => {
  await openai.close();
  await anthropic.close();
});

const post = async (url: string, headers: Record<string, string>, body: unknown) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('fake OpenAI Chat Completions', () => {
  const chat = (body: unknown, headers: Record<string, string> = { authorization: `Bearer ${openai.apiKey}` }) =>
    post(`${openai.url}/v1/chat/completions`, headers, body);
  const valid = { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }], stream: true };

  it('refuses a missing or wrong key with 401 and the error object', async () => {
    const none = await chat(valid, {});
    expect(none.status).toBe(401);
    expect(none.body.error).toMatchObject({ type: 'invalid_request_error', code: null });
    const wrong = await chat(valid, { authorization: 'Bearer sk-nope-nope-nope-1234' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toMatchObject({ code: 'invalid_api_key' });
  });

  it.each([
    ['no model', { ...valid, model: undefined }, 'you must provide a model parameter'],
    ['no messages', { ...valid, messages: undefined }, "Missing required parameter: 'messages'."],
    ['a non-streamed request', { ...valid, stream: false }, 'stream: true'],
    ['an unknown argument', { ...valid, modalities: ['audio'] }, 'Unrecognized request argument supplied: modalities'],
    [
      'a tool schema that is not an object',
      { ...valid, tools: [{ type: 'function', function: { name: 'x', parameters: { type: 'string' } } }] },
      'Invalid schema',
    ],
    [
      'a tool in the wrong shape',
      { ...valid, tools: [{ name: 'x', parameters: { type: 'object' } }] },
      "Invalid value for 'tools[0].type'",
    ],
    [
      'a tool result without its call',
      {
        ...valid,
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'tool', tool_call_id: 'c1', content: 'x' },
        ],
      },
      "must be a response to a preceeding message with 'tool_calls'",
    ],
    [
      'an unknown response_format type',
      { ...valid, response_format: { type: 'xml' } },
      "Supported values are: 'text', 'json_object', and 'json_schema'.",
    ],
    [
      'json_object without the word JSON in the messages',
      { ...valid, response_format: { type: 'json_object' } },
      "'messages' must contain the word 'json' in some form",
    ],
    [
      'a json_schema without a name',
      { ...valid, response_format: { type: 'json_schema', json_schema: { strict: true, schema: STRICT } } },
      "Missing required parameter: 'response_format.json_schema.name'.",
    ],
    [
      'a json_schema whose schema is not an object',
      { ...valid, response_format: { type: 'json_schema', json_schema: { name: 'a', schema: { type: 'array' } } } },
      `schema must be a JSON Schema of 'type: "object"'`,
    ],
    [
      'a strict schema with an object that allows other keys',
      {
        ...valid,
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'a',
            strict: true,
            schema: {
              ...STRICT,
              properties: { ...STRICT.properties, inner: { type: 'object', properties: {} } },
              required: ['x', 'inner'],
            },
          },
        },
      },
      "In context=('properties', 'inner'), 'additionalProperties' is required to be supplied and to be false.",
    ],
    [
      'a strict schema that leaves a property out of required',
      {
        ...valid,
        response_format: { type: 'json_schema', json_schema: { name: 'a', strict: true, schema: { ...STRICT, required: [] } } },
      },
      "'required' is required to be supplied and to be an array including every key in properties. Missing 'x'.",
    ],
  ])('refuses %s with 400', async (_what, body, message) => {
    const res = await chat(body);
    expect(res.status).toBe(400);
    expect((res.body.error as { message: string }).message).toContain(message);
  });

  it('takes a strict json_schema that keeps the rules, and a loose one that does not', async () => {
    for (const json_schema of [
      { name: 'call_analysis', strict: true, schema: STRICT },
      { name: 'loose', schema: { type: 'object', properties: { x: { type: 'string' } } } },
    ]) {
      const res = await fetch(`${openai.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${openai.apiKey}` },
        body: JSON.stringify({ ...valid, response_format: { type: 'json_schema', json_schema } }),
      });
      expect(res.status).toBe(200);
      await res.text();
    }
  });
});

/** A schema OpenAI's strict mode takes. */
const STRICT = {
  type: 'object',
  properties: { x: { type: ['string', 'null'] } },
  required: ['x'],
  additionalProperties: false,
};

describe('fake Anthropic Messages', () => {
  const headers = () => ({ 'x-api-key': anthropic.apiKey, 'anthropic-version': '2023-06-01' });
  const valid = {
    model: 'claude-3-5-haiku-20241022',
    max_tokens: 100,
    messages: [{ role: 'user', content: 'Hi' }],
    stream: true,
  };
  const messages = (body: unknown, h: Record<string, string> = headers()) => post(`${anthropic.url}/v1/messages`, h, body);

  it('refuses a missing or wrong x-api-key with 401 authentication_error', async () => {
    for (const h of [{ 'anthropic-version': '2023-06-01' }, { ...headers(), 'x-api-key': 'wrong' }]) {
      const res = await messages(valid, h);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    }
  });

  it.each([
    ['no anthropic-version header', valid, { 'x-api-key': 'KEY' }, 'anthropic-version: header is required'],
    ['no max_tokens', { ...valid, max_tokens: undefined }, null, 'max_tokens: Field required'],
    ['no model', { ...valid, model: undefined }, null, 'model: Field required'],
    [
      'a first message from the assistant',
      { ...valid, messages: [{ role: 'assistant', content: 'Hello' }] },
      null,
      'first message must use the "user" role',
    ],
    [
      'a system role message',
      { ...valid, messages: [{ role: 'system', content: 'x' }] },
      null,
      "Input should be 'user' or 'assistant'",
    ],
    [
      'a tool schema that is not an object',
      { ...valid, tools: [{ name: 'x', input_schema: { type: 'string' } }] },
      null,
      "input_schema.type: Input should be 'object'",
    ],
    ['an OpenAI-shaped tool', { ...valid, tools: [{ type: 'function', function: { name: 'x' } }] }, null, 'tools.0.custom.name'],
    [
      'a tool result after text in its turn',
      {
        ...valid,
        messages: [
          { role: 'user', content: 'Book it' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'b', input: {} }] },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'ok' },
              { type: 'tool_result', tool_use_id: 't1', content: 'done' },
            ],
          },
        ],
      },
      null,
      'tool_result blocks must come first',
    ],
    [
      'a tool_choice without tools',
      { ...valid, tool_choice: { type: 'tool', name: 'x' } },
      null,
      'tool_choice may only be specified while providing tools',
    ],
    [
      'a tool_choice naming a tool not given',
      { ...valid, tools: [{ name: 'x', input_schema: { type: 'object' } }], tool_choice: { type: 'tool', name: 'y' } },
      null,
      "Tool 'y' not found",
    ],
    [
      'an OpenAI-shaped tool_choice',
      {
        ...valid,
        tools: [{ name: 'x', input_schema: { type: 'object' } }],
        tool_choice: { type: 'function', function: { name: 'x' } },
      },
      null,
      "does not match any of the expected tags: 'auto', 'any', 'tool', 'none'",
    ],
    [
      'a forced tool without its name',
      { ...valid, tools: [{ name: 'x', input_schema: { type: 'object' } }], tool_choice: { type: 'tool' } },
      null,
      'tool_choice.tool.name: Field required',
    ],
    ['a non-streamed request', { ...valid, stream: false }, null, 'stream: true'],
  ])('refuses %s with 400 invalid_request_error', async (_what, body, h, message) => {
    const res = await messages(body, h ? { ...h, 'x-api-key': anthropic.apiKey } : headers());
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect((res.body.error as { message: string }).message).toContain(message);
  });
});

describe('fake OpenAI Realtime', () => {
  /** Opens a raw socket; collects server events; resolves when the socket closes or on `until`. */
  function socket(headers: Record<string, string>, model = 'gpt-realtime') {
    const ws = new WebSocket(`${openai.url.replace('http', 'ws')}/v1/realtime?model=${model}`, { headers });
    const events: { type: string; error?: { code: string | null; message: string }; [k: string]: unknown }[] = [];
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    ws.on('message', (d) => events.push(JSON.parse(d.toString())));
    const next = async (type: string) => {
      for (let i = 0; i < 500; i++) {
        const found = events.find((e) => e.type === type);
        if (found) {
          events.splice(events.indexOf(found), 1);
          return found;
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      throw new Error(`no ${type} event`);
    };
    const send = (e: unknown) => ws.send(JSON.stringify(e));
    return { ws, events, closed, next, send };
  }
  const auth = () => ({ Authorization: `Bearer ${openai.apiKey}` });

  it('refuses the retired beta interface the way OpenAI does: error beta_api_shape_disabled, close 4000', async () => {
    const s = socket({ ...auth(), 'OpenAI-Beta': 'realtime=v1' });
    expect((await s.next('error')).error?.code).toBe('beta_api_shape_disabled');
    expect(await s.closed).toEqual({ code: 4000, reason: 'invalid_request_error.beta_api_shape_disabled' });
  });

  it('refuses a wrong key: error invalid_api_key, close 3000', async () => {
    const s = socket({ Authorization: 'Bearer sk-wrong' });
    expect((await s.next('error')).error?.code).toBe('invalid_api_key');
    expect((await s.closed).code).toBe(3000);
  });

  it('refuses beta-shaped and unknown audio formats in session.update, and keeps the session open', async () => {
    const s = socket(auth());
    await s.next('session.created');
    s.send({ type: 'session.update', session: { input_audio_format: 'g711_ulaw' } });
    expect((await s.next('error')).error).toMatchObject({ code: 'missing_required_parameter' });
    s.send({ type: 'session.update', session: { type: 'realtime', input_audio_format: 'g711_ulaw' } });
    expect((await s.next('error')).error).toMatchObject({
      code: 'unknown_parameter',
      message: "Unknown parameter: 'session.input_audio_format'.",
    });
    s.send({ type: 'session.update', session: { type: 'realtime', audio: { input: { format: { type: 'g711_ulaw' } } } } });
    expect((await s.next('error')).error).toMatchObject({ code: 'invalid_value' });
    s.send({
      type: 'session.update',
      session: { type: 'realtime', audio: { output: { format: { type: 'audio/pcm', rate: 16000 } } } },
    });
    expect((await s.next('error')).error).toMatchObject({ code: 'invalid_value' });
    s.send({ type: 'session.update', session: { type: 'realtime', temperature: 0.8 } });
    expect((await s.next('error')).error).toMatchObject({ code: 'unknown_parameter' });
    s.send({ type: 'session.update', session: { type: 'realtime', audio: { input: { format: { type: 'audio/pcmu' } } } } });
    expect(await s.next('session.updated')).toBeTruthy();
    s.ws.close();
  });

  it('refuses a cancel with no response, a truncate past the audio, and an unknown tool call id', async () => {
    const s = socket(auth());
    await s.next('session.created');
    s.send({ type: 'response.cancel' });
    expect((await s.next('error')).error?.code).toBe('response_cancel_not_active');
    s.send({ type: 'response.create' });
    const done = (await s.next('response.done')) as unknown as { response: { output: { id: string }[] } };
    const itemId = done.response.output[0]?.id as string;
    s.send({ type: 'conversation.item.truncate', item_id: itemId, content_index: 0, audio_end_ms: 60_000 });
    expect((await s.next('error')).error?.message).toContain('is already shorter than 60000ms');
    s.send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: 'call_nope', output: 'x' } });
    expect((await s.next('error')).error?.message).toBe("Tool call ID 'call_nope' not found in conversation.");
    s.ws.close();
  });
});
