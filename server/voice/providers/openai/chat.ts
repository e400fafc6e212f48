/**
 * OpenAI Chat Completions, streamed (LlmProvider 'openai'); also any OpenAI-compatible server (vLLM,
 * Ollama) at a company's own Base URL.
 *
 * Sends `POST {baseUrl}/v1/chat/completions` with `Authorization: Bearer <key>` and
 * `{model, messages, stream: true, stream_options: {include_usage: true}, temperature, max_tokens,
 * tools?: [{type: 'function', function: {name, description, parameters}}], response_format?: {type:
 * 'json_schema', json_schema: {name, description, strict: true, schema}}}` (LlmRequest.structuredOutput,
 * https://platform.openai.com/docs/guides/structured-outputs); messages in OpenAI's shape
 * (assistant `tool_calls` with JSON-string arguments, `tool` messages with `tool_call_id`).
 * Reads the SSE answer: `data: {chunk}` lines with `choices[0].delta.content` (a `delta` event each),
 * `choices[0].delta.tool_calls[]` fragments keyed by `index` (id and name in the first, `arguments` in
 * pieces; one `tool_call` event per call once `finish_reason` arrives), `choices[0].delta.refusal` (a
 * Structured Outputs refusal: ProviderError 'bad_request' with the model's words), the last chunk with `usage` and
 * empty `choices`, then `data: [DONE]` (a `usage` event, then the `done` event). An `{"error": ...}` chunk, an
 * answer that ends before `[DONE]`, or unparseable data throws ProviderError.
 */
import { DEFAULT_LIMITS, errorFromAnswer, parseJson, postSse, type StreamOptions } from '../http-stream.js';
import { parseArguments } from '../tool-args.js';
import { type LlmEvent, type LlmMessage, type LlmProvider, type LlmRequest, ProviderError, type ToolCall } from '../types.js';
import { httpUrl } from '../urls.js';

interface ChatChunk {
  choices?: {
    index?: number;
    delta?: {
      content?: string | null;
      /** a Structured Outputs answer the model refused to give (instead of `content`) */
      refusal?: string | null;
      tool_calls?: { index: number; id?: string; type?: string; function?: { name?: string; arguments?: string } }[];
    };
    finish_reason?: string | null;
  }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: unknown;
}

type OpenAiMessage =
  | { role: 'system' | 'user'; content: string }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    }
  | { role: 'tool'; tool_call_id: string; content: string };

/** LlmMessage -> Chat Completions message. */
export function toOpenAiMessages(messages: LlmMessage[]): OpenAiMessage[] {
  return messages.map((m): OpenAiMessage => {
    if (m.role === 'tool') return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
    if (m.role !== 'assistant') return { role: m.role, content: m.content };
    if (!m.toolCalls?.length) return { role: 'assistant', content: m.content };
    return {
      role: 'assistant',
      content: m.content || null,
      tool_calls: m.toolCalls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: JSON.stringify(c.arguments) },
      })),
    };
  });
}

const FINISH: Record<string, 'stop' | 'tool_calls' | 'length'> = {
  stop: 'stop',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  length: 'length',
};

export function createOpenAiChat(limits: StreamOptions = {}): LlmProvider {
  const effective = { ...DEFAULT_LIMITS, ...limits };
  return {
    name: 'openai',
    async *stream(request: LlmRequest): AsyncGenerator<LlmEvent> {
      const body = {
        model: request.model,
        messages: toOpenAiMessages(request.messages),
        stream: true,
        stream_options: { include_usage: true },
        temperature: request.temperature,
        max_tokens: request.maxTokens,
        ...(request.tools.length > 0
          ? {
              tools: request.tools.map((t) => ({
                type: 'function',
                function: { name: t.name, description: t.description, parameters: t.parameters },
              })),
            }
          : {}),
        ...(request.structuredOutput
          ? {
              response_format: {
                type: 'json_schema',
                json_schema: {
                  name: request.structuredOutput.name,
                  description: request.structuredOutput.description,
                  strict: true,
                  schema: request.structuredOutput.schema,
                },
              },
            }
          : {}),
      };
      let refusal = '';
      const calls = new Map<number, { id: string; name: string; args: string }>();
      let finishReason: LlmEvent & { type: 'done' } = { type: 'done', finishReason: 'other' };
      let finished = false;
      let usage: (LlmEvent & { type: 'usage' }) | undefined;
      for await (const sse of postSse({
        provider: 'openai',
        url: httpUrl(request.baseUrl, '/v1/chat/completions'),
        headers: { authorization: `Bearer ${request.apiKey}` },
        body,
        apiKey: request.apiKey,
        signal: request.signal,
        publicOnly: request.publicOnly ?? false,
        limits: effective,
        observe: limits.observe,
      })) {
        if (sse.data === '[DONE]') {
          if (usage) yield usage;
          yield finishReason;
          return;
        }
        const chunk = parseJson<ChatChunk>('openai', sse.data);
        if (chunk.error)
          throw errorFromAnswer('openai', undefined, JSON.stringify({ error: chunk.error }), request.apiKey, 'unavailable');
        // the last chunk before [DONE] carries the usage (others have `usage: null`)
        if (chunk.usage)
          usage = {
            type: 'usage',
            inputTokens: chunk.usage.prompt_tokens ?? 0,
            outputTokens: chunk.usage.completion_tokens ?? 0,
          };
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        if (choice.delta?.refusal) refusal += choice.delta.refusal;
        const text = choice.delta?.content;
        if (text) yield { type: 'delta', text, at: performance.now() };
        for (const fragment of choice.delta?.tool_calls ?? []) {
          const call = calls.get(fragment.index) ?? { id: '', name: '', args: '' };
          if (fragment.id) call.id = fragment.id;
          if (fragment.function?.name) call.name += fragment.function.name;
          if (fragment.function?.arguments) call.args += fragment.function.arguments;
          calls.set(fragment.index, call);
        }
        if (choice.finish_reason && !finished) {
          finished = true;
          if (refusal)
            throw new ProviderError('openai', 'bad_request', `OpenAI's model refused to answer: ${refusal.trim().slice(0, 300)}`);
          finishReason = { type: 'done', finishReason: FINISH[choice.finish_reason] ?? 'other' };
          for (const index of [...calls.keys()].sort((a, b) => a - b)) {
            const c = calls.get(index) as { id: string; name: string; args: string };
            const call: ToolCall = { id: c.id, name: c.name, arguments: parseArguments('openai', c.name, c.args) };
            yield { type: 'tool_call', call, at: performance.now() };
          }
        }
      }
      throw new ProviderError('openai', 'unavailable', 'OpenAI ended the answer before it was complete');
    },
  };
}
