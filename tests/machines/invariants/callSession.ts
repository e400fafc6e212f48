/**
 * callSession: one conversation. The line is listened to only while open; the agent
 * replies one turn at a time; a turn starts with what the caller said (or the welcome message), the
 * history keeps every finished turn in order; a call ends once, for one reason, and hangs up the line
 * with it; text chats are never barged in. A function's result is recorded only while the turn's functions
 * run: never after a barge-in (a function still running then is kept as cancelled, without a result).
 */
import { expect } from 'vitest';
import { cameFrom, effectsNow, expectPending, onlyRequest, paramsNow } from './lib.js';
import { defineInvariants, type Snapshot, type World } from './types.js';

type ToolCall = { name: string; type?: string; status?: string; result?: string };
type Turn = { role: 'user' | 'agent'; text: string; interrupted?: boolean; toolCalls?: ToolCall[] };
const history = (s: Snapshot) => s.context.history as Turn[];
const previous = (w: World) => w.previous as Snapshot;

const noReply = (_s: Snapshot, w: World) => expectPending(w, 'reply', 0);

export default defineInvariants({
  always: (s, w) => {
    // the call ends once, for one reason
    if (w.previous?.context.reason) {
      expect(s.context.reason).toBe(w.previous.context.reason);
      expect(s.context.errorMessage).toBe(w.previous.context.errorMessage);
    }
    const ended = s.matches({ conversation: 'ended' });
    expect(ended).toBe(s.context.reason !== null);
    expect(s.matches({ timers: 'stopped' })).toBe(ended);
    // the recogniser runs exactly while the line is open
    expectPending(w, 'listen', s.matches({ transport: 'open' }) ? 1 : 0);
    // the history only grows, turn by turn (an answer dropped for the caller's words reopens their turn)
    if (w.previous) {
      const before = history(previous(w));
      const now = history(s);
      const reopened =
        w.event.type === 'caller.speech_started' &&
        (cameFrom(w, 'conversation.agentTurn.thinking') || cameFrom(w, 'conversation.agentTurn.usingTools')) &&
        s.matches({ conversation: 'userSpeaking' });
      if (reopened) expect(now).toEqual(before.at(-1)?.role === 'user' ? before.slice(0, -1) : before);
      else {
        expect(now.slice(0, before.length)).toEqual(before);
        expect(now.length - before.length).toBeLessThanOrEqual(1);
      }
    }
    expect(s.hasTag('listening')).toBe(s.matches({ conversation: 'listening' }) || s.matches({ conversation: 'userSpeaking' }));
    expect(s.hasTag('thinking')).toBe(s.matches({ conversation: { agentTurn: 'thinking' } }));
    expect(s.hasTag('usingTools')).toBe(s.matches({ conversation: { agentTurn: 'usingTools' } }));
    if (w.previous) {
      // a function's result is recorded only while the functions run, by the result itself
      const before = previous(w).context.toolCalls as ToolCall[];
      const now = s.context.toolCalls as ToolCall[];
      const newResults = now.filter((t, i) => t.status !== undefined && before[i]?.status === undefined);
      if (newResults.length) {
        expect(cameFrom(w, 'conversation.agentTurn.usingTools')).toBe(true);
        expect(w.event.type).toBe('reply.tool_result');
        expect(newResults).toHaveLength(1);
      }
      // a turn cut by a barge-in keeps the results recorded before it; a function still running was cancelled
      const added = history(s).length > history(previous(w)).length ? history(s).at(-1) : undefined;
      if (added?.role === 'agent' && added.interrupted)
        expect(added.toolCalls ?? []).toEqual(
          before
            .filter((t) => t.type !== undefined)
            .map((t) => (t.status === undefined ? { ...t, status: 'cancelled', result: '', ms: 0 } : t)),
        );
    }
    expect(s.hasTag('speaking')).toBe(s.matches({ conversation: { agentTurn: 'speaking' } }));
    // the settings of the call never change
    if (w.previous)
      for (const k of ['mode', 'greeting', 'bargeInMs', 'reminderTimes', 'speechToSpeech'])
        expect(s.context[k]).toEqual(w.previous.context[k]);
    expect(s.context.remindersLeft).toBeGreaterThanOrEqual(0);
    expect(s.context.remindersLeft).toBeLessThanOrEqual(s.context.reminderTimes);
    if (s.status === 'done')
      expect(s.output).toEqual({ reason: s.context.reason, errorMessage: s.context.errorMessage, history: s.context.history });
  },
  states: {
    'transport.connecting': (s, w) => {
      expect(s.matches({ conversation: 'waiting', timers: 'standby' })).toBe(true);
      expect(effectsNow(w)).toEqual([]);
    },
    'transport.open': (s) => {
      expect(s.matches({ timers: 'standby' })).toBe(false);
    },
    'transport.closing': (s, w) => {
      expect(s.context.reason).not.toBeNull();
      // the line is hung up once, with the reason the call ended for
      if (cameFrom(w, 'transport.open')) {
        expect(effectsNow(w).filter((e) => e === 'hangUp')).toEqual(['hangUp']);
        expect(paramsNow(w, 'hangUp')).toEqual({ reason: s.context.reason, message: s.context.errorMessage });
      } else expect(effectsNow(w)).not.toContain('hangUp');
    },
    'transport.closed': (s, w) => {
      expect(s.context.reason).not.toBeNull();
      if (cameFrom(w, 'transport.connecting') || (cameFrom(w, 'transport.open') && w.event.type === 'transport.closed'))
        expect(s.context.reason).toBe(
          w.event.type === 'transport.closed' ? (w.previous?.context.reason ?? 'user_hangup') : 'error_transport',
        );
      if (cameFrom(w, 'transport.connecting') && w.event.type !== 'transport.closed')
        expect(s.context.errorMessage).toBe('The call could not connect.');
    },
    'conversation.waiting': (s, w) => {
      noReply(s, w);
      expect(s.matches({ transport: 'connecting' })).toBe(true);
    },
    'conversation.pausing': (s, w) => {
      noReply(s, w);
      // only a welcome message makes the agent speak first
      expect(s.context.greeting.trim()).not.toBe('');
    },
    'conversation.listening': (s, w) => {
      noReply(s, w);
      if (!cameFrom(w, 'conversation.listening')) expect(effectsNow(w)).toContain('announce');
      if (cameFrom(w, 'conversation.agentTurn')) {
        // the caller heard the whole reply: it is the last turn of the history
        expect(w.event.type).toBe('xstate.done.actor.reply');
        expect(history(s).at(-1)).toEqual({
          role: 'agent',
          text: previous(w).context.replyText,
          ...(previous(w).context.toolCalls.length ? { toolCalls: previous(w).context.toolCalls } : {}),
        });
        expect(s.context.replyText).toBe('');
      }
      if (cameFrom(w, 'conversation.userSpeaking')) {
        // noise without words: nothing to answer
        expect(s.context.userText).toBe('');
        expect(s.context.speechToSpeech).not.toBe(true);
      }
    },
    'conversation.userSpeaking': (s, w) => {
      noReply(s, w);
      if (!cameFrom(w, 'conversation.userSpeaking')) expect(s.context.remindersLeft).toBe(s.context.reminderTimes);
      if (w.event.type === 'caller.transcript' && w.event.type) {
        const e = w.event as unknown as { text: string; final: boolean };
        const before = previous(w).context.userText as string;
        expect(s.context.userText).toBe(e.final ? [before, e.text].filter(Boolean).join(' ').trim() : before);
      }
    },
    'conversation.userSpeaking.talking': () => {},
    'conversation.userSpeaking.pausing': (_s, w) => {
      expect(['caller.utterance_ended']).toContain(w.event.type);
    },
    'conversation.agentTurn': (s, w) => {
      // one reply at a time, for the turn that started, with the history so far
      const request = onlyRequest(w, 'reply');
      expect(request.kind).toBe(s.context.turnKind);
      expect(request.text).toBe(s.context.turnKind === 'greeting' ? s.context.greeting : '');
      if (!cameFrom(w, 'conversation.agentTurn')) {
        expect(request.history).toEqual(history(s));
        expect(s.context.replyText).toBe('');
        expect(s.context.toolCalls).toEqual([]);
        if (s.context.turnKind === 'answer') {
          // the answer is to what the caller just said
          expect(history(s).at(-1)?.role).toBe('user');
          expect(s.context.userText).toBe('');
        }
        if (s.context.turnKind === 'greeting') expect(cameFrom(w, 'conversation.pausing')).toBe(true);
        if (s.context.turnKind === 'reminder') expect(s.context.remindersLeft).toBe(previous(w).context.remindersLeft - 1);
      } else expect(w.startedNow.filter((r) => r.src === 'reply')).toEqual([]);
      if (w.event.type === 'reply.tool_call' && (w.event as unknown as { name: string }).name === 'end_call')
        expect(s.context.hangUpAfterTurn).toBe(true);
    },
    'conversation.agentTurn.thinking': (s, w) => {
      if (w.event.type === 'caller.speech_started') expect(s.context.mode).toBe('text');
    },
    'conversation.agentTurn.speaking': () => {},
    'conversation.agentTurn.usingTools': (s, w) => {
      // functions run only when the model called one the engine runs
      expect((s.context.toolCalls as ToolCall[]).some((t) => t.type !== undefined)).toBe(true);
      if (!cameFrom(w, 'conversation.agentTurn.usingTools')) expect(w.event.type).toBe('reply.tools_started');
    },
    'conversation.agentTurn.usingTools.running': () => {},
    'conversation.agentTurn.usingTools.overlapped': (s) => {
      expect(s.context.mode).toBe('voice');
      expect(s.context.bargeInMs).not.toBeNull();
      expect(s.context.replyText).not.toBe('');
    },
    'conversation.agentTurn.speaking.alone': () => {},
    'conversation.agentTurn.speaking.overlapped': (s) => {
      // only a voice call with barge-in on is ever talked over
      expect(s.context.mode).toBe('voice');
      expect(s.context.bargeInMs).not.toBeNull();
    },
    'conversation.interrupted': (s, w) => {
      noReply(s, w);
      expect(s.context.mode).toBe('voice');
      if (cameFrom(w, 'conversation.agentTurn')) expect(effectsNow(w)).toContain('clearPlayback');
    },
    'conversation.ended': (s, w) => {
      noReply(s, w);
      if (w.event.type === 'xstate.done.actor.reply') {
        expect(s.context.reason).toBe('agent_hangup');
        expect(history(s).at(-1)?.role).toBe('agent');
      }
      if (w.event.type === 'xstate.error.actor.reply' && !previous(w).context.reason) {
        expect(s.context.reason).toBe('error_tts_provider');
        expect(s.context.errorMessage).toBe('TTS down');
      }
      if (w.event.type === 'call.hangup' && !previous(w).context.reason) expect(s.context.reason).toBe('user_hangup');
    },
    'timers.standby': (s) => expect(s.matches({ transport: 'connecting' })).toBe(true),
    'timers.running': (s) => expect(s.matches({ transport: 'open' })).toBe(true),
    'timers.running.reminder.idle': () => {},
    'timers.running.reminder.armed': (s) => expect(s.matches({ conversation: 'listening' })).toBe(true),
    'timers.running.silence.watching': () => {},
    'timers.running.duration.running': () => {},
    'timers.stopped': (s) => expect(s.context.reason).not.toBeNull(),
  },
});
