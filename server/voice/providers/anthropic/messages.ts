/**
 * Anthropic Messages API, streamed (LlmProvider 'anthropic').
 *
 * Sends `POST {baseUrl}/v1/messages` with headers `x-api-key`, `anthropic-version: 2023-06-01`,
 * `content-type: application/json`, and `{model, max_tokens, system?, messages, tools?: [{name, description,
 * input_schema}], tool_choice?, temperature (clamped to 0-1), stream: true}`. A structured answer
 * (LlmRequest.structuredOutput) is asked for as one more tool whose `input_schema` is the schema, forced with
 * `tool_choice: {type: 'tool', name}` (https://docs.anthropic.com/en/docs/build-with-claude/tool-use, "Forcing
 * tool use", and the JSON mode recipe there); that tool's `input_json_delta` pieces are yielded as `delta` text,
 * so the answer reads as one JSON object, and its stop_reason `tool_use` as `stop`. Messages are converted from LlmMessage:
 * system messages join into the top-level `system`; assistant tool calls become `tool_use` blocks and tool
 * results `tool_result` blocks of a user message (first in it, as the API requires); consecutive messages of
 * one role merge into one turn; empty texts are dropped; a conversation that starts with the agent (a
 * welcome message) gets a short user turn first, since the first message must use the user role.
 * Reads the SSE events: message_start (usage.input_tokens), content_block_start (text | tool_use with id and
 * name), content_block_delta (text_delta -> a `delta` event; input_json_delta pieces assembled),
 * content_block_stop (a `tool_call` event for a tool_use block), message_delta (stop_reason,
 * usage.output_tokens), message_stop (`usage`, then `done`); ping is ignored; an `error` event throws.
 */
import { DEFAULT_LIMITS, errorFromAnswer, parseJson, postSse, type StreamOptions } from '../http-stream.js';
import { parseArguments } from '../tool-args.js';
import {
  type LlmEvent,
  type LlmMessage,
  type LlmProvider,
  type LlmRequest,
  ProviderError,
  type ProviderErrorKind,
} from '../types.js';
import { httpUrl } from '../urls.js';

export const ANTHROPIC_VERSION = '2023-06-01';

/** The user turn put before a conversation the agent opened (the API wants a user turn first). */
export const CALL_STARTED_TURN = '(The call has started.)';

type TextBlock = { type: 'text'; text: string };
type ToolUseBlock = { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };
type ToolResultBlock = { type: 'tool_result'; tool_use_id: string; content: string };
type Block = TextBlock | ToolUseBlock | ToolResultBlock;
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

/** LlmMessage[] -> {system, messages} in the Messages API's shape. */
export function toAnthropicMessages(input: LlmMessage[]): { system: string; messages: AnthropicMessage[] } {
  const system: string[] = [];
  const messages: AnthropicMessage[] = [];
  const push = (role: 'user' | 'assistant', blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = messages.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  const text = (t: string): Block[] => (t.trim() ? [{ type: 'text', text: t }] : []);
  for (const m of input) {
    if (m.role === 'system') {
      if (m.content.trim()) system.push(m.content);
    } else if (m.role === 'user') push('user', text(m.content));
    else if (m.role === 'assistant')
      push('assistant', [
        ...text(m.content),
        ...(m.toolCalls ?? []).map((c): Block => ({ type: 'tool_use', id: c.id, name: c.name, input: c.arguments })),
      ]);
    else push('user', [{ type: 'tool_result', tool_use_id: m.toolCallId, content: m.content }]);
  }
  // tool results first in each user turn
  for (const m of messages)
    if (m.role === 'user') m.content.sort((a, b) => Number(b.type === 'tool_result') - Number(a.type === 'tool_result'));
  if (messages[0]?.role !== 'user') messages.unshift({ role: 'user', content: [{ type: 'text', text: CALL_STARTED_TURN }] });
  return { system: system.join('\n\n'), messages };
}

interface StreamEvent {
  type: string;
  index?: number;
  message?: { usage?: { input_tokens?: number; cache_creation_input_tokens?: number; cache_read_input_tokens?: number } };
  content_block?: { type: string; id?: string; name?: string };
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null };
  usage?: { output_tokens?: number };
  error?: { type?: string; message?: string };
}

const STOP: Record<string, 'stop' | 'tool_calls' | 'length'> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'tool_calls',
  max_tokens: 'length',
};

/** The kind of an error event's type (errors inside a 200 stream). */
const ERROR_KINDS: Record<string, ProviderErrorKind> = {
  authentication_error: 'auth',
  permission_error: 'auth',
  rate_limit_error: 'rate_limited',
  invalid_request_error: 'bad_request',
  not_found_error: 'bad_request',
  request_too_large: 'bad_request',
  overloaded_error: 'unavailable',
  api_error: 'unavailable',
};

export function createAnthropic(limits: StreamOptions = {}): LlmProvider {
  const effective = { ...DEFAULT_LIMITS, ...limits };
  return {
    name: 'anthropic',
    async *stream(request: LlmRequest): AsyncGenerator<LlmEvent> {
      const { system, messages } = toAnthropicMessages(request.messages);
      // a structured answer is asked for as a forced tool whose input is the answer
      const shape = request.structuredOutput;
      const tools = [
        ...request.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })),
        ...(shape ? [{ name: shape.name, description: shape.description, input_schema: shape.schema }] : []),
      ];
      const body = {
        model: request.model,
        max_tokens: request.maxTokens,
        ...(system ? { system } : {}),
        messages,
        ...(tools.length > 0 ? { tools } : {}),
        ...(shape ? { tool_choice: { type: 'tool', name: shape.name } } : {}),
        temperature: Math.min(1, Math.max(0, request.temperature)),
        stream: true,
      };
      let inputTokens = 0;
      let outputTokens = 0;
      let finishReason: 'stop' | 'tool_calls' | 'length' | 'other' = 'other';
      const blocks = new Map<number, { id: string; name: string; json: string }>();
      /** indexes of the forced tool's blocks (the structured answer) */
      const answer = new Set<number>();
      let otherCalls = false;
      for await (const sse of postSse({
        provider: 'anthropic',
        url: httpUrl(request.baseUrl, '/v1/messages'),
        headers: { 'x-api-key': request.apiKey, 'anthropic-version': ANTHROPIC_VERSION },
        body,
        apiKey: request.apiKey,
        signal: request.signal,
        publicOnly: request.publicOnly ?? false,
        limits: effective,
        observe: limits.observe,
      })) {
        const event = parseJson<StreamEvent>('anthropic', sse.data);
        switch (event.type) {
          case 'message_start': {
            const u = event.message?.usage;
            inputTokens = (u?.input_tokens ?? 0) + (u?.cache_creation_input_tokens ?? 0) + (u?.cache_read_input_tokens ?? 0);
            break;
          }
          case 'content_block_start':
            if (event.content_block?.type === 'tool_use' && shape && event.content_block.name === shape.name)
              answer.add(event.index ?? 0);
            else if (event.content_block?.type === 'tool_use')
              blocks.set(event.index ?? 0, { id: event.content_block.id ?? '', name: event.content_block.name ?? '', json: '' });
            break;
          case 'content_block_delta':
            if (event.delta?.type === 'text_delta' && event.delta.text)
              yield { type: 'delta', text: event.delta.text, at: performance.now() };
            else if (event.delta?.type === 'input_json_delta' && answer.has(event.index ?? 0)) {
              // the forced tool's input is the structured answer: its JSON is the text
              if (event.delta.partial_json) yield { type: 'delta', text: event.delta.partial_json, at: performance.now() };
            } else if (event.delta?.type === 'input_json_delta') {
              const block = blocks.get(event.index ?? 0);
              if (block) block.json += event.delta.partial_json ?? '';
            }
            break;
          case 'content_block_stop': {
            const block = blocks.get(event.index ?? 0);
            if (block) {
              blocks.delete(event.index ?? 0);
              otherCalls = true;
              const call = { id: block.id, name: block.name, arguments: parseArguments('anthropic', block.name, block.json) };
              yield { type: 'tool_call', call, at: performance.now() };
            }
            break;
          }
          case 'message_delta':
            if (event.delta?.stop_reason)
              finishReason =
                shape && event.delta.stop_reason === 'tool_use' && answer.size > 0 && !otherCalls
                  ? 'stop'
                  : (STOP[event.delta.stop_reason] ?? 'other');
            if (event.usage?.output_tokens !== undefined) outputTokens = event.usage.output_tokens;
            break;
          case 'message_stop':
            yield { type: 'usage', inputTokens, outputTokens };
            yield { type: 'done', finishReason };
            return;
          case 'error': {
            const kind = ERROR_KINDS[event.error?.type ?? ''] ?? 'unavailable';
            throw errorFromAnswer('anthropic', undefined, JSON.stringify({ error: event.error }), request.apiKey, kind);
          }
          default:
            // ping, and event types added later
            break;
        }
      }
      throw new ProviderError('anthropic', 'unavailable', 'Anthropic ended the answer before it was complete');
    },
  };
}
