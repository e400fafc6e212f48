/**
 * A fake Anthropic Messages API on 127.0.0.1, streaming the documented SSE events and refusing what the
 * real API refuses.
 *
 * Documents read (found with the search tool):
 * - Messages: https://docs.anthropic.com/en/api/messages (required `model`, `max_tokens`, `messages`;
 *   `system` top level; `tools: [{name, description, input_schema}]`; `tool_use` / `tool_result` blocks;
 *   tool_result blocks first in their user message; the first message uses the `user` role).
 * - Streaming: https://docs.anthropic.com/en/api/messages-streaming (event: message_start with
 *   usage.input_tokens, content_block_start / content_block_delta (text_delta, input_json_delta) /
 *   content_block_stop, message_delta with stop_reason and usage.output_tokens, message_stop, ping, and an
 *   `error` event such as overloaded_error mid-stream).
 * - Tool use: https://docs.anthropic.com/en/docs/build-with-claude/tool-use (`tool_choice`: `{type: 'auto' | 'any'
 *   | 'none'}` or `{type: 'tool', name}` forcing that tool; a forced tool is answered with a tool_use block and
 *   no text before it; JSON output as a forced tool whose `input_schema` is the wanted shape), cross-read with
 *   typed clients' docs found by the search tool (LangChain `AnthropicToolChoiceTool` `{type: 'tool', name}`,
 *   koog `AnthropicToolChoice` auto/any/none/tool).
 * - Errors: https://docs.anthropic.com/en/api/errors (`{"type": "error", "error": {type, message}}`;
 *   401 authentication_error, 400 invalid_request_error, 404 not_found_error, 429 rate_limit_error,
 *   529 overloaded_error); the `x-api-key` and `anthropic-version` headers
 *   (https://docs.anthropic.com/en/api/versioning).
 * - List Models: https://docs.anthropic.com/en/api/models-list (GET /v1/models, `x-api-key` and
 *   `anthropic-version`; answers {data: [{type: 'model', id, display_name, created_at}], has_more, first_id,
 *   last_id}): the Providers page's key check.
 * - Retired models answer 404 not_found_error (https://docs.claude.com/en/docs/about-claude/model-deprecations;
 *   claude-3-5-sonnet-* retired 2025-10-28, claude-3-haiku-20240307 on 2026-04-20): `models` lists what this
 *   fake serves.
 */
import type http from 'node:http';
import {
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

export interface AnthropicReply {
  text?: string;
  toolUses?: { id?: string; name: string; input: Record<string, unknown> }[];
  stopReason?: string;
  usage?: { input_tokens: number; output_tokens: number };
  /** answer this error instead (status + Anthropic's error type) */
  error?: { status: number; type: string; message: string };
  firstByteDelayMs?: number;
  /** drop the connection after this many text deltas */
  dropAfterDeltas?: number;
  /** send an `event: error` (overloaded_error) after this many text deltas */
  errorAfterDeltas?: number;
  paceMs?: number;
}

export type AnthropicRequestRecord = StreamRequestRecord;

type Block = {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
};
interface MessagesBody {
  model: string;
  max_tokens: number;
  system?: unknown;
  messages: { role: string; content: string | Block[] }[];
  tools?: unknown[];
  [k: string]: unknown;
}
type AnthropicScript = AnthropicReply[] | ((body: MessagesBody) => AnthropicReply | Promise<AnthropicReply>);

const PARAMS = new Set([
  'model',
  'max_tokens',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'temperature',
  'top_p',
  'top_k',
  'stream',
  'stop_sequences',
  'metadata',
]);
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const errorBody = (type: string, message: string) => ({ type: 'error', error: { type, message } });

function checkMessages(body: unknown, models: Set<string> | undefined): { status: number; body: unknown } | null {
  const bad = (message: string) => ({ status: 400, body: errorBody('invalid_request_error', message) });
  if (!body || typeof body !== 'object') return bad('There was an error parsing the body of your request');
  const b = body as MessagesBody;
  for (const key of Object.keys(b)) if (!PARAMS.has(key)) return bad(`${key}: Extra inputs are not permitted`);
  if (typeof b.model !== 'string' || !b.model) return bad('model: Field required');
  if (typeof b.max_tokens !== 'number') return bad('max_tokens: Field required');
  if (!Number.isInteger(b.max_tokens) || b.max_tokens < 1) return bad('max_tokens: Input should be greater than or equal to 1');
  if (!Array.isArray(b.messages)) return bad('messages: Field required');
  if (b.messages.length === 0) return bad('messages: at least one message is required');
  if (b.temperature !== undefined && (typeof b.temperature !== 'number' || b.temperature < 0 || b.temperature > 1))
    return bad('temperature: Input should be less than or equal to 1');
  if (b.system !== undefined && typeof b.system !== 'string' && !Array.isArray(b.system))
    return bad('system: Input should be a valid string');
  const toolUses = new Set<string>();
  for (const [i, m] of b.messages.entries()) {
    if (m.role !== 'user' && m.role !== 'assistant') return bad(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    if (i === 0 && m.role !== 'user') return bad('messages: first message must use the "user" role');
    if (i > 0 && b.messages[i - 1]?.role === m.role) return bad('messages: roles must alternate between "user" and "assistant"');
    const blocks: Block[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    if (!Array.isArray(blocks) || blocks.length === 0) return bad(`messages.${i}: all messages must have non-empty content`);
    let seenOther = false;
    for (const block of blocks) {
      if (block.type === 'text' && !block.text) return bad(`messages.${i}: text content blocks must be non-empty`);
      if (block.type === 'tool_use') {
        if (m.role !== 'assistant') return bad(`messages.${i}: tool_use blocks are only allowed in assistant messages`);
        if (!block.id || typeof block.input !== 'object')
          return bad(`messages.${i}: tool_use blocks need an id and an input object`);
        toolUses.add(block.id);
      }
      if (block.type === 'tool_result') {
        if (m.role !== 'user') return bad(`messages.${i}: tool_result blocks are only allowed in user messages`);
        if (seenOther) return bad(`messages.${i}: tool_result blocks must come first in the content`);
        if (!block.tool_use_id || !toolUses.has(block.tool_use_id))
          return bad(
            `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
          );
      } else seenOther = true;
    }
  }
  for (const [i, t] of (Array.isArray(b.tools) ? b.tools : []).entries()) {
    const tool = t as { name?: unknown; input_schema?: unknown };
    if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name))
      return bad(`tools.${i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`);
    if (!isObjectSchema(tool.input_schema)) return bad(`tools.${i}.custom.input_schema.type: Input should be 'object'`);
  }
  if (b.tool_choice !== undefined) {
    const problem = checkToolChoice(b.tool_choice, Array.isArray(b.tools) ? b.tools : undefined);
    if (problem) return bad(problem);
  }
  if (b.stream !== true) return bad('This fake answers streamed requests only (stream: true).');
  if (models && !models.has(b.model)) return { status: 404, body: errorBody('not_found_error', `model: ${b.model}`) };
  return null;
}

/**
 * `tool_choice` as the Messages API checks it: `{type: 'auto' | 'any' | 'none'}` or `{type: 'tool', name}` naming
 * one of the request's tools (`disable_parallel_tool_use` allowed except with 'none'); only with tools.
 */
function checkToolChoice(choice: unknown, tools: unknown[] | undefined): string | null {
  const c = (choice ?? {}) as { type?: unknown; name?: unknown; [k: string]: unknown };
  if (!['auto', 'any', 'tool', 'none'].includes(c.type as string))
    return `tool_choice: Input tag '${String(c.type)}' found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'`;
  const allowed = c.type === 'tool' ? ['type', 'name', 'disable_parallel_tool_use'] : ['type', 'disable_parallel_tool_use'];
  for (const key of Object.keys(c))
    if (!allowed.includes(key) || (c.type === 'none' && key !== 'type'))
      return `tool_choice.${String(c.type)}.${key}: Extra inputs are not permitted`;
  if (c.type === 'none') return null;
  if (!tools?.length) return 'tool_choice: tool_choice may only be specified while providing tools.';
  if (c.type !== 'tool') return null;
  if (typeof c.name !== 'string') return 'tool_choice.tool.name: Field required';
  if (!tools.some((t) => (t as { name?: unknown }).name === c.name))
    return `tool_choice: Tool '${c.name}' not found in the provided tools.`;
  return null;
}

async function streamMessage(
  res: http.ServerResponse,
  body: MessagesBody,
  reply: AnthropicReply,
  record: AnthropicRequestRecord,
) {
  const answer = sseAnswer(res, record, reply.paceMs);
  if (reply.firstByteDelayMs) await sleep(reply.firstByteDelayMs);
  if (answer.closed()) return;
  if (reply.error) return sendJson(res, reply.error.status, errorBody(reply.error.type, reply.error.message));
  answer.start({ 'request-id': 'req_fake' });
  const send = (event: string, data: Record<string, unknown>) =>
    answer.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  const usage = reply.usage ?? {
    input_tokens: Math.ceil(JSON.stringify(body.messages).length / 4),
    output_tokens: Math.max(1, Math.ceil((reply.text ?? '').length / 4)),
  };
  const message = {
    id: 'msg_fake01',
    type: 'message',
    role: 'assistant',
    content: [],
    model: body.model,
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: usage.input_tokens, output_tokens: 1 },
  };
  if (!(await send('message_start', { message }))) return;
  let index = 0;
  // a forced tool (tool_choice any or tool) is answered with a tool_use block and no text before it
  const forced = (body.tool_choice ?? {}) as { type?: string; name?: string };
  if (forced.type === 'tool' || forced.type === 'any') {
    const used = reply.toolUses?.[0]?.name;
    if (reply.text || !used || (forced.type === 'tool' && used !== forced.name)) {
      await send('error', {
        error: { type: 'api_error', message: `fake Anthropic: the script must answer the forced tool ${forced.name ?? ''}` },
      });
      return void res.end();
    }
  }
  if (reply.text) {
    if (!(await send('content_block_start', { index, content_block: { type: 'text', text: '' } }))) return;
    if (!(await send('ping', {}))) return;
    let deltas = 0;
    for (const piece of pieces(reply.text)) {
      if (reply.dropAfterDeltas !== undefined && deltas >= reply.dropAfterDeltas) return void res.destroy();
      if (reply.errorAfterDeltas !== undefined && deltas >= reply.errorAfterDeltas) {
        await send('error', { error: { type: 'overloaded_error', message: 'Overloaded' } });
        return void res.end();
      }
      if (!(await send('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }))) return;
      deltas++;
    }
    if (!(await send('content_block_stop', { index }))) return;
    index++;
  }
  for (const [n, use] of (reply.toolUses ?? []).entries()) {
    const id = use.id ?? `toolu_fake${n}`;
    if (!(await send('content_block_start', { index, content_block: { type: 'tool_use', id, name: use.name, input: {} } })))
      return;
    for (const piece of pieces(JSON.stringify(use.input), 7))
      if (!(await send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } }))) return;
    if (!(await send('content_block_stop', { index }))) return;
    index++;
  }
  const stop = reply.stopReason ?? (reply.toolUses?.length ? 'tool_use' : 'end_turn');
  if (
    !(await send('message_delta', {
      delta: { stop_reason: stop, stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    }))
  )
    return;
  if (await send('message_stop', {})) answer.finish();
}

export interface FakeAnthropic extends Listening {
  apiKey: string;
  requests: AnthropicRequestRecord[];
  script(script: AnthropicScript): void;
}

export interface FakeAnthropicOptions {
  apiKey?: string;
  replies?: AnthropicScript;
  /** the model ids served; others answer 404 not_found_error (default: any) */
  models?: string[];
}

export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const apiKey = options.apiKey ?? 'sk-ant-test-fake-key-0001';
  let replies: AnthropicScript = options.replies ?? [];
  const models = options.models ? new Set(options.models) : undefined;
  const requests: AnthropicRequestRecord[] = [];
  const server = await listen(async (req, res) => {
    if (req.method === 'GET' && new URL(req.url ?? '/', 'http://fake').pathname === '/v1/models') {
      // List Models: the same key and version checks as the Messages API
      if (!req.headers['x-api-key']) return sendJson(res, 401, errorBody('authentication_error', 'x-api-key header is required'));
      if (req.headers['x-api-key'] !== apiKey) return sendJson(res, 401, errorBody('authentication_error', 'invalid x-api-key'));
      if (!req.headers['anthropic-version'])
        return sendJson(res, 400, errorBody('invalid_request_error', 'anthropic-version: header is required'));
      const data = [...(models ?? ['claude-sonnet-4-5'])].map((id) => ({
        type: 'model',
        id,
        display_name: id,
        created_at: '2025-09-29T00:00:00Z',
      }));
      return sendJson(res, 200, { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
    }
    if (req.method !== 'POST' || req.url !== '/v1/messages') return sendJson(res, 404, errorBody('not_found_error', 'Not Found'));
    const { record, body } = await receive(req);
    requests.push(record);
    if (!req.headers['x-api-key']) return sendJson(res, 401, errorBody('authentication_error', 'x-api-key header is required'));
    if (req.headers['x-api-key'] !== apiKey) return sendJson(res, 401, errorBody('authentication_error', 'invalid x-api-key'));
    if (!req.headers['anthropic-version'])
      return sendJson(res, 400, errorBody('invalid_request_error', 'anthropic-version: header is required'));
    if (req.headers['anthropic-version'] !== '2023-06-01' && req.headers['anthropic-version'] !== '2023-01-01')
      return sendJson(
        res,
        400,
        errorBody(
          'invalid_request_error',
          `anthropic-version: ${String(req.headers['anthropic-version'])} is not a valid version`,
        ),
      );
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json'))
      return sendJson(res, 400, errorBody('invalid_request_error', 'content-type must be application/json'));
    const problem = checkMessages(body, models);
    if (problem) return sendJson(res, problem.status, problem.body);
    const reply =
      typeof replies === 'function'
        ? await replies(body as MessagesBody)
        : (replies.shift() ?? { text: 'Hello from the fake Anthropic.' });
    await streamMessage(res, body as MessagesBody, reply, record);
  });
  return {
    ...server,
    apiKey,
    requests,
    script: (s) => {
      replies = s;
    },
  };
}
