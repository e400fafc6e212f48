/**
 * The call engine's machine walked like every other machine (tests/machines/harness.ts), from four
 * kinds of call: the voice pipeline with a welcome message (the agent speaks first), the caller speaking
 * first (no welcome message), a text chat, and speech-to-speech. Its state invariants are in
 * tests/machines/invariants/callSession.ts; the scenario tests (callSession.scenarios.test.ts) play
 * whole conversations.
 */
import type { AnyMachineSnapshot } from 'xstate';
import { type CallSessionContext, type CallSessionInput, callSessionMachine } from '../../src/machines/callSession.machine.js';
import { describeModel, type ModelEvent, stableStringify } from './harness.js';

const voice: CallSessionInput = {
  mode: 'voice',
  greeting: 'Hello, this is Ava.',
  pauseBeforeSpeakingMs: 200,
  endOfTurnMs: 300,
  bargeInMs: 150,
  reminderMs: 5000,
  reminderTimes: 1,
  endOnSilenceMs: 20_000,
  maxDurationMs: 60_000,
  connectTimeoutMs: 5000,
  hangupGraceMs: 1000,
};
const callerFirst: CallSessionInput = { ...voice, greeting: '', reminderTimes: 0, reminderMs: 0, endOnSilenceMs: 0 };
const text: CallSessionInput = { ...voice, mode: 'text', bargeInMs: null, endOnSilenceMs: 0, maxDurationMs: 0 };
const speechToSpeech: CallSessionInput = { ...voice, speechToSpeech: true, greeting: '', reminderMs: 0, reminderTimes: 0 };

const ctx = (s: AnyMachineSnapshot) => s.context as CallSessionContext;

/** The call already had a turn with a function the engine runs. */
const usedTools = (c: CallSessionContext) => c.history.some((t) => t.toolCalls?.some((x) => x.type !== undefined));

/** The events a caller, the line and the reply stream can send in each state (few, to keep the graph small). */
function events(s: AnyMachineSnapshot): ModelEvent[] {
  const c = ctx(s);
  if (s.matches({ transport: 'connecting' })) return [{ type: 'transport.opened' }, { type: 'transport.closed' }];
  if (!s.matches({ transport: 'open' })) return s.matches({ transport: 'closing' }) ? [{ type: 'transport.closed' }] : [];
  const line: ModelEvent[] = [];
  if (s.matches({ conversation: 'listening' })) {
    // the line's own endings once, before anybody spoke (they end the call from any turn alike)
    if (c.history.length === 0 || c.mode === 'text') line.push({ type: 'call.hangup' }, { type: 'transport.closed' });
    if (c.history.length === 0)
      line.push({ type: 'xstate.error.actor.listen', error: { reason: 'error_stt_provider', message: 'STT down' } });
    if (c.mode === 'text') return [...line, { type: 'caller.message', text: 'Hello' }, { type: 'caller.message', text: ' ' }];
    return [
      ...line,
      { type: 'caller.speech_started' },
      { type: 'caller.transcript', text: 'Hi there', final: true },
      { type: 'caller.transcript', text: '', final: false },
    ];
  }
  if (s.matches({ conversation: 'pausing' }))
    return c.mode === 'text' ? [{ type: 'caller.message', text: 'Hello' }] : [{ type: 'caller.speech_started' }];
  if (s.matches({ conversation: { userSpeaking: 'talking' } }))
    return [{ type: 'caller.transcript', text: 'I need help', final: true }, { type: 'caller.utterance_ended' }];
  if (s.matches({ conversation: { userSpeaking: 'pausing' } }))
    return [{ type: 'caller.speech_started' }, { type: 'caller.transcript', text: 'please', final: false }];
  const reply: ModelEvent[] = [
    { type: 'xstate.done.actor.reply' },
    { type: 'xstate.error.actor.reply', error: { reason: 'error_tts_provider', message: 'TTS down' } },
  ];
  // a function of the agent (one a call keeps the graph small): called, run, answered
  const lookup: ModelEvent[] =
    c.toolCalls.length === 0 && c.turnKind === 'answer' && !usedTools(c)
      ? [{ type: 'reply.tool_call', name: 'lookup', arguments: { day: 'monday' }, toolType: 'custom' }]
      : [];
  const runs: ModelEvent[] = c.toolCalls.some((t) => t.type && !t.status) ? [{ type: 'reply.tools_started' }] : [];
  if (s.matches({ conversation: { agentTurn: 'thinking' } }))
    return [
      ...reply,
      { type: 'reply.output_started' },
      { type: 'caller.speech_started' },
      { type: 'reply.tool_call', name: 'end_call', arguments: {} },
      ...lookup,
      ...runs,
    ];
  if (s.matches({ conversation: { agentTurn: { speaking: 'alone' } } }))
    return [
      ...reply,
      { type: 'reply.sentence', text: 'Sure.' },
      { type: 'agent.heard', text: 'Sure' },
      { type: 'caller.speech_started' },
      ...(c.userText === '' ? [{ type: 'caller.transcript', text: 'wait', final: true }] : []),
      ...runs,
    ];
  if (s.matches({ conversation: { agentTurn: { speaking: 'overlapped' } } })) return [{ type: 'caller.utterance_ended' }];
  if (s.matches({ conversation: { agentTurn: 'usingTools' } })) {
    const pending = c.toolCalls.findIndex((t) => t.type && !t.status);
    const answered: ModelEvent[] =
      pending >= 0 ? [{ type: 'reply.tool_result', index: pending, status: 'ok', result: 'Open 9 to 5', ms: 12 }] : [];
    if (s.matches({ conversation: { agentTurn: { usingTools: 'overlapped' } } }))
      return [{ type: 'caller.utterance_ended' }, ...answered];
    return [
      ...answered,
      ...(pending < 0 ? [{ type: 'reply.tools_done' }] : []),
      { type: 'reply.sentence', text: 'One moment while I check that.' },
      { type: 'caller.speech_started' },
    ];
  }
  if (s.matches({ conversation: 'interrupted' }))
    return [
      { type: 'agent.heard', text: 'Sure' },
      { type: 'caller.transcript', text: 'stop', final: true },
    ];
  return [];
}

/** What the chart branches on: the state and a few facts of the context (texts by whether they are empty). */
const serializeState = (s: AnyMachineSnapshot) => {
  const c = ctx(s);
  return stableStringify({
    value: s.value,
    user: c.userText !== '',
    reply: c.replyText !== '' || c.heardText !== '',
    hangUp: c.hangUpAfterTurn,
    reminders: c.remindersLeft,
    talked: c.history.length > 0,
    kind: s.matches({ conversation: 'agentTurn' }) ? c.turnKind : null,
    tools: c.toolCalls.filter((t) => t.type !== undefined).map((t) => t.status ?? 'running'),
    usedTools: usedTools(c),
  });
};

describeModel('callSession', callSessionMachine, {
  inputs: [voice, callerFirst, text, speechToSpeech],
  implementations: { actions: { hangUp: () => {}, clearPlayback: () => {}, announce: () => {} } },
  events,
  defaults: 'timers',
  serializeState,
  limit: 2500,
});
