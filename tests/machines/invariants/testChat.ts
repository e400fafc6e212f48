/**
 * testChat: the Test LLM chat. One request at a time: the chat is started with the agent as it
 * is in the editor when Start is pressed, a reply is read only while the agent is answering (Stop, a new
 * chat or closing the panel abandon it); a new chat forgets the old one; the transcript only grows (the
 * agent's line grows word by word, a function call gets its outcome once: status, result, ms); a chat that cannot start says why and where to fix it; `end_call`
 * ends the chat for good. `holdChat` (the chat held open on the server, ended when the tester leaves it)
 * runs from start to stop; it is not a request: the behaviour tests check what it ends.
 */
import { expect } from 'vitest';
import { ApiError } from '../../../src/api/errors.js';
import { TEST_CHAT_MESSAGES } from '../../../src/machines/testChat.machine.js';
import { cameFrom, ev, expectPending, onlyRequest } from './lib.js';
import { defineInvariants, type Snapshot, type World } from './types.js';

type Item = {
  kind: string;
  text?: string;
  name?: string;
  arguments?: unknown;
  status?: string;
  result?: string;
  ms?: number;
};
const items = (s: Snapshot) => s.context.items as Item[];
const before = (w: World) => w.previous as Snapshot;
/** the chat exists on the server (its id is known) */
const chatOpen = (s: Snapshot) => s.matches('ready') || s.matches('replying') || s.matches('ended');
/** the requests in flight (holdChat runs all along) */
const requests = (w: World) => w.pending().filter((r) => r.src !== 'holdChat');
const expectNothingPending = (w: World) =>
  expect(
    requests(w).map((r) => r.src),
    'requests in flight',
  ).toEqual([]);

export default defineInvariants({
  always: (s, w) => {
    // busy (Send and Start disabled, a spinner) exactly while a request is in flight
    expect(s.hasTag('busy')).toBe(s.matches('starting') || s.matches('replying'));
    expect(requests(w).length).toBeLessThanOrEqual(1);
    // one holder of the chat, from the start
    expectPending(w, 'holdChat', 1);
    expect(w.started.filter((r) => r.src === 'holdChat').map((r) => r.step)).toEqual([0]);
    expectPending(w, 'startChat', s.matches('starting') ? 1 : 0);
    expectPending(w, 'streamReply', s.matches('replying') ? 1 : 0);
    // a message is being answered only while the agent answers (a closed panel keeps what it was left with)
    if (!s.matches('closed')) expect(s.context.pending !== '').toBe(s.matches('replying'));
    // a chat that is open (or being opened) shows no start failure
    if (!s.matches('failed') && !s.matches('closed')) expect([s.context.error, s.context.errorLink]).toEqual([null, null]);
    if (chatOpen(s)) expect(s.context.chatId).toEqual(expect.any(String));
    if (s.matches('starting') || s.matches('failed')) expect(s.context.chatId).toBeNull();
    if (!w.previous) {
      expect(s.matches('closed')).toBe(true);
      expect(items(s)).toEqual([]);
      return;
    }
    if (w.event.type === 'chat.start') {
      // a new chat: with the agent as the editor has it now, nothing of the previous chat kept
      expect(s.matches('starting')).toBe(true);
      expect(s.context.request).toEqual(ev(w).request);
      expect(items(s)).toEqual([]);
      return;
    }
    // the chat's request never changes under it
    expect(s.context.request).toEqual(before(w).context.request);
    if (w.event.type === 'xstate.done.actor.startChat') return;
    // the transcript only grows: earlier lines stay as they were; the last one grows only by the agent's words
    const was = items(before(w));
    const now = items(s);
    if (w.event.type === 'reply.tool_result') {
      // a function answered: at most the earliest call of that name made since the tester's message that had
      // no outcome gets it (ok or error, its result and duration); nothing else changes
      const e = ev(w);
      const since = was.map((i) => i.kind).lastIndexOf('user') + 1;
      const waiting = was.findIndex((i, n) => n >= since && i.kind === 'tool' && i.name === e.name && i.status === undefined);
      const expected = [...was];
      if (waiting >= 0) expected[waiting] = { ...was[waiting]!, status: e.ok ? 'ok' : 'error', result: e.result, ms: e.ms };
      expect(now).toEqual(expected);
      return;
    }
    const grew = w.event.type === 'reply.delta' && now.length === was.length;
    const kept = grew ? was.length - 1 : was.length;
    expect(now.slice(0, kept)).toEqual(was.slice(0, kept));
    expect(now.length - was.length).toBeLessThanOrEqual(1);
    if (grew) {
      expect(was.at(-1)?.kind).toBe('agent');
      expect(now.at(-1)?.kind).toBe('agent');
      expect(now.at(-1)?.text?.startsWith(was.at(-1)?.text ?? '')).toBe(true);
    }
  },
  states: {
    closed: (s, w) => {
      expectNothingPending(w);
      if (w.previous) expect(w.event.type).toBe('chat.close');
      // closing keeps nothing running but does not rewrite the transcript
      if (w.previous) expect(items(s)).toEqual(items(before(w)));
    },
    starting: (s, w) => {
      // the chat is started with what the editor held when Start was pressed
      expect(onlyRequest(w, 'startChat')).toEqual(s.context.request);
      if (w.event.type === 'chat.start') expect(w.startedNow.map((r) => r.src)).toEqual(['startChat']);
      expect(items(s)).toEqual([]);
    },
    failed: (s, w) => {
      expectNothingPending(w);
      expect(s.context.error).toEqual(expect.any(String));
      expect(s.context.error).not.toBe('');
      if (cameFrom(w, 'starting')) {
        // the server's words and where to fix it (a provider key to connect), else a generic message
        const error = ev(w).error;
        if (error instanceof ApiError) {
          expect(s.context.error).toBe(error.serverMessage ?? error.message);
          expect(s.context.errorLink).toBe(error.link ?? null);
        } else {
          expect(s.context.error).toBe(error instanceof Error ? error.message : TEST_CHAT_MESSAGES.startFailed);
          expect(s.context.errorLink).toBeNull();
        }
        expect(items(s)).toEqual([]);
      }
    },
    ready: (s, w) => {
      expect(s.context.pending).toBe('');
      if (cameFrom(w, 'starting')) {
        // the agent's welcome message shows first
        const { chatId, transcript } = ev(w).output as { chatId: string; transcript: { role: string; text: string }[] };
        expect(s.context.chatId).toBe(chatId);
        expect(items(s).map((i) => [i.kind, i.text])).toEqual(transcript.filter((t) => t.text).map((t) => [t.role, t.text]));
      }
      if (cameFrom(w, 'replying')) {
        expect(s.context.chatId).toBe(before(w).context.chatId);
        if (w.event.type === 'reply.failed') expect(items(s).at(-1)).toEqual({ kind: 'error', text: ev(w).message });
        else expect(items(s)).toEqual(items(before(w)));
        expect(['reply.done', 'reply.failed', 'reply.stop']).toContain(w.event.type);
      }
    },
    replying: (s, w) => {
      // one reply at a time, to the message just sent, in this chat
      const request = onlyRequest(w, 'streamReply');
      expect(request).toEqual({ chatId: s.context.chatId, content: s.context.pending });
      if (cameFrom(w, 'ready')) {
        const typed = (ev(w).content as string).trim();
        expect(typed).not.toBe('');
        expect(s.context.pending).toBe(typed);
        expect(items(s).at(-1)).toEqual({ kind: 'user', text: typed });
        expect(w.startedNow.map((r) => r.src)).toEqual(['streamReply']);
      } else {
        expect(w.startedNow).toEqual([]);
        expect(s.context.pending).toBe(before(w).context.pending);
        expect(s.context.chatId).toBe(before(w).context.chatId);
        const e = ev(w);
        if (w.event.type === 'reply.delta') expect(items(s).at(-1)?.text?.endsWith(e.text)).toBe(true);
        if (w.event.type === 'reply.tool_call')
          expect(items(s).at(-1)).toEqual({ kind: 'tool', name: e.name, arguments: e.arguments });
        if (w.event.type === 'reply.error') expect(items(s).at(-1)).toEqual({ kind: 'error', text: e.message });
      }
    },
    ended: (s, w) => {
      expectNothingPending(w);
      expect(items(s).at(-1)).toEqual({ kind: 'ended' });
      // only the agent's end_call ends the chat
      if (cameFrom(w, 'replying')) expect(ev(w)).toMatchObject({ type: 'reply.done', ended: true });
    },
  },
  explore: {
    events: {
      'xstate.error.actor.startChat': [{ type: 'xstate.error.actor.startChat', error: new Error('offline') }],
      'reply.stop': [{ type: 'reply.stop' }],
      'chat.close': [{ type: 'chat.close' }],
      'message.send': [{ type: 'message.send', content: '  Hi there  ' }],
    },
  },
});
