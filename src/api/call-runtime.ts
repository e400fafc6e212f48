/**
 * Typed calls of the call runtime (contract in ./contract/call-runtime.ts): Test LLM (a chat whose
 * replies arrive as a `text/event-stream`), Test Audio (a WAV), Test (a web call's id and one-time token),
 * and a call's detail.
 *
 *   const { data } = await chats.start({ agent_id, agent, dynamic_variables });
 *   for await (const e of chats.send(data.chat_id, 'Hello', signal)) ...;   // delta, tool_call, error, done
 *   await chats.end(data.chat_id);                                           // closed: Call History shows it ended
 */
import * as v from 'valibot';
import { type ApiClient, api, type CallOptions } from './client';
import {
  CALL_RUNTIME_PATHS,
  CallDetailResponseSchema,
  type ChatStreamEvent,
  ChatStreamEventSchema,
  ChatTranscriptResponseSchema,
  StartChatResponseSchema,
  type StartConversationInput,
  StartWebCallResponseSchema,
  type VoicePreviewBody,
} from './contract/call-runtime';
import { ApiError } from './errors';

/**
 * The JSON events of a `text/event-stream` body, in order (`data:` lines; an event is closed by a blank
 * line). Lines that are not `data:` (comments, `event:`, `id:`) are skipped, and so is an event that is not
 * one of the contract's.
 */
export async function* readEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<ChatStreamEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  const flush = function* () {
    if (!data.length) return;
    const text = data.join('\n');
    data = [];
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return;
    }
    const parsed = v.safeParse(ChatStreamEventSchema, json);
    if (parsed.success) yield parsed.output as ChatStreamEvent;
  };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let nl = buffer.indexOf('\n');
      while (nl >= 0) {
        const line = buffer.slice(0, nl).replace(/\r$/, '');
        buffer = buffer.slice(nl + 1);
        if (line === '') yield* flush();
        else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
        nl = buffer.indexOf('\n');
      }
    }
    if (buffer.startsWith('data:')) data.push(buffer.slice(5).replace(/^ /, ''));
    yield* flush();
  } finally {
    reader.releaseLock();
  }
}

export function callRuntimeApi(client: ApiClient) {
  return {
    chats: {
      /** POST /chat */
      start: (body: StartConversationInput, options?: CallOptions) =>
        client.post(CALL_RUNTIME_PATHS.chat, StartChatResponseSchema, body as Record<string, unknown>, options),
      /** POST /chat/{id}/message: the reply's events as they arrive (aborting `signal` stops reading). */
      async *send(chatId: string, content: string, signal?: AbortSignal): AsyncGenerator<ChatStreamEvent> {
        const res = await client.raw(CALL_RUNTIME_PATHS.chatMessage(chatId), {
          method: 'POST',
          body: { content },
          headers: { accept: 'text/event-stream' },
          notify: false,
          signal,
        });
        if (!res.body) throw new ApiError({ kind: 'parse' });
        try {
          yield* readEventStream(res.body);
        } catch (error) {
          if (error instanceof ApiError) throw error;
          throw new ApiError({ kind: signal?.aborted ? 'aborted' : 'network', cause: error });
        }
      },
      /**
       * POST /chat/{id}/end: the chat is over (the panel closed, a new chat, the page left). Sent with fetch
       * `keepalive` so it still leaves while the page unloads; no toast (nobody is there to read it).
       */
      end: (chatId: string) =>
        client.request(CALL_RUNTIME_PATHS.chatEnd(chatId), ChatTranscriptResponseSchema, {
          method: 'POST',
          notify: false,
          keepalive: true,
        }),
      /** GET /chat/{id} */
      transcript: (chatId: string, options?: CallOptions) =>
        client.get(CALL_RUNTIME_PATHS.chatTranscript(chatId), ChatTranscriptResponseSchema, options),
    },
    /** POST /call/web */
    startWebCall: (body: StartConversationInput, options?: CallOptions) =>
      client.post(CALL_RUNTIME_PATHS.webCall, StartWebCallResponseSchema, body as Record<string, unknown>, options),
    /** POST /voices/preview: the WAV's bytes */
    async voicePreview(body: VoicePreviewBody, options: CallOptions = {}): Promise<ArrayBuffer> {
      const res = await client.raw(CALL_RUNTIME_PATHS.voicePreview, {
        method: 'POST',
        body: body as Record<string, unknown>,
        headers: { accept: 'audio/wav' },
        ...options,
      });
      try {
        return await res.arrayBuffer();
      } catch (error) {
        throw new ApiError({ kind: options.signal?.aborted ? 'aborted' : 'network', cause: error });
      }
    },
    /** GET /call/{id} */
    callDetail: (callId: string, options?: CallOptions) =>
      client.get(CALL_RUNTIME_PATHS.callDetail(callId), CallDetailResponseSchema, options),
    /** DELETE /call/{id}: removes the call's content; answers the call as it now is */
    deleteCallContent: (callId: string, options?: CallOptions) =>
      client.delete(CALL_RUNTIME_PATHS.callDetail(callId), CallDetailResponseSchema, options),
  };
}

export type CallRuntimeApi = ReturnType<typeof callRuntimeApi>;
export const callRuntime = callRuntimeApi(api);

/** The WebSocket address of a web call's stream (same origin as the app). */
export function webCallSocketUrl(callId: string, token: string, origin: string = location.origin): string {
  const url = new URL(`/api/v1${CALL_RUNTIME_PATHS.webCallStream(callId, token)}`, origin);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.href;
}
