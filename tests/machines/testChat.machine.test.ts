import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type AnyMachineSnapshot, createActor, fromCallback, fromPromise } from 'xstate';
import { callRuntime } from '../../src/api/call-runtime.js';
import type { StartConversationInput } from '../../src/api/contract/call-runtime.js';
import { ApiError } from '../../src/api/errors.js';
import {
  appendDelta,
  attachToolResult,
  type ChatStarted,
  itemsOfTranscript,
  type TestChatEvent,
  testChatMachine,
} from '../../src/machines/testChat.machine.js';
import { describeModel } from './harness.js';

const request: StartConversationInput = { agent_id: 'a1', dynamic_variables: { name: 'Ada' } };
const started: ChatStarted = {
  chatId: 'chat-1',
  transcript: [{ role: 'agent', text: 'Hello Ada, how can I help?', start_ms: 0, end_ms: 0 }],
};

describeModel('testChat', testChatMachine, {
  events: {
    'chat.start': [{ type: 'chat.start', request }],
    'message.send': [
      { type: 'message.send', content: 'Do you open on Saturdays?' },
      { type: 'message.send', content: '   ' },
    ],
    'reply.delta': [{ type: 'reply.delta', text: 'Yes, ' }],
    'reply.tool_call': [
      { type: 'reply.tool_call', name: 'end_call', arguments: {} },
      { type: 'reply.tool_call', name: 'check_availability', arguments: { date: '2026-12-08' } },
    ],
    // the outcome of the call just made, and one for a function not called in this reply (nothing to show it on)
    'reply.tool_result': [
      { type: 'reply.tool_result', name: 'check_availability', ok: true, result: '{"slots":["09:00"]}', ms: 412 },
      { type: 'reply.tool_result', name: 'check_availability', ok: false, result: 'HTTP 500', ms: 80 },
      { type: 'reply.tool_result', name: 'send_sms', ok: true, result: 'sent', ms: 5 },
    ],
    'reply.node': [{ type: 'reply.node', nodeId: 'greet', name: 'Greeting' }],
    'reply.error': [{ type: 'reply.error', message: 'OpenAI refused the key.' }],
    'reply.done': [
      { type: 'reply.done', ended: false },
      { type: 'reply.done', ended: true },
    ],
    'reply.failed': [{ type: 'reply.failed', message: 'The connection closed before the reply was complete.' }],
    'xstate.done.actor.startChat': [{ type: 'xstate.done.actor.startChat', output: started }],
    'xstate.error.actor.startChat': [
      {
        type: 'xstate.error.actor.startChat',
        error: new ApiError({ kind: 'http', status: 400, serverMessage: 'Connect OpenAI first', link: '/dashboard/providers' }),
      },
    ],
  },
  // the transcript grows with every reply: the graph tells states apart by their last line only
  serializeState: (s: AnyMachineSnapshot) =>
    JSON.stringify([
      s.value,
      s.context.chatId,
      s.context.error,
      s.context.pending,
      s.context.items.at(-1)?.kind ?? null,
      // a function call waiting for its outcome is another state than one that has it
      s.context.items.at(-1)?.name ?? null,
      s.context.items.at(-1)?.status ?? null,
    ]),
});

/** A testChat actor whose chat starts at once and whose replies are the events `reply` sends. */
function chatActor(reply: (content: string, send: (e: TestChatEvent) => void) => undefined | (() => void)) {
  const contents: string[] = [];
  const stopped: string[] = [];
  const actor = createActor(
    testChatMachine.provide({
      actors: {
        startChat: fromPromise<ChatStarted, StartConversationInput>(async () => started),
        streamReply: fromCallback<TestChatEvent, { chatId: string; content: string }>(({ input, sendBack }) => {
          contents.push(input.content);
          const cleanup = reply(input.content, sendBack);
          return () => {
            stopped.push(input.content);
            cleanup?.();
          };
        }),
      },
    }),
  ).start();
  return { actor, contents, stopped };
}

describe('testChat behaviour', () => {
  /** the chats ended on the server (POST /chat/{id}/end) */
  let ended: string[];
  beforeEach(() => {
    ended = [];
    vi.spyOn(callRuntime.chats, 'end').mockImplementation(async (chatId) => {
      ended.push(chatId);
      return { success: true as const, data: { chat_id: chatId, ended: true, transcript: [] } };
    });
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
  });

  it('closing the chat or starting a new one ends the open chat on the server, once', async () => {
    const { actor } = chatActor(() => undefined);
    actor.send({ type: 'chat.start', request });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('ready')).toBe(true));
    expect(ended).toEqual([]);
    actor.send({ type: 'chat.close' });
    expect(ended).toEqual(['chat-1']);
    actor.send({ type: 'chat.close' });
    expect(ended).toEqual(['chat-1']);
    // a reply being written when New chat is pressed: the old chat is ended too
    actor.send({ type: 'chat.start', request });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('ready')).toBe(true));
    actor.send({ type: 'message.send', content: 'Hi' });
    actor.send({ type: 'chat.start', request });
    expect(ended).toEqual(['chat-1', 'chat-1']);
    await vi.waitFor(() => expect(actor.getSnapshot().matches('ready')).toBe(true));
    // the editor left (the actor stops): the open chat is ended
    actor.stop();
    expect(ended).toEqual(['chat-1', 'chat-1', 'chat-1']);
  });

  it('a chat the agent ended is not ended again; leaving the page ends the open one', async () => {
    const page = new EventTarget();
    vi.stubGlobal('window', page);
    const { actor } = chatActor((_, send) => {
      send({ type: 'reply.done', ended: true });
      return undefined;
    });
    actor.send({ type: 'chat.start', request });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('ready')).toBe(true));
    actor.send({ type: 'message.send', content: 'Bye' });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('ended')).toBe(true));
    actor.send({ type: 'chat.close' });
    expect(ended).toEqual([]);
    actor.send({ type: 'chat.start', request });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('ready')).toBe(true));
    page.dispatchEvent(new Event('pagehide'));
    expect(ended).toEqual(['chat-1']);
    actor.stop();
    expect(ended).toEqual(['chat-1']);
  });

  it('a chat closed while it opens is ended as soon as the server named it', async () => {
    let answerTranscript = () => {};
    vi.spyOn(callRuntime.chats, 'start').mockResolvedValue({ success: true, data: { chat_id: 'chat-9' } });
    vi.spyOn(callRuntime.chats, 'transcript').mockImplementation(
      (_id, options) =>
        new Promise((resolve, reject) => {
          answerTranscript = () => resolve({ success: true, data: { chat_id: 'chat-9', ended: false, transcript: [] } });
          options?.signal?.addEventListener('abort', () => reject(new ApiError({ kind: 'aborted' })));
        }),
    );
    const actor = createActor(testChatMachine).start();
    actor.send({ type: 'chat.start', request });
    await vi.waitFor(() => expect(callRuntime.chats.transcript).toHaveBeenCalled());
    actor.send({ type: 'chat.close' });
    await vi.waitFor(() => expect(ended).toEqual(['chat-9']));
    answerTranscript();
    actor.stop();
    expect(ended).toEqual(['chat-9']);
  });

  it('the welcome message shows first; a reply streams into one line; tool calls are events; end_call ends the chat', async () => {
    const { actor, contents } = chatActor((content, send) => {
      if (content === 'Bye') {
        send({ type: 'reply.delta', text: 'Goodbye!' });
        send({ type: 'reply.tool_call', name: 'end_call', arguments: { reason: 'done' } });
        send({ type: 'reply.done', ended: true });
        return undefined;
      }
      for (const word of ['We ', 'open ', 'at ', '9.']) send({ type: 'reply.delta', text: word });
      send({ type: 'reply.done', ended: false });
      return undefined;
    });
    actor.send({ type: 'chat.start', request });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('ready')).toBe(true));
    expect(actor.getSnapshot().context.items).toEqual([{ kind: 'agent', text: 'Hello Ada, how can I help?' }]);
    actor.send({ type: 'message.send', content: '  When do you open?  ' });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('ready')).toBe(true));
    expect(contents).toEqual(['When do you open?']);
    expect(actor.getSnapshot().context.items.slice(1)).toEqual([
      { kind: 'user', text: 'When do you open?' },
      { kind: 'agent', text: 'We open at 9.' },
    ]);
    actor.send({ type: 'message.send', content: 'Bye' });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('ended')).toBe(true));
    expect(actor.getSnapshot().context.items.slice(3)).toEqual([
      { kind: 'user', text: 'Bye' },
      { kind: 'agent', text: 'Goodbye!' },
      { kind: 'tool', name: 'end_call', arguments: { reason: 'done' } },
      { kind: 'ended' },
    ]);
    // an ended chat takes no message
    actor.send({ type: 'message.send', content: 'Hello?' });
    expect(contents).toEqual(['When do you open?', 'Bye']);
  });

  it('Stop aborts the reply being read; closing the panel stops it too; a new chat forgets the old one', async () => {
    const { actor, stopped } = chatActor(() => undefined);
    actor.send({ type: 'chat.start', request });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('ready')).toBe(true));
    actor.send({ type: 'message.send', content: 'One' });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    actor.send({ type: 'reply.stop' });
    expect(stopped).toEqual(['One']);
    expect(actor.getSnapshot().matches('ready')).toBe(true);
    actor.send({ type: 'message.send', content: 'Two' });
    actor.send({ type: 'chat.close' });
    expect(stopped).toEqual(['One', 'Two']);
    actor.send({ type: 'chat.start', request });
    expect(actor.getSnapshot().context.items).toEqual([]);
    expect(actor.getSnapshot().context.chatId).toBeNull();
  });

  it('a chat that cannot start says why and links the Providers page', async () => {
    const actor = createActor(
      testChatMachine.provide({
        actors: {
          startChat: fromPromise<ChatStarted, StartConversationInput>(async () => {
            throw new ApiError({ kind: 'http', status: 400, serverMessage: 'Connect OpenAI', link: '/dashboard/providers' });
          }),
        },
      }),
    ).start();
    actor.send({ type: 'chat.start', request });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('failed')).toBe(true));
    expect(actor.getSnapshot().context).toMatchObject({ error: 'Connect OpenAI', errorLink: '/dashboard/providers' });
  });

  it('a function call gets its status, result and duration when it answers, in the order the calls were made', async () => {
    const { actor } = chatActor((_, send) => {
      send({ type: 'reply.tool_call', name: 'check_availability', arguments: { date: 'Monday' } });
      send({ type: 'reply.tool_call', name: 'check_availability', arguments: { date: 'Tuesday' } });
      send({ type: 'reply.tool_result', name: 'check_availability', ok: true, result: '["09:00"]', ms: 412 });
      send({ type: 'reply.tool_result', name: 'check_availability', ok: false, result: 'The function timed out.', ms: 8000 });
      send({ type: 'reply.delta', text: 'Monday at 9 is free.' });
      send({ type: 'reply.done', ended: false });
      return undefined;
    });
    actor.send({ type: 'chat.start', request });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('ready')).toBe(true));
    actor.send({ type: 'message.send', content: 'Any slot?' });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('ready')).toBe(true));
    expect(actor.getSnapshot().context.items.slice(2)).toEqual([
      { kind: 'tool', name: 'check_availability', arguments: { date: 'Monday' }, status: 'ok', result: '["09:00"]', ms: 412 },
      {
        kind: 'tool',
        name: 'check_availability',
        arguments: { date: 'Tuesday' },
        status: 'error',
        result: 'The function timed out.',
        ms: 8000,
      },
      { kind: 'agent', text: 'Monday at 9 is free.' },
    ]);
  });

  it('the chat reads tool_result from the stream and hands it to the call it answers', async () => {
    vi.spyOn(callRuntime.chats, 'start').mockResolvedValue({ success: true, data: { chat_id: 'chat-5' } });
    vi.spyOn(callRuntime.chats, 'transcript').mockResolvedValue({
      success: true,
      data: { chat_id: 'chat-5', ended: false, transcript: [] },
    });
    vi.spyOn(callRuntime.chats, 'send').mockImplementation(async function* () {
      yield { type: 'tool_call', name: 'book', arguments: { at: '9' } } as const;
      yield { type: 'tool_result', name: 'book', ok: true, result: 'booked', ms: 30 } as const;
      yield { type: 'done', ended: false } as const;
    });
    const actor = createActor(testChatMachine).start();
    actor.send({ type: 'chat.start', request });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('ready')).toBe(true));
    actor.send({ type: 'message.send', content: 'Book it' });
    await vi.waitFor(() => expect(actor.getSnapshot().context.items).toHaveLength(2));
    await vi.waitFor(() => expect(actor.getSnapshot().matches('ready')).toBe(true));
    expect(actor.getSnapshot().context.items[1]).toEqual({
      kind: 'tool',
      name: 'book',
      arguments: { at: '9' },
      status: 'ok',
      result: 'booked',
      ms: 30,
    });
    actor.stop();
  });

  it('the chat shows each flow node entered as an event, in the order of the stream', async () => {
    vi.spyOn(callRuntime.chats, 'start').mockResolvedValue({ success: true, data: { chat_id: 'chat-6' } });
    vi.spyOn(callRuntime.chats, 'transcript').mockResolvedValue({
      success: true,
      data: { chat_id: 'chat-6', ended: false, transcript: [] },
    });
    vi.spyOn(callRuntime.chats, 'send').mockImplementation(async function* () {
      yield { type: 'node', node_id: 'greet', name: 'Greeting' } as const;
      yield { type: 'tool_call', name: 'next_e1', arguments: {} } as const;
      yield { type: 'node', node_id: 'identify', name: 'Identify' } as const;
      yield { type: 'delta', text: 'Your name?' } as const;
      yield { type: 'done', ended: false } as const;
    });
    const actor = createActor(testChatMachine).start();
    actor.send({ type: 'chat.start', request });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('ready')).toBe(true));
    actor.send({ type: 'message.send', content: 'A visit' });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('ready')).toBe(true));
    expect(actor.getSnapshot().context.items.map((i) => (i.kind === 'node' ? `node ${i.nodeId}` : i.kind))).toEqual([
      'user',
      'node greet',
      'tool',
      'node identify',
      'agent',
    ]);
    actor.stop();
  });

  it('a reply cut short is reported and the tester may go on', async () => {
    const { actor } = chatActor((_, send) => {
      send({ type: 'reply.delta', text: 'Part' });
      send({ type: 'reply.failed', message: 'The connection closed before the reply was complete.' });
      return undefined;
    });
    actor.send({ type: 'chat.start', request });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('ready')).toBe(true));
    actor.send({ type: 'message.send', content: 'Hi' });
    await vi.waitFor(() => expect(actor.getSnapshot().context.items.at(-1)?.kind).toBe('error'));
    expect(actor.getSnapshot().matches('ready')).toBe(true);
  });

  it('helpers: deltas join the agent line, a tool call opens a new one; a transcript becomes lines', () => {
    expect(appendDelta([{ kind: 'agent', text: 'Hel' }], 'lo')).toEqual([{ kind: 'agent', text: 'Hello' }]);
    expect(appendDelta([{ kind: 'tool', name: 'x', arguments: {} }], 'Hi')).toEqual([
      { kind: 'tool', name: 'x', arguments: {} },
      { kind: 'agent', text: 'Hi' },
    ]);
    expect(
      itemsOfTranscript([
        { role: 'user', text: 'Bye', start_ms: 0, end_ms: 1 },
        { role: 'agent', text: '', start_ms: 1, end_ms: 2, tool_calls: [{ name: 'end_call', arguments: {} }] },
      ]),
    ).toEqual([
      { kind: 'user', text: 'Bye' },
      { kind: 'tool', name: 'end_call', arguments: {} },
    ]);
    // a stored call keeps its outcome (a chat resumed)
    expect(
      itemsOfTranscript([
        {
          role: 'agent',
          text: '',
          start_ms: 0,
          end_ms: 1,
          tool_calls: [{ name: 'lookup', arguments: {}, type: 'custom', status: 'timeout', result: 'timed out', ms: 8000 }],
        },
      ]),
    ).toEqual([{ kind: 'tool', name: 'lookup', arguments: {}, status: 'timeout', result: 'timed out', ms: 8000 }]);
  });

  it('helpers: an outcome goes to the earliest call of its name in the current reply still waiting, else nowhere', () => {
    const outcome = { name: 'f', ok: true, result: 'r', ms: 1 };
    const old = { kind: 'tool', name: 'f', arguments: { n: 0 } } as const;
    const a = { kind: 'tool', name: 'f', arguments: { n: 1 } } as const;
    const b = { kind: 'tool', name: 'f', arguments: { n: 2 } } as const;
    const g = { kind: 'tool', name: 'g', arguments: {} } as const;
    const user = { kind: 'user', text: 'Hi' } as const;
    // a call left without an outcome in an earlier reply (Stop) is not given this one
    expect(attachToolResult([old, user, g, a, b], outcome)).toEqual([
      old,
      user,
      g,
      { ...a, status: 'ok', result: 'r', ms: 1 },
      b,
    ]);
    expect(attachToolResult([user, { ...a, status: 'ok', result: 'r', ms: 1 }, b], { ...outcome, ok: false })).toEqual([
      user,
      { ...a, status: 'ok', result: 'r', ms: 1 },
      { ...b, status: 'error', result: 'r', ms: 1 },
    ]);
    expect(attachToolResult([old, user, g], outcome)).toEqual([old, user, g]);
  });
});
