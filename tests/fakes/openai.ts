/**
 * A fake OpenAI on 127.0.0.1: Chat Completions (SSE) and the Realtime API (WebSocket, GA interface) on one
 * HTTP server, speaking the documented wire formats and refusing what the real API refuses.
 *
 * Documents read (found with the search tool):
 * - Chat Completions create + streaming chunks: https://platform.openai.com/docs/api-reference/chat/create,
 *   https://platform.openai.com/docs/api-reference/chat-streaming (the `stream_options.include_usage` chunk:
 *   empty `choices`, then `data: [DONE]`); error answers: https://platform.openai.com/docs/guides/error-codes
 *   (`{"error": {message, type, param, code}}`; 401 invalid_api_key, 429, 404 model_not_found).
 * - List models: https://platform.openai.com/docs/api-reference/models/list (GET /v1/models with the Bearer
 *   key; {object: 'list', data: [{id, object: 'model', created, owned_by}]}; the same 401 as chat): the
 *   Providers page's key check.
 * - Structured Outputs: https://platform.openai.com/docs/guides/structured-outputs and the `response_format`
 *   parameter of https://platform.openai.com/docs/api-reference/chat/create (`{type: 'json_schema', json_schema:
 *   {name, description?, schema, strict?}}`, name ^[a-zA-Z0-9_-]{1,64}$; in strict mode every object needs
 *   `additionalProperties: false` and all its keys in `required`, optional values are nullable types; at
 *   most 5 levels and 100 properties; a refusal streams as `delta.refusal`), cross-read with the typed
 *   clients' docs found by the search tool (docs.rs openai-client-base `TextResponseFormatJsonSchema`, the
 *   LangChain `ResponseFormatJSONSchema.JSONSchema` interface).
 * - Realtime client and server events (GA): https://developers.openai.com/api/reference/resources/realtime/client-events,
 *   https://developers.openai.com/api/reference/resources/realtime/server-events, and the types in openai-node
 *   (src/resources/realtime/realtime.ts): `session.update` with `session.type: 'realtime'` and
 *   `audio.{input,output}.format` = `{type: 'audio/pcm', rate: 24000}` | `{type: 'audio/pcmu'}` | `{type: 'audio/pcma'}`,
 *   `response.output_audio.delta`, `response.output_audio_transcript.delta`, `conversation.item.truncate`.
 * - The beta interface (`OpenAI-Beta: realtime=v1`, `input_audio_format: 'g711_ulaw'`) was shut down on
 *   2026-05-12: the real server answers an `error` event `beta_api_shape_disabled` and closes with 4000
 *   (https://github.com/jsboige/CoursIA/pull/13149, https://github.com/langwatch/scenario/pull/604). A wrong key
 *   is an `error` event `invalid_api_key` and close code 3000
 *   (https://github.com/twilio-samples/speech-assistant-openai-realtime-api-python/issues/4).
 *
 * - Tool calls and results: an assistant message's `tool_calls` must each be answered by the `tool` messages
 *   right after it, or the API answers 400 "An assistant message with 'tool_calls' must be followed by tool
 *   messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages:
 *   ..." (the error as reported in openai-using projects' issues found with the search tool: agno-agi/agno#3105,
 *   BerriAI/litellm#10083, aliasrobotics/cai#111); https://platform.openai.com/docs/guides/function-calling.
 *
 * Replies are scripted by the test (a queue or a function of the request); every request is recorded.
 * `ChatReply.dripLine` is not OpenAI's behaviour: it is what a hostile server at a company's own Base URL may
 * send, framed as the event-stream grammar allows (https://html.spec.whatwg.org/multipage/server-sent-events.html):
 * one `data:` line that never reaches its end-of-line.
 */
import type http from 'node:http';
import { type WebSocket, WebSocketServer } from 'ws';
import { decode, encode, type FakeAudioFormat, rateOf, rms, tone } from './g711.js';
import {
  dripLine,
  isObjectSchema,
  type Listening,
  listen,
  pieces,
  receive,
  type StreamRequestRecord,
  sendJson,
  sleep,
  sseAnswer,
} from './listen.js';

// ---------------------------------------------------------------------------------------------
// Chat Completions

export interface ChatReply {
  /** streamed in several small deltas */
  text?: string;
  /** a Structured Outputs refusal: streamed as `delta.refusal` pieces instead of content */
  refusal?: string;
  toolCalls?: { id?: string; name: string; arguments: Record<string, unknown> | string }[];
  finishReason?: string;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** answer this error instead (status + OpenAI's error object) */
  error?: { status: number; message: string; type?: string; code?: string | null };
  /** wait this long before the first byte (headers included) */
  firstByteDelayMs?: number;
  /** drop the connection after this many content deltas (a mid-stream failure) */
  dropAfterDeltas?: number;
  /** send an `{"error": ...}` chunk after this many deltas (what OpenAI does when a stream fails server-side) */
  errorAfterDeltas?: number;
  /** ms between chunks (default 0) */
  paceMs?: number;
  /**
   * Not part of OpenAI's wire: told when the first `tool_calls` chunk and the final `[DONE]` have been
   * written (bench/tools.ts times the engine from those moments).
   */
  onSent?: (what: 'tool_call' | 'done') => void;
  /**
   * A hostile OpenAI-compatible server (a company's own Base URL may point anywhere): after the first
   * chunk, one `data: ` line of `bytes` bytes written in `piece`-byte writes as fast as the connection takes
   * them, never ended; the connection stays open until the client closes it.
   */
  dripLine?: { bytes: number; piece: number };
}

export type ChatRequestRecord = StreamRequestRecord;

type ChatScript = ChatReply[] | ((body: ChatBody) => ChatReply | Promise<ChatReply>);

interface ChatBody {
  model: string;
  messages: { role: string; content?: unknown; tool_calls?: { id: string }[]; tool_call_id?: string }[];
  tools?: unknown[];
  [k: string]: unknown;
}

const CHAT_PARAMS = new Set([
  'model',
  'messages',
  'stream',
  'stream_options',
  'temperature',
  'max_tokens',
  'max_completion_tokens',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'top_p',
  'n',
  'stop',
  'user',
  'seed',
  'response_format',
  'presence_penalty',
  'frequency_penalty',
]);
const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const openAiError = (
  message: string,
  type = 'invalid_request_error',
  param: string | null = null,
  code: string | null = null,
) => ({
  error: { message, type, param, code },
});

/** What the real API refuses, checked in its order; null when the request is acceptable. */
function checkChat(body: unknown, models: Set<string> | undefined): { status: number; body: unknown } | null {
  const bad = (message: string, param: string | null = null, code: string | null = null) => ({
    status: 400,
    body: openAiError(message, 'invalid_request_error', param, code),
  });
  if (!body || typeof body !== 'object') return bad('We could not parse the JSON body of your request.');
  const b = body as ChatBody;
  for (const key of Object.keys(b)) if (!CHAT_PARAMS.has(key)) return bad(`Unrecognized request argument supplied: ${key}`);
  if (typeof b.model !== 'string' || !b.model) return bad('you must provide a model parameter');
  if (models && !models.has(b.model))
    return {
      status: 404,
      body: openAiError(
        `The model \`${b.model}\` does not exist or you do not have access to it.`,
        'invalid_request_error',
        null,
        'model_not_found',
      ),
    };
  if (!Array.isArray(b.messages)) return bad("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
  if (b.messages.length === 0)
    return bad(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'messages',
      'empty_array',
    );
  const callIds = new Set<string>();
  for (const [i, m] of b.messages.entries()) {
    if (!['system', 'developer', 'user', 'assistant', 'tool'].includes(m.role))
      return bad(
        `Invalid value: '${m.role}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
        `messages[${i}].role`,
        'invalid_value',
      );
    if (m.role === 'assistant') for (const c of m.tool_calls ?? []) callIds.add(c.id);
    if (m.role === 'tool' && (!m.tool_call_id || !callIds.has(m.tool_call_id)))
      return bad(
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        `messages.[${i}].role`,
      );
    if (m.role !== 'assistant' && typeof m.content !== 'string')
      return bad(`Invalid type for 'messages[${i}].content'.`, `messages[${i}].content`);
  }
  // every tool call of an assistant message is answered by the tool messages right after it
  for (const [i, m] of b.messages.entries()) {
    if (m.role !== 'assistant' || !m.tool_calls?.length) continue;
    const answered = new Set<string>();
    for (const next of b.messages.slice(i + 1)) {
      if (next.role !== 'tool') break;
      if (next.tool_call_id) answered.add(next.tool_call_id);
    }
    const missing = m.tool_calls.map((c) => c.id).filter((id) => !answered.has(id));
    if (missing.length)
      return bad(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')}`,
        'messages',
      );
  }
  if (b.stream !== true) return bad('This fake answers streamed requests only (stream: true).', 'stream');
  if (b.stream_options !== undefined && b.stream !== true)
    return bad("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options');
  if (b.temperature !== undefined && (typeof b.temperature !== 'number' || b.temperature < 0 || b.temperature > 2))
    return bad(
      `Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got ${b.temperature} instead.`,
      'temperature',
      'decimal_above_max_value',
    );
  for (const [i, t] of (Array.isArray(b.tools) ? b.tools : []).entries()) {
    const tool = t as { type?: unknown; function?: { name?: unknown; parameters?: unknown } };
    if (tool.type !== 'function' || !tool.function) return bad(`Invalid value for 'tools[${i}].type'.`, `tools[${i}].type`);
    if (typeof tool.function.name !== 'string' || !NAME.test(tool.function.name))
      return bad(
        `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
        `tools[${i}].function.name`,
        'invalid_value',
      );
    if (tool.function.parameters !== undefined && !isObjectSchema(tool.function.parameters))
      return bad(
        `Invalid schema for function '${tool.function.name}': schema must be a JSON Schema of 'type: "object"'.`,
        `tools[${i}].function.parameters`,
        'invalid_function_parameters',
      );
  }
  if (b.response_format !== undefined) {
    const problem = checkResponseFormat(b.response_format, b.messages);
    if (problem) return bad(problem.message, problem.param, problem.code);
  }
  return null;
}

/**
 * `response_format` as Chat Completions checks it: `text`, `json_object` (the messages must mention JSON) or
 * `json_schema` with a `name` (^[a-zA-Z0-9_-]{1,64}$) and an object `schema`; with `strict: true` the schema must
 * keep Structured Outputs' rules: every object has `additionalProperties: false` and lists all its
 * properties in `required`, at most 5 levels of nesting and 100 properties in all.
 */
function checkResponseFormat(
  format: unknown,
  messages: ChatBody['messages'],
): { message: string; param: string; code: string | null } | null {
  const f = (format ?? {}) as { type?: unknown; json_schema?: Record<string, unknown> };
  if (!['text', 'json_object', 'json_schema'].includes(f.type as string))
    return {
      message: `Invalid value: '${String(f.type)}'. Supported values are: 'text', 'json_object', and 'json_schema'.`,
      param: 'response_format.type',
      code: 'invalid_value',
    };
  if (f.type === 'json_object' && !messages.some((m) => typeof m.content === 'string' && /json/i.test(m.content)))
    return {
      message: "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
      param: 'messages',
      code: null,
    };
  if (f.type !== 'json_schema') return null;
  const js = f.json_schema;
  if (!js || typeof js !== 'object')
    return {
      message: "Missing required parameter: 'response_format.json_schema'.",
      param: 'response_format.json_schema',
      code: 'missing_required_parameter',
    };
  for (const key of Object.keys(js))
    if (!['name', 'description', 'schema', 'strict'].includes(key))
      return {
        message: `Unknown parameter: 'response_format.json_schema.${key}'.`,
        param: `response_format.json_schema.${key}`,
        code: 'unknown_parameter',
      };
  if (typeof js.name !== 'string')
    return {
      message: "Missing required parameter: 'response_format.json_schema.name'.",
      param: 'response_format.json_schema.name',
      code: 'missing_required_parameter',
    };
  if (!NAME.test(js.name))
    return {
      message: `Invalid 'response_format.json_schema.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
      param: 'response_format.json_schema.name',
      code: 'invalid_value',
    };
  const invalid = (why: string) => ({
    message: `Invalid schema for response_format '${js.name}': ${why}`,
    param: 'response_format',
    code: 'invalid_json_schema',
  });
  if (!isObjectSchema(js.schema)) {
    const type = (js.schema as { type?: unknown } | undefined)?.type;
    return invalid(`schema must be a JSON Schema of 'type: "object"', got 'type: "${String(type)}"'.`);
  }
  if (js.strict !== true) return null;
  let properties = 0;
  const walk = (node: Record<string, unknown>, context: string[], depth: number): string | null => {
    const where = `In context=(${context.map((c) => `'${c}'`).join(', ')})`;
    if (depth > 5) return `${where}, the schema nests more than 5 levels.`;
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (types.includes('object')) {
      if (node.additionalProperties !== false)
        return `${where}, 'additionalProperties' is required to be supplied and to be false.`;
      const props = (node.properties ?? {}) as Record<string, Record<string, unknown>>;
      const required = Array.isArray(node.required) ? node.required : [];
      const missing = Object.keys(props).find((k) => !required.includes(k));
      if (missing !== undefined || !Array.isArray(node.required))
        return `${where}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing ?? Object.keys(props)[0]}'.`;
      for (const [k, child] of Object.entries(props)) {
        properties++;
        const problem = walk(child, [...context, 'properties', k], depth + 1);
        if (problem) return problem;
      }
    }
    if (Array.isArray(node.enum) && node.enum.some((v) => v !== null && !types.includes(typeof v)))
      return `${where}, enum value ${JSON.stringify(node.enum.find((v) => v !== null && !types.includes(typeof v)))} does not validate against ${JSON.stringify({ type: node.type })}.`;
    if (node.items && typeof node.items === 'object')
      return walk(node.items as Record<string, unknown>, [...context, 'items'], depth + 1);
    return null;
  };
  const problem = walk(js.schema as Record<string, unknown>, [], 1);
  if (problem) return invalid(problem);
  if (properties > 100) return invalid('a schema may have at most 100 object properties in all.');
  return null;
}

async function streamChat(res: http.ServerResponse, body: ChatBody, reply: ChatReply, record: ChatRequestRecord) {
  const answer = sseAnswer(res, record, reply.paceMs);
  if (reply.firstByteDelayMs) await sleep(reply.firstByteDelayMs);
  if (answer.closed()) return;
  if (reply.error) {
    sendJson(res, reply.error.status, openAiError(reply.error.message, reply.error.type, null, reply.error.code ?? null));
    return;
  }
  answer.start();
  const base = {
    id: `chatcmpl-fake${Date.now().toString(36)}`,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    system_fingerprint: 'fp_fake',
  };
  const send = (chunk: unknown) => answer.write(`data: ${typeof chunk === 'string' ? chunk : JSON.stringify(chunk)}\n\n`);
  const choice = (delta: unknown, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    usage: null,
  });
  if (!(await send(choice({ role: 'assistant', content: '', refusal: null })))) return;
  if (reply.dripLine) return dripLine(res, answer.closed, reply.dripLine);
  for (const piece of pieces(reply.refusal ?? '')) if (!(await send(choice({ refusal: piece })))) return;
  let deltas = 0;
  for (const piece of pieces(reply.text ?? '')) {
    if (reply.dropAfterDeltas !== undefined && deltas >= reply.dropAfterDeltas) {
      res.destroy();
      return;
    }
    if (reply.errorAfterDeltas !== undefined && deltas >= reply.errorAfterDeltas) {
      await send(openAiError('The server had an error while processing your request. Sorry about that!', 'server_error'));
      res.end();
      return;
    }
    if (!(await send(choice({ content: piece })))) return;
    deltas++;
  }
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
    const callId = call.id ?? `call_fake${index}${deltas}`;
    if (
      !(await send(
        choice({ tool_calls: [{ index, id: callId, type: 'function', function: { name: call.name, arguments: '' } }] }),
      ))
    )
      return;
    if (index === 0) reply.onSent?.('tool_call');
    for (const piece of pieces(args, 7))
      if (!(await send(choice({ tool_calls: [{ index, function: { arguments: piece } }] })))) return;
  }
  const finish = reply.finishReason ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop');
  if (!(await send(choice({}, finish)))) return;
  const usage = reply.usage ?? {
    prompt_tokens: Math.ceil(JSON.stringify(body.messages).length / 4),
    completion_tokens: Math.max(1, Math.ceil((reply.text ?? '').length / 4)),
  };
  if (!(await send({ ...base, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })))
    return;
  if (!(await send('[DONE]'))) return;
  reply.onSent?.('done');
  answer.finish();
}

// ---------------------------------------------------------------------------------------------
// Realtime (GA)

export interface RealtimeTurn {
  /** spoken: a tone in the session's output format, with this text as transcript deltas */
  text?: string;
  /** a function call instead of speech */
  toolCall?: { name: string; arguments: Record<string, unknown> };
  /** several function calls in the one response (each its own function_call item, in order) */
  toolCalls?: { name: string; arguments: Record<string, unknown> }[];
  /** ms between deltas (default 2): a response long enough to be interrupted */
  paceMs?: number;
  /** ms of tone per character of text (default 25) */
  msPerChar?: number;
  usage?: { input_tokens: number; output_tokens: number };
}

export interface RealtimeContext {
  /** 'client': a response.create; 'vad': the end of the caller's speech */
  trigger: 'client' | 'vad';
  /** the response.create instructions, if any */
  instructions?: string;
  /** the caller's last transcript */
  transcript?: string;
  /** the function_call_output items added since the last response */
  toolOutputs: { call_id: string; output: string }[];
}

export interface RealtimeScript {
  /** what the caller said, one per committed speech turn (default 'I would like to book a visit.') */
  transcripts?: string[];
  /** the next response (default: a greeting for the first client response, else an echo) */
  respond?: (ctx: RealtimeContext) => RealtimeTurn;
}

export interface RealtimeSessionRecord {
  model: string | null;
  headers: http.IncomingHttpHeaders;
  /** every client event, audio appends reduced to their byte count */
  events: Record<string, unknown>[];
  /** the effective session after the updates that were accepted */
  session: Record<string, unknown>;
  /** error events sent */
  errors: { code: string | null; message: string }[];
  /** bytes of input audio appended */
  audioInBytes: number;
  /** truncations applied: item and audio_end_ms */
  truncated: { item_id: string; audio_end_ms: number }[];
  /** responses and how they ended */
  responses: { id: string; status: string }[];
  closed: boolean;
}

const SESSION_KEYS = new Set([
  'type',
  'model',
  'instructions',
  'output_modalities',
  'audio',
  'tools',
  'tool_choice',
  'max_output_tokens',
  'tracing',
  'truncation',
  'prompt',
  'include',
]);
const FORMATS = new Set(['audio/pcm', 'audio/pcmu', 'audio/pcma']);

interface Conn {
  ws: WebSocket;
  record: RealtimeSessionRecord;
  inputFormat: FakeAudioFormat;
  outputFormat: FakeAudioFormat;
  vad: { threshold: number; silenceMs: number; prefixMs: number; createResponse: boolean; interruptResponse: boolean } | null;
  transcription: boolean;
  // input audio clock and VAD state
  inputMs: number;
  speaking: boolean;
  speechStartMs: number;
  silentMs: number;
  pending: Int16Array;
  userItem: string;
  lastTranscript?: string;
  transcriptIndex: number;
  // conversation
  items: Map<string, { type: string; role?: string; audioMs: number; callId?: string }>;
  lastItem: string | null;
  toolOutputs: { call_id: string; output: string }[];
  active: { id: string; cancelled: boolean } | null;
  responses: number;
}

let counter = 0;
const nextId = (prefix: string) => `${prefix}_${(++counter).toString(36).padStart(6, '0')}`;

function validateSession(s: Record<string, unknown>): { code: string; message: string; param: string } | null {
  const err = (code: string, message: string, param: string) => ({ code, message, param });
  if (s.type !== 'realtime')
    return err('missing_required_parameter', "Missing required parameter: 'session.type'.", 'session.type');
  for (const key of Object.keys(s))
    if (!SESSION_KEYS.has(key)) return err('unknown_parameter', `Unknown parameter: 'session.${key}'.`, `session.${key}`);
  const audio = (s.audio ?? {}) as Record<string, Record<string, unknown> | undefined>;
  for (const side of ['input', 'output'] as const) {
    const format = audio[side]?.format as { type?: unknown; rate?: unknown } | undefined;
    if (format === undefined) continue;
    if (typeof format !== 'object' || !FORMATS.has(String(format.type)))
      return err(
        'invalid_value',
        `Invalid value: '${typeof format === 'object' ? String(format.type) : String(format)}'. Supported values are: 'audio/pcm', 'audio/pcmu', and 'audio/pcma'.`,
        `session.audio.${side}.format.type`,
      );
    if (format.type === 'audio/pcm' && format.rate !== undefined && format.rate !== 24000)
      return err(
        'invalid_value',
        `Invalid value: ${String(format.rate)}. Supported values are: 24000.`,
        `session.audio.${side}.format.rate`,
      );
  }
  const td = audio.input?.turn_detection as Record<string, unknown> | null | undefined;
  if (td) {
    if (td.type !== 'server_vad' && td.type !== 'semantic_vad')
      return err(
        'invalid_value',
        `Invalid value: '${String(td.type)}'. Supported values are: 'server_vad' and 'semantic_vad'.`,
        'session.audio.input.turn_detection.type',
      );
    if (td.threshold !== undefined && (typeof td.threshold !== 'number' || td.threshold < 0 || td.threshold > 1))
      return err(
        'decimal_above_max_value',
        'Invalid threshold: expected a value between 0 and 1.',
        'session.audio.input.turn_detection.threshold',
      );
    if (td.silence_duration_ms !== undefined && !Number.isInteger(td.silence_duration_ms))
      return err(
        'invalid_type',
        'Invalid type for silence_duration_ms: expected an integer.',
        'session.audio.input.turn_detection.silence_duration_ms',
      );
  }
  for (const [i, t] of (Array.isArray(s.tools) ? s.tools : []).entries()) {
    const tool = t as { type?: unknown; name?: unknown; parameters?: unknown };
    if (tool.type !== 'function')
      return err('invalid_value', `Invalid value for 'session.tools[${i}].type'.`, `session.tools[${i}].type`);
    if (typeof tool.name !== 'string' || !NAME.test(tool.name))
      return err(
        'invalid_value',
        `Invalid 'session.tools[${i}].name': string does not match pattern.`,
        `session.tools[${i}].name`,
      );
    if (tool.parameters !== undefined && !isObjectSchema(tool.parameters))
      return err('invalid_function_parameters', `Invalid schema for function '${tool.name}'.`, `session.tools[${i}].parameters`);
  }
  return null;
}

const defaultRespond = (ctx: RealtimeContext): RealtimeTurn =>
  ctx.trigger === 'client' && ctx.toolOutputs.length === 0
    ? { text: 'Hello! How can I help you today?' }
    : { text: ctx.toolOutputs.length ? 'Done, that is booked.' : `You said: ${ctx.transcript ?? ''}` };

function realtimeServer(apiKey: string, script: () => RealtimeScript, records: RealtimeSessionRecord[], models?: Set<string>) {
  const wss = new WebSocketServer({ noServer: true });

  const send = (c: Conn, event: Record<string, unknown>) => {
    if (c.ws.readyState === c.ws.OPEN) c.ws.send(JSON.stringify({ event_id: nextId('event'), ...event }));
  };
  const fail = (
    c: Conn,
    code: string | null,
    message: string,
    param: string | null = null,
    type = 'invalid_request_error',
    eventId: unknown = null,
  ) => {
    c.record.errors.push({ code, message });
    send(c, { type: 'error', error: { type, code, message, param, event_id: eventId ?? null } });
  };

  async function respond(c: Conn, ctx: RealtimeContext) {
    if (c.active) {
      fail(c, 'conversation_already_has_active_response', 'Conversation already has an active response in progress.');
      return;
    }
    const turn = (script().respond ?? defaultRespond)(ctx);
    c.toolOutputs = [];
    const response = { id: nextId('resp'), cancelled: false };
    c.active = response;
    c.responses++;
    const pace = turn.paceMs ?? 2;
    send(c, {
      type: 'response.created',
      response: { id: response.id, object: 'realtime.response', status: 'in_progress', output: [] },
    });
    const output: Record<string, unknown>[] = [];
    const calls = [...(turn.toolCall ? [turn.toolCall] : []), ...(turn.toolCalls ?? [])];
    if (calls.length)
      for (const [index, toolCall] of calls.entries()) {
        const itemId = nextId('item');
        const callId = nextId('call');
        const args = JSON.stringify(toolCall.arguments);
        const item = {
          id: itemId,
          object: 'realtime.item',
          type: 'function_call',
          status: 'in_progress',
          name: toolCall.name,
          call_id: callId,
          arguments: '',
        };
        c.items.set(itemId, { type: 'function_call', audioMs: 0, callId });
        c.lastItem = itemId;
        send(c, { type: 'response.output_item.added', response_id: response.id, output_index: index, item });
        for (const piece of pieces(args, 6)) {
          send(c, {
            type: 'response.function_call_arguments.delta',
            response_id: response.id,
            item_id: itemId,
            output_index: index,
            call_id: callId,
            delta: piece,
          });
          await sleep(pace);
        }
        send(c, {
          type: 'response.function_call_arguments.done',
          response_id: response.id,
          item_id: itemId,
          output_index: index,
          call_id: callId,
          name: toolCall.name,
          arguments: args,
        });
        const done = { ...item, status: 'completed', arguments: args };
        send(c, { type: 'response.output_item.done', response_id: response.id, output_index: index, item: done });
        output.push(done);
      }
    else {
      const itemId = nextId('item');
      const entry = { type: 'message', role: 'assistant', audioMs: 0 };
      c.items.set(itemId, entry);
      c.lastItem = itemId;
      const item = {
        id: itemId,
        object: 'realtime.item',
        type: 'message',
        role: 'assistant',
        status: 'in_progress',
        content: [],
      };
      send(c, { type: 'response.output_item.added', response_id: response.id, output_index: 0, item });
      send(c, {
        type: 'response.content_part.added',
        response_id: response.id,
        item_id: itemId,
        output_index: 0,
        content_index: 0,
        part: { type: 'audio', transcript: '' },
      });
      const rate = rateOf(c.outputFormat);
      let offset = 0;
      let said = '';
      for (const piece of pieces(turn.text ?? '', 6)) {
        if (response.cancelled || c.ws.readyState !== c.ws.OPEN) break;
        const samples = tone(rate, piece.length * (turn.msPerChar ?? 25), 440, 0.25, offset);
        offset += samples.length;
        entry.audioMs += (samples.length * 1000) / rate;
        said += piece;
        const ids = { response_id: response.id, item_id: itemId, output_index: 0, content_index: 0 };
        send(c, { type: 'response.output_audio_transcript.delta', ...ids, delta: piece });
        send(c, {
          type: 'response.output_audio.delta',
          ...ids,
          delta: Buffer.from(encode(c.outputFormat, samples)).toString('base64'),
        });
        await sleep(pace);
      }
      const ids = { response_id: response.id, item_id: itemId, output_index: 0, content_index: 0 };
      send(c, { type: 'response.output_audio.done', ...ids });
      send(c, { type: 'response.output_audio_transcript.done', ...ids, transcript: said });
      const status = response.cancelled ? 'incomplete' : 'completed';
      const done = { ...item, status, content: [{ type: 'output_audio', transcript: said }] };
      send(c, { type: 'response.content_part.done', ...ids, part: { type: 'audio', transcript: said } });
      send(c, { type: 'response.output_item.done', response_id: response.id, output_index: 0, item: done });
      output.push(done);
    }
    const status = response.cancelled ? 'cancelled' : 'completed';
    const usage = turn.usage ?? {
      input_tokens: 40 + 10 * c.responses,
      output_tokens: Math.max(1, Math.ceil((turn.text ?? '').length / 2)),
    };
    send(c, {
      type: 'response.done',
      response: {
        id: response.id,
        object: 'realtime.response',
        status,
        status_details: response.cancelled ? { type: 'cancelled', reason: 'client_cancelled' } : null,
        output,
        usage: { ...usage, total_tokens: usage.input_tokens + usage.output_tokens },
      },
    });
    c.record.responses.push({ id: response.id, status });
    if (c.active === response) c.active = null;
  }

  function onSpeechEnd(c: Conn) {
    const itemId = c.userItem;
    send(c, { type: 'input_audio_buffer.speech_stopped', audio_end_ms: Math.round(c.inputMs), item_id: itemId });
    send(c, { type: 'input_audio_buffer.committed', previous_item_id: c.lastItem, item_id: itemId });
    const item = {
      id: itemId,
      object: 'realtime.item',
      type: 'message',
      role: 'user',
      status: 'completed',
      content: [{ type: 'input_audio', transcript: null }],
    };
    send(c, { type: 'conversation.item.added', previous_item_id: c.lastItem, item });
    send(c, { type: 'conversation.item.done', previous_item_id: c.lastItem, item });
    c.items.set(itemId, { type: 'message', role: 'user', audioMs: 0 });
    c.lastItem = itemId;
    const transcripts = script().transcripts ?? ['I would like to book a visit.'];
    const transcript = transcripts[Math.min(c.transcriptIndex++, transcripts.length - 1)] ?? '';
    c.lastTranscript = transcript;
    if (c.transcription) {
      send(c, {
        type: 'conversation.item.input_audio_transcription.delta',
        item_id: itemId,
        content_index: 0,
        delta: transcript,
      });
      send(c, {
        type: 'conversation.item.input_audio_transcription.completed',
        item_id: itemId,
        content_index: 0,
        transcript,
        usage: { type: 'duration', seconds: 1 },
      });
    }
    if (c.vad?.createResponse) void respond(c, { trigger: 'vad', transcript, toolOutputs: c.toolOutputs });
  }

  /** Energy VAD over 10 ms windows of the decoded input. */
  function onAudio(c: Conn, samples: Int16Array) {
    if (!c.vad) return;
    const rate = rateOf(c.inputFormat);
    const window = rate / 100;
    let all = new Int16Array(c.pending.length + samples.length);
    all.set(c.pending);
    all.set(samples, c.pending.length);
    let i = 0;
    for (; i + window <= all.length; i += window) {
      const loud = rms(all.subarray(i, i + window)) > c.vad.threshold * 0.1;
      c.inputMs += 10;
      if (loud) {
        c.silentMs = 0;
        if (!c.speaking) {
          c.speaking = true;
          c.speechStartMs = Math.max(0, c.inputMs - 10 - c.vad.prefixMs);
          c.userItem = nextId('item');
          send(c, {
            type: 'input_audio_buffer.speech_started',
            audio_start_ms: Math.round(c.speechStartMs),
            item_id: c.userItem,
          });
          if (c.vad.interruptResponse && c.active) c.active.cancelled = true;
        }
      } else if (c.speaking) {
        c.silentMs += 10;
        if (c.silentMs >= c.vad.silenceMs) {
          c.speaking = false;
          c.silentMs = 0;
          onSpeechEnd(c);
        }
      }
    }
    all = all.slice(i);
    c.pending = all;
  }

  function applySession(c: Conn, s: Record<string, unknown>) {
    const audio = (s.audio ?? {}) as { input?: Record<string, unknown>; output?: Record<string, unknown> };
    const inFormat = audio.input?.format as { type: FakeAudioFormat } | undefined;
    const outFormat = audio.output?.format as { type: FakeAudioFormat } | undefined;
    if (inFormat) c.inputFormat = inFormat.type;
    if (outFormat) c.outputFormat = outFormat.type;
    if (audio.input && 'turn_detection' in audio.input) {
      const td = audio.input.turn_detection as Record<string, unknown> | null;
      c.vad = td
        ? {
            threshold: (td.threshold as number | undefined) ?? 0.5,
            silenceMs: (td.silence_duration_ms as number | undefined) ?? 500,
            prefixMs: (td.prefix_padding_ms as number | undefined) ?? 300,
            createResponse: (td.create_response as boolean | undefined) ?? true,
            interruptResponse: (td.interrupt_response as boolean | undefined) ?? true,
          }
        : null;
    }
    if (audio.input && 'transcription' in audio.input) c.transcription = !!audio.input.transcription;
    c.record.session = { ...c.record.session, ...s, audio: { ...(c.record.session.audio as object), ...audio } };
  }

  function onMessage(c: Conn, raw: string) {
    let event: Record<string, unknown>;
    try {
      event = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      fail(c, 'invalid_json', 'The server could not parse the event as JSON.');
      return;
    }
    const eventId = event.event_id;
    if (event.type === 'input_audio_buffer.append') {
      const bytes = Buffer.from(String(event.audio ?? ''), 'base64');
      c.record.events.push({ type: event.type, bytes: bytes.length });
      c.record.audioInBytes += bytes.length;
      onAudio(c, decode(c.inputFormat, bytes));
      return;
    }
    c.record.events.push(event);
    switch (event.type) {
      case 'session.update': {
        const s = (event.session ?? {}) as Record<string, unknown>;
        const problem = validateSession(s);
        if (problem) return fail(c, problem.code, problem.message, problem.param, 'invalid_request_error', eventId);
        applySession(c, s);
        return send(c, { type: 'session.updated', session: c.record.session });
      }
      case 'response.create': {
        const params = (event.response ?? {}) as { instructions?: string };
        return void respond(c, {
          trigger: 'client',
          instructions: params.instructions,
          transcript: c.lastTranscript,
          toolOutputs: c.toolOutputs,
        });
      }
      case 'response.cancel': {
        if (!c.active || c.active.cancelled)
          return fail(
            c,
            'response_cancel_not_active',
            'Cancellation failed: no active response found',
            null,
            'invalid_request_error',
            eventId,
          );
        c.active.cancelled = true;
        return;
      }
      case 'conversation.item.truncate': {
        const item = c.items.get(String(event.item_id));
        if (item?.type !== 'message' || item.role !== 'assistant')
          return fail(
            c,
            'item_truncate_invalid_item_id',
            'Only assistant messages can be truncated',
            'item_id',
            'invalid_request_error',
            eventId,
          );
        if (event.content_index !== 0)
          return fail(c, 'invalid_value', 'content_index must be 0', 'content_index', 'invalid_request_error', eventId);
        const end = event.audio_end_ms;
        if (typeof end !== 'number' || !Number.isInteger(end) || end < 0 || end > item.audioMs)
          return fail(
            c,
            'invalid_value',
            `Audio content of ${Math.round(item.audioMs)}ms is already shorter than ${String(end)}ms`,
            'audio_end_ms',
            'invalid_request_error',
            eventId,
          );
        item.audioMs = end;
        c.record.truncated.push({ item_id: String(event.item_id), audio_end_ms: end });
        return send(c, { type: 'conversation.item.truncated', item_id: event.item_id, content_index: 0, audio_end_ms: end });
      }
      case 'conversation.item.create': {
        const item = (event.item ?? {}) as { type?: string; call_id?: string; output?: unknown };
        if (item.type === 'function_call_output') {
          const known = [...c.items.values()].some((i) => i.type === 'function_call' && i.callId === item.call_id);
          if (!known)
            return fail(
              c,
              'invalid_value',
              `Tool call ID '${String(item.call_id)}' not found in conversation.`,
              'item.call_id',
              'invalid_request_error',
              eventId,
            );
          if (typeof item.output !== 'string')
            return fail(c, 'invalid_type', "Invalid type for 'item.output'", 'item.output', 'invalid_request_error', eventId);
          c.toolOutputs.push({ call_id: item.call_id as string, output: item.output });
        }
        const id = nextId('item');
        c.items.set(id, { type: item.type ?? 'message', audioMs: 0 });
        const added = { id, object: 'realtime.item', status: 'completed', ...item };
        send(c, { type: 'conversation.item.added', previous_item_id: c.lastItem, item: added });
        send(c, { type: 'conversation.item.done', previous_item_id: c.lastItem, item: added });
        c.lastItem = id;
        return;
      }
      case 'input_audio_buffer.clear':
        c.pending = new Int16Array(0);
        return send(c, { type: 'input_audio_buffer.cleared' });
      default:
        return fail(c, 'invalid_value', `Invalid value: '${String(event.type)}'.`, 'type', 'invalid_request_error', eventId);
    }
  }

  function handleUpgrade(req: http.IncomingMessage, socket: import('node:stream').Duplex, head: Buffer) {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname !== '/v1/realtime') {
      socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const record: RealtimeSessionRecord = {
        model: url.searchParams.get('model'),
        headers: req.headers,
        events: [],
        session: {},
        errors: [],
        audioInBytes: 0,
        truncated: [],
        responses: [],
        closed: false,
      };
      records.push(record);
      const c: Conn = {
        ws,
        record,
        inputFormat: 'audio/pcm',
        outputFormat: 'audio/pcm',
        vad: { threshold: 0.5, silenceMs: 500, prefixMs: 300, createResponse: true, interruptResponse: true },
        transcription: false,
        inputMs: 0,
        speaking: false,
        speechStartMs: 0,
        silentMs: 0,
        pending: new Int16Array(0),
        userItem: '',
        transcriptIndex: 0,
        items: new Map(),
        lastItem: null,
        toolOutputs: [],
        active: null,
        responses: 0,
      };
      ws.on('close', () => {
        record.closed = true;
        if (c.active) c.active.cancelled = true;
      });
      const refuse = (code: string, message: string, closeCode: number) => {
        fail(c, code, message);
        ws.close(closeCode, `invalid_request_error.${code}`);
      };
      if (req.headers['openai-beta'] === 'realtime=v1')
        return refuse(
          'beta_api_shape_disabled',
          'The Realtime Beta API is no longer supported. Please use /v1/realtime for the GA API.',
          4000,
        );
      if (req.headers.authorization !== `Bearer ${apiKey}`)
        return refuse(
          'invalid_api_key',
          'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.',
          3000,
        );
      if (!record.model || (models && !models.has(record.model)))
        return refuse(
          'model_not_found',
          `The model '${record.model ?? ''}' does not exist or you do not have access to it.`,
          4000,
        );
      ws.on('message', (data, isBinary) => {
        if (isBinary) return fail(c, 'invalid_value', 'Binary frames are not supported; send JSON events.');
        onMessage(c, data.toString());
      });
      record.session = {
        type: 'realtime',
        object: 'realtime.session',
        id: nextId('sess'),
        model: record.model,
        output_modalities: ['audio'],
        instructions: '',
        audio: {
          input: {
            format: { type: 'audio/pcm', rate: 24000 },
            transcription: null,
            turn_detection: {
              type: 'server_vad',
              threshold: 0.5,
              prefix_padding_ms: 300,
              silence_duration_ms: 500,
              create_response: true,
              interrupt_response: true,
            },
          },
          output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'alloy', speed: 1 },
        },
        tools: [],
        tool_choice: 'auto',
      };
      send(c, { type: 'session.created', session: record.session });
    });
  }

  return {
    upgrade: handleUpgrade,
    drop: () => {
      for (const ws of wss.clients) ws.terminate();
    },
  };
}

// ---------------------------------------------------------------------------------------------

export interface FakeOpenAi extends Listening {
  apiKey: string;
  chatRequests: ChatRequestRecord[];
  realtimeSessions: RealtimeSessionRecord[];
  /** replace the chat script (a queue of replies, or a function of the request) */
  scriptChat(script: ChatScript): void;
  scriptRealtime(script: RealtimeScript): void;
  /** drop every Realtime connection (a provider outage) */
  dropRealtime(): void;
}

export interface FakeOpenAiOptions {
  apiKey?: string;
  chat?: ChatScript;
  realtime?: RealtimeScript;
  /** the model ids served; others answer model_not_found (default: any) */
  models?: string[];
}

export async function startFakeOpenAi(options: FakeOpenAiOptions = {}): Promise<FakeOpenAi> {
  const apiKey = options.apiKey ?? 'sk-test-fake-openai-key-0001';
  let chat: ChatScript = options.chat ?? [];
  let realtime: RealtimeScript = options.realtime ?? {};
  const models = options.models ? new Set(options.models) : undefined;
  const chatRequests: ChatRequestRecord[] = [];
  const realtimeSessions: RealtimeSessionRecord[] = [];

  /** The 401 of a missing or wrong Bearer key, sent; false when the key is right. */
  const refusedKey = (auth: string | undefined, res: Parameters<Parameters<typeof listen>[0]>[1]): boolean => {
    if (!auth?.startsWith('Bearer ')) {
      sendJson(
        res,
        401,
        openAiError(
          "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        ),
      );
      return true;
    }
    if (auth !== `Bearer ${apiKey}`) {
      const given = auth.slice(7);
      sendJson(
        res,
        401,
        openAiError(
          `Incorrect API key provided: ${given.slice(0, 3)}*****${given.slice(-4)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
          'invalid_request_error',
          null,
          'invalid_api_key',
        ),
      );
      return true;
    }
    return false;
  };

  const server = await listen(async (req, res) => {
    if (req.method === 'GET' && new URL(req.url ?? '/', 'http://fake').pathname === '/v1/models') {
      if (refusedKey(req.headers.authorization, res)) return;
      const data = [...(models ?? ['gpt-4o', 'gpt-4o-mini'])].map((id) => ({
        id,
        object: 'model',
        created: 1715367049,
        owned_by: 'system',
      }));
      return sendJson(res, 200, { object: 'list', data });
    }
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      sendJson(res, 404, openAiError(`Invalid URL (${req.method} ${req.url})`));
      return;
    }
    const auth = req.headers.authorization;
    const { record, body } = await receive(req);
    chatRequests.push(record);
    if (refusedKey(auth, res)) return;
    const problem = checkChat(body, models);
    if (problem) return sendJson(res, problem.status, problem.body);
    const reply =
      typeof chat === 'function' ? await chat(body as ChatBody) : (chat.shift() ?? { text: 'Hello from the fake OpenAI.' });
    await streamChat(res, body as ChatBody, reply, record);
  });
  const realtimeWs = realtimeServer(apiKey, () => realtime, realtimeSessions, models);
  server.server.on('upgrade', realtimeWs.upgrade);

  return {
    ...server,
    apiKey,
    chatRequests,
    realtimeSessions,
    scriptChat: (script) => {
      chat = script;
    },
    dropRealtime: realtimeWs.drop,
    scriptRealtime: (script) => {
      realtime = script;
    },
  };
}
