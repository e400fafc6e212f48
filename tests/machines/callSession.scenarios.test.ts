import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import {
  type CallSessionInput,
  callSessionMachine,
  type ListenInput,
  type ReplyInput,
} from '../../src/machines/callSession.machine.js';

/**
 * Conversations played on the REAL machine with fake listen/reply actors (the server's are provider
 * streams): what the caller hears, what the agent says, and why the call ends.
 */

const base: CallSessionInput = {
  mode: 'voice',
  greeting: 'Hello, this is Ava.',
  pauseBeforeSpeakingMs: 0,
  endOfTurnMs: 300,
  bargeInMs: 200,
  reminderMs: 0,
  reminderTimes: 0,
  endOnSilenceMs: 0,
  maxDurationMs: 0,
  connectTimeoutMs: 30_000,
  hangupGraceMs: 1000,
};

function start(input: Partial<CallSessionInput> = {}, script?: (r: ReplyInput) => void) {
  const replies: ReplyInput[] = [];
  const pending: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  const listeners: { reject: (e: unknown) => void }[] = [];
  const hangUps: string[] = [];
  let clears = 0;
  const machine = callSessionMachine.provide({
    actors: {
      listen: fromPromise<void, ListenInput>(
        () =>
          new Promise<void>((_resolve, reject) => {
            listeners.push({ reject });
          }),
      ),
      reply: fromPromise<void, ReplyInput>(
        ({ input }) =>
          new Promise<void>((resolve, reject) => {
            replies.push(input);
            pending.push({ resolve, reject });
            script?.(input);
          }),
      ),
    },
    actions: {
      hangUp: (_, params) => {
        hangUps.push(params.reason);
      },
      clearPlayback: () => {
        clears++;
      },
    },
  });
  const actor = createActor(machine, { input: { ...base, ...input } });
  actor.start();
  const h = {
    actor,
    replies,
    hangUps,
    get clears() {
      return clears;
    },
    get listenStarted() {
      return listeners.length;
    },
    finishReply: () => pending.shift()?.resolve(),
    failReply: (e: unknown) => pending.shift()?.reject(e),
    failListen: (e: unknown) => listeners.shift()?.reject(e),
  };
  return h;
}

const conv = (a: { getSnapshot(): { value: unknown } }) => (a.getSnapshot().value as { conversation: unknown }).conversation;

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('callSession conversations', () => {
  it('greets, answers the caller, and hangs up after end_call once the goodbye is heard', async () => {
    const h = start();
    h.actor.send({ type: 'transport.opened' });
    await vi.advanceTimersByTimeAsync(0);
    expect(h.replies[0]).toMatchObject({ kind: 'greeting', text: 'Hello, this is Ava.' });
    h.actor.send({ type: 'reply.output_started' });
    h.actor.send({ type: 'reply.sentence', text: 'Hello, this is Ava.' });
    expect(h.actor.getSnapshot().hasTag('speaking')).toBe(true);
    h.finishReply();
    await vi.advanceTimersByTimeAsync(0);
    expect(conv(h.actor)).toBe('listening');

    h.actor.send({ type: 'caller.speech_started' });
    h.actor.send({ type: 'caller.transcript', text: 'I need an', final: false });
    h.actor.send({ type: 'caller.transcript', text: 'I need an appointment.', final: true });
    h.actor.send({ type: 'caller.utterance_ended' });
    await vi.advanceTimersByTimeAsync(299);
    expect(h.replies).toHaveLength(1); // the end-of-turn wait is not over
    await vi.advanceTimersByTimeAsync(1);
    expect(h.replies[1]?.kind).toBe('answer');
    expect(h.replies[1]?.history.at(-1)).toEqual({ role: 'user', text: 'I need an appointment.' });

    h.actor.send({ type: 'reply.output_started' });
    h.actor.send({ type: 'reply.sentence', text: 'Goodbye!' });
    h.actor.send({ type: 'reply.tool_call', name: 'end_call', arguments: {} });
    h.finishReply();
    await vi.advanceTimersByTimeAsync(0);
    expect(h.hangUps).toEqual(['agent_hangup']);
    h.actor.send({ type: 'transport.closed' });
    expect(h.actor.getSnapshot().status).toBe('done');
    expect(h.actor.getSnapshot().output).toMatchObject({
      reason: 'agent_hangup',
      history: [
        { role: 'agent', text: 'Hello, this is Ava.' },
        { role: 'user', text: 'I need an appointment.' },
        { role: 'agent', text: 'Goodbye!', toolCalls: [{ name: 'end_call', arguments: {} }] },
      ],
    });
  });

  it('barge-in: the caller talks over the agent long enough; audio cleared, the turn cut to what was heard', async () => {
    const h = start({ greeting: '' });
    h.actor.send({ type: 'transport.opened' });
    h.actor.send({ type: 'caller.transcript', text: 'Hi.', final: true });
    h.actor.send({ type: 'caller.utterance_ended' });
    await vi.advanceTimersByTimeAsync(300);
    h.actor.send({ type: 'reply.output_started' });
    h.actor.send({ type: 'reply.sentence', text: 'Our nursing team is in from ten.' });
    h.actor.send({ type: 'reply.sentence', text: 'They leave at five.' });
    h.actor.send({ type: 'agent.heard', text: 'Our nursing team is in from ten.' });
    h.actor.send({ type: 'caller.speech_started' });
    await vi.advanceTimersByTimeAsync(199);
    expect(h.clears).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(h.clears).toBe(1);
    expect(conv(h.actor)).toBe('interrupted');
    h.actor.send({ type: 'agent.heard', text: 'Our nursing team is in from ten. They' });
    expect(conv(h.actor)).toEqual({ userSpeaking: 'talking' });
    expect(h.actor.getSnapshot().context.history.at(-1)).toEqual({
      role: 'agent',
      text: 'Our nursing team is in from ten. They',
      interrupted: true,
    });
  });

  it('a short noise over the agent is not a barge-in', async () => {
    const h = start({ greeting: 'Hello.' });
    h.actor.send({ type: 'transport.opened' });
    await vi.advanceTimersByTimeAsync(0);
    h.actor.send({ type: 'reply.output_started' });
    h.actor.send({ type: 'caller.speech_started' });
    await vi.advanceTimersByTimeAsync(100);
    h.actor.send({ type: 'caller.utterance_ended' });
    await vi.advanceTimersByTimeAsync(500);
    expect(h.clears).toBe(0);
    expect(h.actor.getSnapshot().hasTag('speaking')).toBe(true);
  });

  it('interruption 0 (bargeInMs null): the agent is never interrupted', async () => {
    const h = start({ greeting: 'Hello.', bargeInMs: null });
    h.actor.send({ type: 'transport.opened' });
    await vi.advanceTimersByTimeAsync(0);
    h.actor.send({ type: 'reply.output_started' });
    h.actor.send({ type: 'caller.speech_started' });
    await vi.advanceTimersByTimeAsync(5000);
    expect(h.clears).toBe(0);
  });

  it('silence: reminders, then the call ends for inactivity', async () => {
    const h = start({ greeting: '', reminderMs: 1000, reminderTimes: 2, endOnSilenceMs: 10_000 });
    h.actor.send({ type: 'transport.opened' });
    await vi.advanceTimersByTimeAsync(1000);
    expect(h.replies.map((r) => r.kind)).toEqual(['reminder']);
    h.actor.send({ type: 'reply.output_started' });
    h.finishReply();
    await vi.advanceTimersByTimeAsync(1000);
    expect(h.replies.map((r) => r.kind)).toEqual(['reminder', 'reminder']);
    h.finishReply();
    await vi.advanceTimersByTimeAsync(5000);
    expect(h.replies).toHaveLength(2); // no reminders left
    await vi.advanceTimersByTimeAsync(3000);
    expect(h.hangUps).toEqual(['inactivity']);
  });

  it('max duration ends the call', async () => {
    const h = start({ greeting: '', maxDurationMs: 60_000 });
    h.actor.send({ type: 'transport.opened' });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(h.hangUps).toEqual(['max_duration_reached']);
    await vi.advanceTimersByTimeAsync(1000); // the line never confirms: hang-up grace
    expect(h.actor.getSnapshot().status).toBe('done');
    expect(h.actor.getSnapshot().output?.reason).toBe('max_duration_reached');
  });

  it('a provider failure ends the call with its reason and message', async () => {
    const h = start({ greeting: 'Hi.' });
    h.actor.send({ type: 'transport.opened' });
    await vi.advanceTimersByTimeAsync(0);
    h.failReply({ reason: 'error_llm_provider', message: 'OpenAI refused the API key.' });
    await vi.advanceTimersByTimeAsync(0);
    expect(h.hangUps).toEqual(['error_llm_provider']);
    expect(h.actor.getSnapshot().context.errorMessage).toBe('OpenAI refused the API key.');
  });

  it('the speech recogniser failing ends the call', async () => {
    const h = start({ greeting: '' });
    h.actor.send({ type: 'transport.opened' });
    await vi.advanceTimersByTimeAsync(0);
    h.failListen({ reason: 'error_stt_provider', message: 'Deepgram refused the API key.' });
    await vi.advanceTimersByTimeAsync(0);
    expect(h.hangUps).toEqual(['error_stt_provider']);
  });

  it('the caller going on before any audio: the answer is dropped and their turn reopened', async () => {
    const h = start({ greeting: '' });
    h.actor.send({ type: 'transport.opened' });
    h.actor.send({ type: 'caller.transcript', text: 'I want', final: true });
    h.actor.send({ type: 'caller.utterance_ended' });
    await vi.advanceTimersByTimeAsync(300);
    expect(h.actor.getSnapshot().hasTag('thinking')).toBe(true);
    h.actor.send({ type: 'caller.speech_started' });
    expect(conv(h.actor)).toEqual({ userSpeaking: 'talking' });
    h.actor.send({ type: 'caller.transcript', text: 'to book a visit.', final: true });
    h.actor.send({ type: 'caller.utterance_ended' });
    await vi.advanceTimersByTimeAsync(300);
    expect(h.replies.at(-1)?.history).toEqual([{ role: 'user', text: 'I want to book a visit.' }]);
  });

  it('text mode: a message is answered; end_call ends the chat', async () => {
    const h = start({ mode: 'text', greeting: '', bargeInMs: null });
    h.actor.send({ type: 'transport.opened' });
    h.actor.send({ type: 'caller.message', text: 'Bye' });
    expect(h.replies[0]?.history).toEqual([{ role: 'user', text: 'Bye' }]);
    h.actor.send({ type: 'reply.output_started' });
    h.actor.send({ type: 'reply.sentence', text: 'Goodbye.' });
    h.actor.send({ type: 'reply.tool_call', name: 'end_call', arguments: {} });
    h.finishReply();
    await vi.advanceTimersByTimeAsync(0);
    expect(h.hangUps).toEqual(['agent_hangup']);
  });

  it('the caller hangs up mid-turn: the call ends user_hangup', async () => {
    const h = start();
    h.actor.send({ type: 'transport.opened' });
    await vi.advanceTimersByTimeAsync(0);
    h.actor.send({ type: 'transport.closed' });
    expect(h.actor.getSnapshot().status).toBe('done');
    expect(h.actor.getSnapshot().output?.reason).toBe('user_hangup');
    expect(h.hangUps).toEqual([]);
  });

  it('the line closes while the agent speaks (a hang-up, a warm transfer): the turn is kept as far as it was heard', async () => {
    const h = start();
    h.actor.send({ type: 'transport.opened' });
    await vi.advanceTimersByTimeAsync(0);
    h.actor.send({ type: 'reply.output_started' });
    h.actor.send({ type: 'reply.sentence', text: 'Hello, this is Ava.' });
    h.actor.send({ type: 'reply.sentence', text: 'One moment while I connect you.' });
    h.actor.send({ type: 'agent.heard', text: 'Hello, this is Ava.' });
    h.actor.send({ type: 'transport.closed' });
    const out = h.actor.getSnapshot().output;
    expect(out?.reason).toBe('user_hangup');
    expect(out?.history.at(-1)).toMatchObject({ role: 'agent', text: 'Hello, this is Ava.', interrupted: true });
  });
});
