import { describe, expect, it, vi } from 'vitest';
import { type AnyMachineSnapshot, createActor, fromCallback, fromPromise } from 'xstate';
import { CALL_RUNTIME_MESSAGES, type StartConversationInput } from '../../src/api/contract/call-runtime.js';
import { TELEPHONY_MESSAGES } from '../../src/api/contract/telephony.js';
import { ApiError } from '../../src/api/errors.js';
import {
  addTranscript,
  type LineCommand,
  WEB_CALL_HANGUP_TIMEOUT_MS,
  WEB_CALL_MESSAGES,
  type WebCallEvent,
  webCallMachine,
} from '../../src/machines/webCall.machine.js';
import { describeModel } from './harness.js';

const request: StartConversationInput = { agent_id: 'a1' };
const levels = () => ({ caller: 0.5, agent: 0.25 });
const startedCall = { callId: 'call-1', url: 'ws://127.0.0.1/api/v1/call/web/call-1/stream?token=t' };

describeModel('webCall', webCallMachine, {
  events: {
    'call.start': [{ type: 'call.start', request }],
    'mic.ready': [{ type: 'mic.ready', levels }],
    'mic.failed': [{ type: 'mic.failed', message: CALL_RUNTIME_MESSAGES.microphoneDenied }],
    'line.transcript': [
      { type: 'line.transcript', role: 'user', text: 'I would like', final: false },
      { type: 'line.transcript', role: 'agent', text: 'Sure.', final: true },
    ],
    'line.state': [{ type: 'line.state', value: 'speaking' }],
    'line.ended': [{ type: 'line.ended', reason: 'agent_hangup' }],
    'xstate.done.actor.startWebCall': [{ type: 'xstate.done.actor.startWebCall', output: startedCall }],
    'xstate.error.actor.startWebCall': [
      {
        type: 'xstate.error.actor.startWebCall',
        error: new ApiError({ kind: 'http', status: 400, serverMessage: 'Connect Deepgram', link: '/dashboard/providers' }),
      },
      { type: 'xstate.error.actor.startWebCall', error: new Error('offline') },
    ],
  },
  // the transcript grows and mute toggles: the graph tells states apart by where the call is and how it ended
  serializeState: (s: AnyMachineSnapshot) => {
    const c = s.context as Record<string, unknown> & { transcript: unknown[] };
    return JSON.stringify([s.value, c.callId, c.error, c.endReason, c.transcript.length > 0, c.levels !== null]);
  },
});

/** A webCall actor with a scripted line: `line` gets the machine's commands and may answer with events. */
function callActor(opts: { mic?: 'ready' | 'denied'; start?: () => Promise<typeof startedCall> } = {}) {
  const commands: LineCommand[] = [];
  const starts: StartConversationInput[] = [];
  let released = 0;
  let send: (e: WebCallEvent) => void = () => {};
  const actor = createActor(
    webCallMachine.provide({
      actors: {
        callLine: fromCallback<LineCommand, void>(({ sendBack, receive }) => {
          send = sendBack;
          receive((c) => commands.push(c));
          queueMicrotask(() =>
            opts.mic === 'denied'
              ? sendBack({ type: 'mic.failed', message: CALL_RUNTIME_MESSAGES.microphoneDenied })
              : sendBack({ type: 'mic.ready', levels }),
          );
          return () => {
            released += 1;
          };
        }),
        startWebCall: fromPromise<typeof startedCall, StartConversationInput>(({ input }) => {
          starts.push(input);
          return opts.start?.() ?? Promise.resolve(startedCall);
        }),
      },
    }),
  ).start();
  return { actor, commands, starts, released: () => released, line: (e: WebCallEvent) => send(e) };
}

describe('webCall behaviour', () => {
  it('Start: microphone, then the call, then its socket; live transcript and state; mute; hang up ends on the close', async () => {
    const c = callActor();
    c.actor.send({ type: 'call.start', request });
    expect(c.actor.getSnapshot().hasTag('starting')).toBe(true);
    await vi.waitFor(() => expect(c.actor.getSnapshot().matches({ active: 'connecting' })).toBe(true));
    expect(c.starts).toEqual([request]);
    expect(c.commands).toEqual([{ type: 'line.connect', url: startedCall.url }]);
    c.line({ type: 'line.opened' });
    expect(c.actor.getSnapshot().hasTag('live')).toBe(true);
    expect(c.actor.getSnapshot().context.levels?.()).toEqual({ caller: 0.5, agent: 0.25 });

    c.line({ type: 'line.state', value: 'listening' });
    c.line({ type: 'line.transcript', role: 'user', text: 'I would', final: false });
    c.line({ type: 'line.transcript', role: 'user', text: 'I would like a cleaning', final: false });
    c.line({ type: 'line.state', value: 'thinking' });
    c.line({ type: 'line.transcript', role: 'user', text: 'I would like a cleaning.', final: true });
    c.line({ type: 'line.transcript', role: 'agent', text: 'Sure, when?', final: true });
    c.line({ type: 'line.state', value: 'speaking' });
    const ctx = c.actor.getSnapshot().context;
    expect(ctx.agentState).toBe('speaking');
    expect(ctx.transcript).toEqual([
      { role: 'user', text: 'I would like a cleaning.', final: true },
      { role: 'agent', text: 'Sure, when?', final: true },
    ]);

    c.actor.send({ type: 'mute.toggle' });
    expect(c.actor.getSnapshot().context.muted).toBe(true);
    c.actor.send({ type: 'mute.toggle' });
    c.actor.send({ type: 'call.hangup' });
    expect(c.commands.slice(1)).toEqual([
      { type: 'line.mute', muted: true },
      { type: 'line.mute', muted: false },
      { type: 'line.hangup' },
    ]);
    c.line({ type: 'line.closed' });
    expect(c.actor.getSnapshot().matches('ended')).toBe(true);
    expect(c.actor.getSnapshot().context.endReason).toBe('user_hangup');
    // leaving the call released the microphone and the socket
    expect(c.released()).toBe(1);
    expect(c.actor.getSnapshot().context.callId).toBe('call-1');
  });

  it('a microphone refused: the message, no call created, nothing left running; Start again tries again', async () => {
    const c = callActor({ mic: 'denied' });
    c.actor.send({ type: 'call.start', request });
    await vi.waitFor(() => expect(c.actor.getSnapshot().matches('failed')).toBe(true));
    expect(c.actor.getSnapshot().context.error).toBe(CALL_RUNTIME_MESSAGES.microphoneDenied);
    expect(c.starts).toEqual([]);
    expect(c.released()).toBe(1);
    c.actor.send({ type: 'call.start', request });
    expect(c.actor.getSnapshot().hasTag('starting')).toBe(true);
  });

  it('the server ends the call (the agent hung up): its reason shows; a lost connection says so', async () => {
    const c = callActor();
    c.actor.send({ type: 'call.start', request });
    await vi.waitFor(() => expect(c.actor.getSnapshot().matches({ active: 'connecting' })).toBe(true));
    c.line({ type: 'line.opened' });
    c.line({ type: 'line.ended', reason: 'agent_hangup' });
    expect(c.actor.getSnapshot().matches('ended')).toBe(true);
    expect(c.actor.getSnapshot().context.endReason).toBe('agent_hangup');

    const d = callActor();
    d.actor.send({ type: 'call.start', request });
    await vi.waitFor(() => expect(d.actor.getSnapshot().matches({ active: 'connecting' })).toBe(true));
    d.line({ type: 'line.opened' });
    d.line({ type: 'line.closed' });
    expect(d.actor.getSnapshot().context).toMatchObject({
      endReason: 'connection_lost',
      endMessage: WEB_CALL_MESSAGES.connectionLost,
    });
  });

  it('a call that cannot be created names the provider to connect; closing the window mid-call cuts it', async () => {
    const c = callActor({
      start: () =>
        Promise.reject(
          new ApiError({ kind: 'http', status: 400, serverMessage: 'Connect Deepgram', link: '/dashboard/providers' }),
        ),
    });
    c.actor.send({ type: 'call.start', request });
    await vi.waitFor(() => expect(c.actor.getSnapshot().matches('failed')).toBe(true));
    expect(c.actor.getSnapshot().context).toMatchObject({ error: 'Connect Deepgram', errorLink: '/dashboard/providers' });

    const d = callActor();
    d.actor.send({ type: 'call.start', request });
    await vi.waitFor(() => expect(d.actor.getSnapshot().matches({ active: 'connecting' })).toBe(true));
    d.line({ type: 'line.opened' });
    d.actor.send({ type: 'call.close' });
    expect(d.actor.getSnapshot().matches('idle')).toBe(true);
    expect(d.released()).toBe(1);
  });

  it.each([
    [429, TELEPHONY_MESSAGES.concurrencyLimit(1)],
    [402, TELEPHONY_MESSAGES.spendLimit],
  ])('a call the company limits refuse (%i) says why and gives the microphone back', async (status, message) => {
    const c = callActor({ start: () => Promise.reject(new ApiError({ kind: 'http', status, serverMessage: message })) });
    c.actor.send({ type: 'call.start', request });
    await vi.waitFor(() => expect(c.actor.getSnapshot().matches('failed')).toBe(true));
    expect(c.actor.getSnapshot().context).toMatchObject({ error: message, errorLink: null });
    expect(c.released()).toBe(1);
  });

  it('a hang-up the server never answers still ends the call', async () => {
    vi.useFakeTimers();
    try {
      const c = callActor();
      c.actor.send({ type: 'call.start', request });
      await vi.waitFor(() => expect(c.actor.getSnapshot().matches({ active: 'connecting' })).toBe(true));
      c.line({ type: 'line.opened' });
      c.actor.send({ type: 'call.hangup' });
      vi.advanceTimersByTime(WEB_CALL_HANGUP_TIMEOUT_MS);
      expect(c.actor.getSnapshot().matches('ended')).toBe(true);
      expect(c.released()).toBe(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('addTranscript: a caller line being spoken is replaced as it grows and settles when the agent answers', () => {
    let lines = addTranscript([], { role: 'user', text: 'I', final: false });
    lines = addTranscript(lines, { role: 'user', text: 'I want', final: false });
    expect(lines).toEqual([{ role: 'user', text: 'I want', final: false }]);
    lines = addTranscript(lines, { role: 'agent', text: 'Yes?', final: true });
    expect(lines).toEqual([
      { role: 'user', text: 'I want', final: true },
      { role: 'agent', text: 'Yes?', final: true },
    ]);
    lines = addTranscript(lines, { role: 'user', text: 'A cleaning.', final: true });
    expect(lines).toHaveLength(3);
    expect(addTranscript(lines, { role: 'agent', text: ' ', final: true })).toEqual(lines);
  });
});
