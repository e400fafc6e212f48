import { assign, fromCallback, fromPromise, sendTo, setup } from 'xstate';
import { callRuntime } from '../api/call-runtime';
import type { StartConversationInput, ToolCallStatus, TranscriptTurn } from '../api/contract/call-runtime';
import { ApiError } from '../api/errors';

/** One line of the chat panel. */
export type ChatItem =
  | { kind: 'user'; text: string }
  | { kind: 'agent'; text: string }
  /** a function call; status, result and ms arrive with its outcome (end_call and transfer_call have none) */
  | {
      kind: 'tool';
      name: string;
      arguments: Record<string, unknown>;
      status?: ToolCallStatus;
      result?: string;
      ms?: number;
    }
  /** a conversation-flow agent entered a node */
  | { kind: 'node'; nodeId: string; name: string }
  | { kind: 'error'; text: string }
  | { kind: 'ended' };

export interface TestChatContext {
  /** what the chat was started with: the agent as it was in the editor then, and the variables */
  request: StartConversationInput | null;
  chatId: string | null;
  items: ChatItem[];
  /** why the chat could not start */
  error: string | null;
  /** where to fix it (the Providers page for a key to connect) */
  errorLink: string | null;
  /** the message being answered */
  pending: string;
}

export type TestChatEvent =
  | { type: 'chat.start'; request: StartConversationInput }
  | { type: 'chat.close' }
  | { type: 'message.send'; content: string }
  | { type: 'reply.stop' }
  | { type: 'reply.delta'; text: string }
  | { type: 'reply.tool_call'; name: string; arguments: Record<string, unknown> }
  | { type: 'reply.tool_result'; name: string; ok: boolean; result: string; ms: number }
  | { type: 'reply.node'; nodeId: string; name: string }
  | { type: 'reply.error'; message: string }
  | { type: 'reply.done'; ended: boolean }
  | { type: 'reply.failed'; message: string };

/** What the machine tells `holdChat` about the chat on the server. */
export type HoldChatEvent =
  /** this chat is open now */
  | { type: 'chat.hold'; chatId: string }
  /** the tester is done with it (closed, New chat): end it on the server */
  | { type: 'chat.release' }
  /** the server ended it already (the agent's end_call): nothing to end */
  | { type: 'chat.forget' };

/** Ends a chat on the server, best effort: a failure leaves it to the inactivity sweep. */
const endOnServer = (chatId: string) => {
  callRuntime.chats.end(chatId).catch(() => {});
};

export interface ChatStarted {
  chatId: string;
  /** the transcript so far: the agent's welcome message, when it has one */
  transcript: TranscriptTurn[];
}

export const TEST_CHAT_MESSAGES = {
  startFailed: 'The chat could not be started. Please try again.',
  replyCut: 'The connection closed before the reply was complete.',
} as const;

const messageOf = (error: unknown, fallback: string) =>
  error instanceof ApiError ? (error.serverMessage ?? error.message) : error instanceof Error ? error.message : fallback;

/** The items of a stored transcript (the greeting, or a chat resumed). */
export const itemsOfTranscript = (turns: readonly TranscriptTurn[]): ChatItem[] =>
  turns.flatMap((t): ChatItem[] => [
    ...(t.text ? [{ kind: t.role, text: t.text }] : []),
    ...(t.tool_calls ?? []).map(
      (c): ChatItem => ({
        kind: 'tool',
        name: c.name,
        arguments: c.arguments,
        ...(c.status !== undefined ? { status: c.status } : {}),
        ...(c.result !== undefined ? { result: c.result } : {}),
        ...(c.ms !== undefined ? { ms: c.ms } : {}),
      }),
    ),
  ]);

/**
 * Gives a function call of the reply being written its outcome: the earliest call of that name since the
 * tester's last message that has none yet (several calls of one function in a turn get their results in
 * order). The chat's stream says only ok or not, so a failed call shows as an error here; the call detail
 * has the exact status. An outcome with no call waiting for it changes nothing.
 */
export function attachToolResult(
  items: readonly ChatItem[],
  outcome: { name: string; ok: boolean; result: string; ms: number },
): ChatItem[] {
  let from = 0;
  items.forEach((item, i) => {
    if (item.kind === 'user') from = i + 1;
  });
  const at = items.findIndex((item, i) => i >= from && item.kind === 'tool' && item.name === outcome.name && !item.status);
  const call = items[at];
  if (call?.kind !== 'tool') return [...items];
  const done: ChatItem = { ...call, status: outcome.ok ? 'ok' : 'error', result: outcome.result, ms: outcome.ms };
  return [...items.slice(0, at), done, ...items.slice(at + 1)];
}

/** Appends a piece of the agent's reply to its last line, or opens a new line after a tool call. */
export function appendDelta(items: readonly ChatItem[], text: string): ChatItem[] {
  const last = items.at(-1);
  if (last?.kind === 'agent') return [...items.slice(0, -1), { kind: 'agent', text: last.text + text }];
  return [...items, { kind: 'agent', text }];
}

/**
 * Test LLM: a chat with the agent as it is in the editor when the chat starts (unsaved edits
 * included: the editor's save payload is sent as `agent`). The agent's reply streams in piece by piece
 * (`reply.delta`), function calls show as their own lines and get their outcome (status, result, ms) when
 * the function answers (`reply.tool_result`), and `end_call` ends the chat; a new chat starts
 * from the editor's current state again.
 * Actors: `startChat` (POST /chat, then the transcript for the welcome message), `streamReply` (POST
 * /chat/{id}/message read as an event stream: it sends the reply.* events; stopping it aborts the request)
 * and `holdChat`, running as long as the machine does: it holds the open chat and ends it on the server
 * (POST /chat/{id}/end) when the tester closes it or starts a new one, when the machine stops (the editor
 * left) and when the page is left (`pagehide`), so Call History shows it ended at once, not after the
 * inactivity sweep (server/modules/conversations/sweep.ts).
 */
export const testChatMachine = setup({
  types: {
    context: {} as TestChatContext,
    events: {} as TestChatEvent,
  },
  actors: {
    startChat: fromPromise<ChatStarted, StartConversationInput>(async ({ input, signal }) => {
      const { data } = await callRuntime.chats.start(input, { notify: false, signal });
      try {
        const { data: chat } = await callRuntime.chats.transcript(data.chat_id, { notify: false, signal });
        if (signal.aborted) endOnServer(data.chat_id);
        return { chatId: data.chat_id, transcript: chat.transcript };
      } catch (error) {
        // closed (or a new chat) while it opened: the chat made on the server is not left going
        if (signal.aborted) endOnServer(data.chat_id);
        throw error;
      }
    }),
    holdChat: fromCallback<HoldChatEvent>(({ receive }) => {
      let held: string | null = null;
      const end = () => {
        if (held) endOnServer(held);
        held = null;
      };
      receive((event) => {
        if (event.type === 'chat.hold') {
          end();
          held = event.chatId;
        } else if (event.type === 'chat.release') end();
        else held = null;
      });
      const page = typeof window === 'undefined' ? undefined : window;
      page?.addEventListener('pagehide', end);
      return () => {
        page?.removeEventListener('pagehide', end);
        end();
      };
    }),
    streamReply: fromCallback<TestChatEvent, { chatId: string; content: string }>(({ input, sendBack }) => {
      const abort = new AbortController();
      void (async () => {
        let done = false;
        try {
          for await (const e of callRuntime.chats.send(input.chatId, input.content, abort.signal)) {
            if (e.type === 'delta') sendBack({ type: 'reply.delta', text: e.text });
            else if (e.type === 'tool_call') sendBack({ type: 'reply.tool_call', name: e.name, arguments: e.arguments });
            else if (e.type === 'error') sendBack({ type: 'reply.error', message: e.message });
            else if (e.type === 'tool_result')
              sendBack({ type: 'reply.tool_result', name: e.name, ok: e.ok, result: e.result, ms: e.ms });
            else if (e.type === 'node') sendBack({ type: 'reply.node', nodeId: e.node_id, name: e.name });
            else if (e.type === 'done') {
              done = true;
              sendBack({ type: 'reply.done', ended: e.ended });
            }
          }
          if (!done && !abort.signal.aborted) sendBack({ type: 'reply.failed', message: TEST_CHAT_MESSAGES.replyCut });
        } catch (error) {
          if (!abort.signal.aborted) sendBack({ type: 'reply.failed', message: messageOf(error, TEST_CHAT_MESSAGES.replyCut) });
        }
      })();
      return () => abort.abort();
    }),
  },
  actions: {
    startFreshChat: assign((_, params: { request: StartConversationInput }) => ({
      request: params.request,
      chatId: null,
      items: [],
      error: null,
      errorLink: null,
      pending: '',
    })),
    showWelcome: assign((_, params: ChatStarted) => ({
      chatId: params.chatId,
      items: itemsOfTranscript(params.transcript),
    })),
    showStartError: assign((_, params: { error: unknown }) => ({
      error: messageOf(params.error, TEST_CHAT_MESSAGES.startFailed),
      errorLink: params.error instanceof ApiError ? (params.error.link ?? null) : null,
    })),
    addMessage: assign(({ context }, params: { content: string }) => ({
      pending: params.content.trim(),
      items: [...context.items, { kind: 'user', text: params.content.trim() }],
    })),
    addReplyWords: assign(({ context }, params: { text: string }) => ({ items: appendDelta(context.items, params.text) })),
    showFunctionCall: assign(({ context }, params: { name: string; arguments: Record<string, unknown> }) => ({
      items: [...context.items, { kind: 'tool', name: params.name, arguments: params.arguments }],
    })),
    showNode: assign(({ context }, params: { nodeId: string; name: string }) => ({
      items: [...context.items, { kind: 'node' as const, nodeId: params.nodeId, name: params.name }],
    })),
    showFunctionResult: assign(({ context }, params: { name: string; ok: boolean; result: string; ms: number }) => ({
      items: attachToolResult(context.items, params),
    })),
    showReplyError: assign(({ context }, params: { message: string }) => ({
      items: [...context.items, { kind: 'error', text: params.message }],
    })),
    showChatEnded: assign(({ context }) => ({ items: [...context.items, { kind: 'ended' }] })),
    clearPendingMessage: assign({ pending: '' }),
    holdOpenChat: sendTo(
      'holdChat',
      (_, params: { chatId: string }): HoldChatEvent => ({ type: 'chat.hold', chatId: params.chatId }),
    ),
    releaseChat: sendTo('holdChat', { type: 'chat.release' } satisfies HoldChatEvent),
    forgetChat: sendTo('holdChat', { type: 'chat.forget' } satisfies HoldChatEvent),
  },
  guards: {
    hasContent: ({ event }) => event.type === 'message.send' && event.content.trim() !== '',
    chatEnded: ({ event }) => event.type === 'reply.done' && event.ended,
  },
}).createMachine({
  id: 'testChat',
  description:
    'Test LLM: a text chat with the agent as it is in the editor, its replies streaming in word by word, its function calls shown with their results, until the agent ends the chat or it is closed.',
  context: { request: null, chatId: null, items: [], error: null, errorLink: null, pending: '' },
  initial: 'closed',
  invoke: {
    id: 'holdChat',
    src: 'holdChat',
  },
  on: {
    'chat.start': {
      target: '.starting',
      description:
        'Start a new chat with the agent as it is in the editor now; the previous chat, if any, is ended on the server.',
      actions: ['releaseChat', { type: 'startFreshChat', params: ({ event }) => ({ request: event.request }) }],
    },
    'chat.close': {
      target: '.closed',
      description: 'Close the chat panel; a reply being written is abandoned and the chat is ended on the server.',
      actions: 'releaseChat',
    },
  },
  states: {
    closed: {
      description: 'The chat panel is closed.',
    },
    starting: {
      description: 'Starting the chat on the server with the editor’s agent and dynamic variables.',
      tags: ['busy'],
      invoke: {
        id: 'startChat',
        src: 'startChat',
        input: ({ context }) => context.request!,
        onDone: {
          target: 'ready',
          description: 'The chat is open: the agent’s welcome message, if any, shows first.',
          actions: [
            { type: 'showWelcome', params: ({ event }) => event.output },
            { type: 'holdOpenChat', params: ({ event }) => ({ chatId: event.output.chatId }) },
          ],
        },
        onError: {
          target: 'failed',
          description: 'The chat could not start (a provider key to connect, an invalid agent, no connection): say why.',
          actions: { type: 'showStartError', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    failed: {
      description: 'The chat could not start; the message says why. Start again to retry.',
    },
    ready: {
      description: 'Waiting for the tester to type a message.',
      on: {
        'message.send': {
          guard: 'hasContent',
          target: 'replying',
          description: 'Send the typed message; the agent starts answering.',
          actions: { type: 'addMessage', params: ({ event }) => ({ content: event.content }) },
        },
      },
    },
    replying: {
      description: 'The agent is answering: its words arrive as they are written.',
      tags: ['busy'],
      invoke: {
        id: 'streamReply',
        src: 'streamReply',
        input: ({ context }) => ({ chatId: context.chatId!, content: context.pending }),
      },
      on: {
        'reply.delta': {
          description: 'More words of the reply arrived: add them to the agent’s line.',
          actions: { type: 'addReplyWords', params: ({ event }) => ({ text: event.text }) },
        },
        'reply.tool_call': {
          description: 'The agent called one of its functions: show the call as an event.',
          actions: { type: 'showFunctionCall', params: ({ event }) => ({ name: event.name, arguments: event.arguments }) },
        },
        'reply.tool_result': {
          description:
            'A function the agent called answered (or failed, or timed out): its call shows the status, the result and how long it took.',
          actions: {
            type: 'showFunctionResult',
            params: ({ event }) => ({ name: event.name, ok: event.ok, result: event.result, ms: event.ms }),
          },
        },
        'reply.node': {
          description: 'A conversation-flow agent entered a node: show it as an event.',
          actions: { type: 'showNode', params: ({ event }) => ({ nodeId: event.nodeId, name: event.name }) },
        },
        'reply.error': {
          description: 'The reply failed on the provider’s side: show the message.',
          actions: { type: 'showReplyError', params: ({ event }) => ({ message: event.message }) },
        },
        'reply.done': [
          {
            guard: 'chatEnded',
            target: 'ended',
            description: 'The agent called end_call: the chat is over.',
            actions: ['showChatEnded', 'clearPendingMessage', 'forgetChat'],
          },
          {
            target: 'ready',
            description: 'The reply is complete: the tester may answer.',
            actions: 'clearPendingMessage',
          },
        ],
        'reply.failed': {
          target: 'ready',
          description: 'The reply could not be read to its end (connection lost, chat busy): show why and let the tester go on.',
          actions: [{ type: 'showReplyError', params: ({ event }) => ({ message: event.message }) }, 'clearPendingMessage'],
        },
        'reply.stop': {
          target: 'ready',
          description: 'Stop waiting for this reply (the request is aborted).',
          actions: 'clearPendingMessage',
        },
      },
    },
    ended: {
      description: 'The agent ended the chat (end_call). Start a new chat to go on.',
    },
  },
});
