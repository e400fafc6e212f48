import { type ActorRef, and, assign, fromPromise, not, raise, type Snapshot, setup } from 'xstate';

/**
 * One conversation between a caller and an agent: a web call, a phone call or a text chat. It runs on the
 * server, not in the browser: server/modules/conversations/runtime.ts starts one actor per call (a web or
 * phone call, a chat turn) through server/voice/engine/conversation.ts, which supplies the effects and the
 * provider streams as child actors (listen.ts, reply.ts, speaker.ts beside it); server/voice/engine/plan.ts
 * compiles the agent's settings into its input (settings.ts has the table), and
 * server/voice/engine/realtime.ts is its listen and reply actors on the speech-to-speech path. The
 * browser's Test, Test LLM and Test Audio run machines of their own (webCall, testChat, voicePreview; see
 * docs/call-runtime.md). Audio never passes through it:
 * the audio line feeds the speech-to-text stream directly and the reply actor feeds the line. Only
 * control events arrive here, and the machine decides who speaks, when the agent is interrupted, and
 * when the call ends.
 *
 * Three parallel regions:
 * - transport: the caller's line (connecting, open, closing, closed). The listen actor (the speech-to-text
 *   stream, or the speech-to-speech session's voice detection) lives while the line is open.
 * - conversation: whose turn it is (greeting, listening, user speaking, the agent thinking and speaking).
 *   The reply actor (LLM then text-to-speech, sentence by sentence) lives for one agent turn and is
 *   stopped when the turn is left, which is how a barge-in aborts the LLM and the voice at once.
 * - timers: silence reminders, end of the call on silence, and the maximum call duration.
 *
 * The effects (hang up the line, clear unplayed audio, record a transfer) are named here and supplied with
 * `.provide()` by the server; tests supply fakes.
 */

/** Why a call ended (stored as the call's disconnection reason). */
export type CallEndReason =
  | 'user_hangup'
  | 'agent_hangup'
  | 'call_transfer'
  | 'inactivity'
  | 'max_duration_reached'
  | 'error_stt_provider'
  | 'error_llm_provider'
  | 'error_tts_provider'
  | 'error_transport'
  /** the caller's line kept sending audio faster than real time (server/voice/lines/audio-gate.ts) */
  | 'error_audio_flood'
  | 'error_unknown';

export type TurnKind = 'greeting' | 'answer' | 'reminder';

/** A function call of the agent's turn (the transcript's `tool_calls`). */
export interface ToolCallRecord {
  name: string;
  arguments: Record<string, unknown>;
  /** the function's type, for a function the engine runs (custom, mcp...); absent for end_call and transfer */
  type?: string;
  /** how the run ended (a function the engine runs); 'cancelled' when the caller barged in first */
  status?: ToolStatus;
  /** what the model read (cut) */
  result?: string;
  /** the run's duration */
  ms?: number;
}

/** How a function's run ended (ToolCallRecordSchema in src/api/contract/call-runtime.ts). */
export type ToolStatus = 'ok' | 'error' | 'timeout' | 'cancelled' | 'invalid_arguments';

/** A finished turn of the conversation: what the caller said, or what the caller heard of the agent. */
export interface Turn {
  role: 'user' | 'agent';
  text: string;
  /** the agent was cut off here by the caller (barge-in) */
  interrupted?: boolean;
  toolCalls?: ToolCallRecord[];
}

export interface CallSessionInput {
  /** 'voice' (web or phone: speech in, speech out) or 'text' (chat: messages in, text out) */
  mode: 'voice' | 'text';
  /** the welcome message with its variables filled in; '' = the caller speaks first */
  greeting: string;
  /** wait after the line opens before the greeting (agent's 'pause before speaking') */
  pauseBeforeSpeakingMs: number;
  /** wait after the caller's utterance ends before the agent answers (from 'responsiveness') */
  endOfTurnMs: number;
  /** how long the caller must talk over the agent to interrupt it (from 'interruption'); null = never */
  bargeInMs: number | null;
  /** silence before a reminder; 0 = no reminders */
  reminderMs: number;
  /** reminders per silence */
  reminderTimes: number;
  /** silence (no caller speech) that ends the call; 0 = never */
  endOnSilenceMs: number;
  /** the longest call; 0 = no limit */
  maxDurationMs: number;
  /** the line does not open within this time: the call fails */
  connectTimeoutMs: number;
  /** the line does not close within this time after the agent hung up: counted as closed */
  hangupGraceMs: number;
  /** the conversation so far, when it goes on (a chat's next message) */
  history?: Turn[];
  /** speech-to-speech: the provider hears and answers by itself, its transcript of the caller arriving late;
   * the agent answers every utterance, words or not */
  speechToSpeech?: boolean;
}

export interface CallSessionContext extends CallSessionInput {
  history: Turn[];
  /** the caller's final words of the turn in progress */
  userText: string;
  /** the agent's reply of the turn in progress (every sentence handed to the voice) */
  replyText: string;
  /** how much of the reply the caller has heard (marks played; cut at a barge-in) */
  heardText: string;
  /** tool calls of the agent's turn in progress */
  toolCalls: ToolCallRecord[];
  turnKind: TurnKind;
  remindersLeft: number;
  /** end_call was asked: hang up once the goodbye has been heard */
  hangUpAfterTurn: boolean;
  reason: CallEndReason | null;
  /** what went wrong, safe to show (a provider's message naming the provider) */
  errorMessage: string | null;
}

export type CallSessionEvent =
  | { type: 'transport.opened' }
  /** the caller's line closed (the caller hung up, or the socket dropped) */
  | { type: 'transport.closed' }
  /** voice detection: the caller started speaking */
  | { type: 'caller.speech_started' }
  /** words of the caller; `final` = this segment will not change */
  | { type: 'caller.transcript'; text: string; final: boolean }
  /** the caller's utterance ended (endpointing, or the provider's utterance end) */
  | { type: 'caller.utterance_ended' }
  /** text mode: a whole message from the caller */
  | { type: 'caller.message'; text: string }
  /** a sentence of the agent's reply was handed to the voice */
  | { type: 'reply.sentence'; text: string }
  /** the first of the agent's audio (or text, in text mode) went out */
  | { type: 'reply.output_started' }
  /** the LLM called one of the agent's functions (`type`: a function the engine runs) */
  | { type: 'reply.tool_call'; name: string; arguments: Record<string, unknown>; toolType?: string }
  /** the reply runs the functions the LLM called (the model waits for their results) */
  | { type: 'reply.tools_started' }
  /** a function's run ended: `index` is its place among the turn's tool calls */
  | { type: 'reply.tool_result'; index: number; status: ToolStatus; result: string; ms: number }
  /** every function of the round answered: the model goes on with their results */
  | { type: 'reply.tools_done' }
  /** the caller has heard the agent's turn up to `text` (marks played, or the cut at a barge-in) */
  | { type: 'agent.heard'; text: string }
  /** the API or the caller's UI ends the call */
  | { type: 'call.hangup' }
  /** raised: end the call for `reason` */
  | { type: 'call.end'; reason: CallEndReason; message?: string }
  /** raised by the conversation for the timers */
  | { type: 'conversation.waiting' }
  | { type: 'conversation.busy' }
  /** raised by the timers for the conversation */
  | { type: 'timer.reminder' };

/** Where an actor sends its control events: the call's own actor. */
export type CallSessionRef = ActorRef<Snapshot<unknown>, CallSessionEvent>;

export interface ListenInput {
  parent: CallSessionRef;
}

export interface ReplyInput {
  parent: CallSessionRef;
  kind: TurnKind;
  /** the greeting's text (kind 'greeting') */
  text: string;
  /** the conversation so far; for an answer, its last turn is the caller's */
  history: Turn[];
}

/** A failure of an actor, as the server's actors throw it. */
export interface CallFailure {
  reason: CallEndReason;
  message: string;
}

const notProvided = (name: string) => () => {
  throw new Error(`callSession: the ${name} actor must be provided`);
};

const failureOf = (error: unknown, fallback: CallEndReason): CallFailure => {
  const e = error as Partial<CallFailure> | undefined;
  return {
    reason: typeof e?.reason === 'string' ? e.reason : fallback,
    message: typeof e?.message === 'string' ? e.message : 'The call failed.',
  };
};

interface EndParams {
  reason: CallEndReason;
  message?: string | undefined;
}
type EndParamsOf<E> = EndParams | ((args: { context: CallSessionContext; event: E }) => EndParams);

/** Ends the call for a reason: records it (the first one wins) and tells every region (`call.end`). */
const endCall = <E>(params: EndParamsOf<E>) =>
  [
    { type: 'recordEnd', params },
    { type: 'raiseEnd', params },
  ] as const;

const joinText = (a: string, b: string) => (a && b ? `${a} ${b}` : a || b).trim();

/** Milliseconds of a positive delay; 0 or less never fires (guarded). */
const ms = (n: number) => Math.max(1, Math.round(n));

export const callSessionMachine = setup({
  types: {
    context: {} as CallSessionContext,
    events: {} as CallSessionEvent,
    input: {} as CallSessionInput,
    output: {} as { reason: CallEndReason; errorMessage: string | null; history: Turn[] },
  },
  actors: {
    /** The caller's speech: a speech-to-text stream (or the speech-to-speech session's voice detection),
     * sending caller.* events to `parent`; rejects with a CallFailure when the provider fails. */
    listen: fromPromise<void, ListenInput>(notProvided('listen')),
    /** One agent turn: LLM then voice, sentence by sentence; sends reply.* and agent.heard events and
     * resolves once every sentence has been played to the caller. */
    reply: fromPromise<void, ReplyInput>(notProvided('reply')),
  },
  actions: {
    /** Close the caller's line (phone: hang up through the provider; web: close the socket). */
    hangUp: (_, _params: { reason: CallEndReason; message: string | null }) => {},
    /** Drop the agent's audio not yet played (barge-in); the line answers with agent.heard (what was heard). */
    clearPlayback: () => {},
    /** Record the call's state for the caller's UI (listening / thinking / speaking). */
    announce: (_, _params: { state: 'listening' | 'thinking' | 'speaking' }) => {},
    startTurn: assign((_, params: { kind: TurnKind }) => ({
      turnKind: params.kind,
      replyText: '',
      heardText: '',
      toolCalls: [],
    })),
    addCallerWords: assign(({ context }, params: { text: string }) => ({ userText: joinText(context.userText, params.text) })),
    commitCallerTurn: assign(({ context }) => ({
      history: [...context.history, { role: 'user' as const, text: context.userText }],
      userText: '',
    })),
    dropCallerWords: assign({ userText: '' }),
    addReplySentence: assign(({ context }, params: { text: string }) => ({
      replyText: joinText(context.replyText, params.text),
    })),
    rememberHeard: assign((_, params: { text: string }) => ({ heardText: params.text })),
    rememberToolCall: assign(({ context }, params: ToolCallRecord) => ({
      toolCalls: [...context.toolCalls, params],
      hangUpAfterTurn: context.hangUpAfterTurn || params.name === 'end_call',
    })),
    /** A function's run ended: its status, result and time go on its call of the turn. */
    recordToolResult: assign(({ context }, params: { index: number; status: ToolStatus; result: string; ms: number }) => ({
      toolCalls: context.toolCalls.map((t, i) =>
        i === params.index && t.type !== undefined && t.status === undefined
          ? { ...t, status: params.status, result: params.result, ms: params.ms }
          : t,
      ),
    })),
    /** The agent's turn as the caller heard all of it. */
    commitAgentTurn: assign(({ context }) => ({
      history: [
        ...context.history,
        {
          role: 'agent' as const,
          text: context.replyText,
          ...(context.toolCalls.length ? { toolCalls: context.toolCalls } : {}),
        },
      ],
      replyText: '',
      heardText: '',
      toolCalls: [],
    })),
    /**
     * The agent's turn cut where the caller interrupted it. Its function calls are kept; one still running
     * was cancelled and its result dropped (status 'cancelled', no result).
     */
    commitInterruptedTurn: assign(({ context }) => {
      const toolCalls = context.toolCalls
        .filter((t) => t.type !== undefined)
        .map((t) => (t.status === undefined ? { ...t, status: 'cancelled' as const, result: '', ms: 0 } : t));
      return {
        history:
          context.heardText || toolCalls.length
            ? [
                ...context.history,
                {
                  role: 'agent' as const,
                  text: context.heardText,
                  interrupted: true,
                  ...(toolCalls.length ? { toolCalls } : {}),
                },
              ]
            : context.history,
        replyText: '',
        heardText: '',
        toolCalls: [],
        hangUpAfterTurn: false,
      };
    }),
    useReminder: assign(({ context }) => ({ remindersLeft: context.remindersLeft - 1 })),
    resetReminders: assign(({ context }) => ({ remindersLeft: context.reminderTimes })),
    /** The first reason given for the end of the call is kept. */
    recordEnd: assign(({ context }, params: EndParams) =>
      context.reason ? {} : { reason: params.reason, errorMessage: params.message ?? null },
    ),
    /** Every region hears that the call ends. */
    raiseEnd: raise((_, params: EndParams) => ({ type: 'call.end' as const, reason: params.reason })),
    /** The caller was not finished: their last turn is theirs again, and the agent's answer is dropped. */
    reopenCallerTurn: assign(({ context }) => {
      const last = context.history.at(-1);
      if (last?.role !== 'user') return { replyText: '', heardText: '', toolCalls: [] };
      return {
        history: context.history.slice(0, -1),
        userText: joinText(last.text, context.userText),
        replyText: '',
        heardText: '',
        toolCalls: [],
      };
    }),
    waitingForCaller: raise({ type: 'conversation.waiting' }),
    busy: raise({ type: 'conversation.busy' }),
    remind: raise({ type: 'timer.reminder' }),
  },
  guards: {
    hasGreeting: ({ context }) => context.greeting.trim() !== '',
    isTextMode: ({ context }) => context.mode === 'text',
    hasCallerWords: ({ context }) => context.speechToSpeech === true || context.userText.trim() !== '',
    hasWords: (_, params: { text: string }) => params.text.trim() !== '',
    /** the caller has been given some of this turn (a sentence before the function, its speak_during) */
    hasSaidSomething: ({ context }) => context.replyText.trim() !== '',
    canBargeIn: ({ context }) => context.bargeInMs !== null,
    hangsUpAfterTurn: ({ context }) => context.hangUpAfterTurn,
    hasRemindersLeft: ({ context }) => context.reminderMs > 0 && context.remindersLeft > 0,
    endsOnSilence: ({ context }) => context.endOnSilenceMs > 0,
    hasMaxDuration: ({ context }) => context.maxDurationMs > 0,
  },
  delays: {
    connectTimeout: ({ context }) => ms(context.connectTimeoutMs),
    hangupGrace: ({ context }) => ms(context.hangupGraceMs),
    pauseBeforeSpeaking: ({ context }) => Math.max(0, Math.round(context.pauseBeforeSpeakingMs)),
    endOfTurn: ({ context }) => Math.max(0, Math.round(context.endOfTurnMs)),
    bargeIn: ({ context }) => Math.max(0, Math.round(context.bargeInMs ?? 0)),
    interruptGrace: 100,
    reminder: ({ context }) => ms(context.reminderMs),
    endOnSilence: ({ context }) => ms(context.endOnSilenceMs),
    maxDuration: ({ context }) => ms(context.maxDurationMs),
  },
}).createMachine({
  id: 'callSession',
  description:
    'One conversation between a caller and an agent (web call, phone call or text chat), run on the server: one actor per call (server/voice/engine/conversation.ts). Audio never passes through the machine; it decides who speaks, when the agent is interrupted and when the call ends.',
  context: ({ input }) => ({
    ...input,
    history: input.history ?? [],
    userText: '',
    replyText: '',
    heardText: '',
    toolCalls: [],
    turnKind: 'answer',
    remindersLeft: input.reminderTimes,
    hangUpAfterTurn: false,
    reason: null,
    errorMessage: null,
  }),
  type: 'parallel',
  output: ({ context }) => ({
    reason: context.reason ?? 'error_unknown',
    errorMessage: context.errorMessage,
    history: context.history,
  }),
  states: {
    transport: {
      description: "The caller's line.",
      initial: 'connecting',
      states: {
        connecting: {
          description: "Waiting for the caller's line (the browser's socket, the phone provider's media stream, or the chat).",
          on: {
            'transport.opened': { target: 'open', description: 'The line is open: audio can flow both ways.' },
            'transport.closed': {
              target: 'closed',
              description: 'The caller left before the line opened.',
              actions: endCall({ reason: 'user_hangup' }),
            },
          },
          after: {
            connectTimeout: {
              target: 'closed',
              description: 'The line never opened.',
              actions: endCall({ reason: 'error_transport', message: 'The call could not connect.' }),
            },
          },
        },
        open: {
          description: "The line is open; the caller's speech is being recognised.",
          invoke: {
            id: 'listen',
            src: 'listen',
            input: ({ self }) => ({ parent: self }),
            onError: {
              target: 'closing',
              description: 'The speech recogniser failed: the call ends with its reason.',
              actions: endCall(({ event }: { event: { error: unknown } }) => failureOf(event.error, 'error_stt_provider')),
            },
          },
          on: {
            'transport.closed': {
              target: 'closed',
              description:
                'The caller hung up (or the carrier moved the call): an agent turn in progress is kept as far as the caller heard it, with its function calls.',
              actions: ['commitInterruptedTurn', ...endCall({ reason: 'user_hangup' })],
            },
            'call.end': { target: 'closing', description: 'The call ends: hang up the line.' },
            'call.hangup': {
              target: 'closing',
              description:
                "Hang-up asked through the API or the caller's UI: an agent turn in progress is kept as far as the caller heard it.",
              actions: ['commitInterruptedTurn', ...endCall({ reason: 'user_hangup' })],
            },
          },
        },
        closing: {
          description: 'The line is being hung up.',
          entry: {
            type: 'hangUp',
            params: ({ context }) => ({ reason: context.reason ?? 'error_unknown', message: context.errorMessage }),
          },
          on: { 'transport.closed': { target: 'closed', description: 'The line confirmed the hang-up.' } },
          after: { hangupGrace: { target: 'closed', description: 'The line did not confirm in time: counted as closed.' } },
        },
        closed: { type: 'final', description: 'The line is closed.' },
      },
    },

    conversation: {
      description: 'Whose turn it is.',
      initial: 'waiting',
      on: {
        'call.end': { target: '.ended', description: 'The call ends: the conversation stops where it is.' },
      },
      states: {
        waiting: {
          description: 'The line is not open yet.',
          on: {
            'transport.opened': [
              { guard: 'hasGreeting', target: 'pausing', description: 'The agent speaks first: its welcome message.' },
              { target: 'listening', description: 'No welcome message: the caller speaks first.' },
            ],
          },
        },
        pausing: {
          description: "The agent's 'pause before speaking' before its welcome message.",
          after: {
            pauseBeforeSpeaking: {
              target: 'agentTurn',
              description: 'The pause is over: the agent says its welcome message.',
              actions: { type: 'startTurn', params: { kind: 'greeting' } },
            },
          },
          on: {
            'caller.speech_started': {
              target: 'userSpeaking',
              description: 'The caller spoke first: the welcome message is skipped.',
            },
            'caller.message': {
              target: 'agentTurn',
              description: 'Text mode: the first message came before the welcome message; the agent answers it.',
              actions: [
                { type: 'addCallerWords', params: ({ event }) => ({ text: event.text }) },
                'commitCallerTurn',
                { type: 'startTurn', params: { kind: 'answer' } },
              ],
            },
          },
        },
        listening: {
          description: 'The agent waits for the caller.',
          tags: ['listening'],
          entry: ['waitingForCaller', { type: 'announce', params: { state: 'listening' } }],
          exit: 'busy',
          on: {
            'caller.speech_started': { target: 'userSpeaking', description: 'The caller starts speaking.' },
            'caller.transcript': {
              guard: { type: 'hasWords', params: ({ event }) => ({ text: event.text }) },
              target: 'userSpeaking',
              description: 'Words arrive without a voice-activity event first.',
              actions: {
                type: 'addCallerWords',
                params: ({ event }) => ({ text: event.final ? event.text : '' }),
              },
            },
            'caller.message': {
              guard: { type: 'hasWords', params: ({ event }) => ({ text: event.text }) },
              target: 'agentTurn',
              description: 'Text mode: a message from the caller; the agent answers it.',
              actions: [
                'resetReminders',
                { type: 'addCallerWords', params: ({ event }) => ({ text: event.text }) },
                'commitCallerTurn',
                { type: 'startTurn', params: { kind: 'answer' } },
              ],
            },
            'timer.reminder': {
              guard: 'hasRemindersLeft',
              target: 'agentTurn',
              description: 'The caller has been silent: the agent checks they are still there.',
              actions: ['useReminder', { type: 'startTurn', params: { kind: 'reminder' } }],
            },
          },
        },
        userSpeaking: {
          description: 'The caller is speaking; their final words are collected.',
          tags: ['listening'],
          entry: ['resetReminders', { type: 'announce', params: { state: 'listening' } }],
          initial: 'talking',
          on: {
            'caller.transcript': {
              description: 'Final words are kept; interim ones only show the caller is still talking.',
              actions: { type: 'addCallerWords', params: ({ event }) => ({ text: event.final ? event.text : '' }) },
            },
          },
          states: {
            talking: {
              description: 'Words are still coming.',
              on: {
                'caller.utterance_ended': { target: 'pausing', description: 'The caller paused: wait the end-of-turn time.' },
              },
            },
            pausing: {
              description: "The caller paused; the agent's responsiveness sets how long to wait before answering.",
              on: {
                'caller.speech_started': { target: 'talking', description: 'The caller goes on speaking.' },
                'caller.transcript': {
                  guard: { type: 'hasWords', params: ({ event }) => ({ text: event.text }) },
                  target: 'talking',
                  description: 'More words: the caller goes on.',
                  actions: { type: 'addCallerWords', params: ({ event }) => ({ text: event.final ? event.text : '' }) },
                },
              },
              after: {
                endOfTurn: [
                  {
                    guard: 'hasCallerWords',
                    target: '#callSession.conversation.agentTurn',
                    description: 'The caller is done: the agent answers what they said.',
                    actions: ['commitCallerTurn', { type: 'startTurn', params: { kind: 'answer' } }],
                  },
                  {
                    target: '#callSession.conversation.listening',
                    description: 'Noise without words: nothing to answer.',
                    actions: 'dropCallerWords',
                  },
                ],
              },
            },
          },
        },
        agentTurn: {
          description:
            "The agent's turn: the reply actor streams the LLM's answer sentence by sentence into the voice. Leaving this state stops it (LLM and voice aborted).",
          invoke: {
            id: 'reply',
            src: 'reply',
            input: ({ context, self }) => ({
              parent: self,
              kind: context.turnKind,
              text: context.turnKind === 'greeting' ? context.greeting : '',
              history: context.history,
            }),
            onDone: [
              {
                guard: 'hangsUpAfterTurn',
                description: 'end_call: the goodbye has been heard; hang up.',
                actions: ['commitAgentTurn', ...endCall({ reason: 'agent_hangup' })],
              },
              {
                target: 'listening',
                description: 'The caller heard the whole reply: their turn.',
                actions: 'commitAgentTurn',
              },
            ],
            onError: {
              description: 'The LLM or the voice failed: the call ends naming the provider.',
              actions: endCall(({ event }: { event: { error: unknown } }) => failureOf(event.error, 'error_llm_provider')),
            },
          },
          on: {
            'reply.sentence': {
              description: 'A sentence of the reply went to the voice.',
              actions: { type: 'addReplySentence', params: ({ event }) => ({ text: event.text }) },
            },
            'reply.tool_call': {
              description:
                'The LLM called a function (end_call hangs up after this turn; transfer_call is recorded; any other function is run by the reply).',
              actions: {
                type: 'rememberToolCall',
                params: ({ event }) => ({
                  name: event.name,
                  arguments: event.arguments,
                  ...(event.toolType ? { type: event.toolType } : {}),
                }),
              },
            },
            'agent.heard': {
              description: 'The caller has heard the reply up to here.',
              actions: { type: 'rememberHeard', params: ({ event }) => ({ text: event.text }) },
            },
            'caller.transcript': {
              description: "Final words the caller says during the agent's turn are kept for their next turn.",
              actions: { type: 'addCallerWords', params: ({ event }) => ({ text: event.final ? event.text : '' }) },
            },
          },
          initial: 'thinking',
          states: {
            thinking: {
              description: 'Waiting for the first audio of the reply (knowledge search, LLM first token, voice first byte).',
              tags: ['thinking'],
              entry: { type: 'announce', params: { state: 'thinking' } },
              on: {
                'reply.output_started': { target: 'speaking', description: 'The first audio of the reply went out.' },
                'reply.tools_started': {
                  target: 'usingTools',
                  description: 'The LLM called functions before saying anything: they run.',
                },
                'caller.speech_started': {
                  guard: not('isTextMode'),
                  target: '#callSession.conversation.userSpeaking',
                  description:
                    "The caller goes on before the agent has said anything: the answer is dropped and the caller's turn continues.",
                  actions: 'reopenCallerTurn',
                },
              },
            },
            speaking: {
              description: 'The agent is speaking.',
              tags: ['speaking'],
              entry: { type: 'announce', params: { state: 'speaking' } },
              on: {
                'reply.tools_started': {
                  target: 'usingTools',
                  description: 'The LLM called functions after its first words: they run while those words play.',
                },
              },
              initial: 'alone',
              states: {
                alone: {
                  description: 'Only the agent is speaking.',
                  on: {
                    'caller.speech_started': {
                      guard: and(['canBargeIn', not('isTextMode')]),
                      target: 'overlapped',
                      description: "The caller talks over the agent: the interruption sensitivity decides if it's a barge-in.",
                    },
                  },
                },
                overlapped: {
                  description: 'The caller talks over the agent.',
                  after: {
                    bargeIn: {
                      target: '#callSession.conversation.interrupted',
                      description:
                        'Barge-in: the caller spoke long enough. Leaving the turn aborts the LLM and the voice at once.',
                    },
                  },
                  on: {
                    'caller.utterance_ended': { target: 'alone', description: 'Only a short noise: the agent goes on.' },
                  },
                },
              },
            },
            usingTools: {
              description:
                "The functions the LLM called are running (several at once); the model waits for their results. On a voice call the function's 'speak_during' sentence is said if one has not answered within 500 ms. Leaving the turn (a barge-in, the call's end) cancels them and drops their results.",
              tags: ['usingTools'],
              initial: 'running',
              on: {
                'reply.tool_result': {
                  description: 'A function answered (or failed, or timed out): its call records the result the model reads.',
                  actions: {
                    type: 'recordToolResult',
                    params: ({ event }) => ({ index: event.index, status: event.status, result: event.result, ms: event.ms }),
                  },
                },
                'reply.tools_done': [
                  {
                    guard: 'hasSaidSomething',
                    target: 'speaking',
                    description: 'Every function answered: the model goes on with their results, after what was already said.',
                  },
                  {
                    target: 'thinking',
                    description: 'Every function answered: the model goes on with their results; nothing said yet.',
                  },
                ],
              },
              states: {
                running: {
                  description: 'The functions run.',
                  on: {
                    'caller.speech_started': [
                      {
                        guard: and(['canBargeIn', not('isTextMode'), 'hasSaidSomething']),
                        target: 'overlapped',
                        description: 'The caller talks over what the agent said while its functions run.',
                      },
                      {
                        guard: and([not('isTextMode'), not('hasSaidSomething')]),
                        target: '#callSession.conversation.userSpeaking',
                        description:
                          "The caller goes on before the agent has said anything: the functions are cancelled, the answer is dropped and the caller's turn continues.",
                        actions: 'reopenCallerTurn',
                      },
                    ],
                  },
                },
                overlapped: {
                  description: 'The caller talks over the agent while its functions run.',
                  after: {
                    bargeIn: {
                      target: '#callSession.conversation.interrupted',
                      description:
                        'Barge-in: the caller spoke long enough. Leaving the turn cancels the running functions; their results are dropped.',
                    },
                  },
                  on: {
                    'caller.utterance_ended': { target: 'running', description: 'Only a short noise: the functions go on.' },
                  },
                },
              },
            },
          },
        },
        interrupted: {
          description:
            "The caller interrupted the agent: the unplayed audio is dropped and the line says how much of the agent's turn the caller heard.",
          entry: 'clearPlayback',
          on: {
            'caller.transcript': {
              description: "The caller's words go on into their turn.",
              actions: { type: 'addCallerWords', params: ({ event }) => ({ text: event.final ? event.text : '' }) },
            },
            'agent.heard': {
              target: 'userSpeaking',
              description: "The agent's turn is kept as far as the caller heard it; the caller's turn goes on.",
              actions: [{ type: 'rememberHeard', params: ({ event }) => ({ text: event.text }) }, 'commitInterruptedTurn'],
            },
          },
          after: {
            interruptGrace: {
              target: 'userSpeaking',
              description: 'The line did not say what was heard: the turn is kept up to its last heard mark.',
              actions: 'commitInterruptedTurn',
            },
          },
        },
        ended: { type: 'final', description: 'The conversation is over.' },
      },
    },

    timers: {
      description: 'Silence reminders, end of the call on silence, and the maximum call duration.',
      initial: 'standby',
      states: {
        standby: {
          description: 'The line is not open yet: nothing counts.',
          on: {
            'transport.opened': {
              target: 'running',
              description: "The line opened: the call's time and silence count from now.",
            },
            'call.end': { target: 'stopped', description: 'Ended before the line opened.' },
          },
        },
        running: {
          description: 'The call is live: every timer counts.',
          type: 'parallel',
          on: {
            'call.end': { target: 'stopped', description: 'The call ends: every timer stops.' },
          },
          states: {
            reminder: {
              description: "Reminders while the agent waits for a silent caller (the agent's reminder settings).",
              initial: 'idle',
              states: {
                idle: {
                  description: 'The agent is not waiting for the caller.',
                  on: { 'conversation.waiting': { target: 'armed', description: 'The agent starts waiting for the caller.' } },
                },
                armed: {
                  description: 'Counting the silence before a reminder.',
                  on: { 'conversation.busy': { target: 'idle', description: 'Someone speaks: no reminder.' } },
                  after: {
                    reminder: {
                      guard: 'hasRemindersLeft',
                      target: 'idle',
                      description: 'The reminder time passed in silence: the agent speaks again.',
                      actions: 'remind',
                    },
                  },
                },
              },
            },
            silence: {
              description: "The agent's 'end call on silence', counted from the caller's last sound.",
              initial: 'watching',
              states: {
                watching: {
                  description: "Counting from the caller's last sound.",
                  on: {
                    'caller.speech_started': {
                      target: 'watching',
                      reenter: true,
                      description: 'The caller made a sound: count again.',
                    },
                    'caller.message': { target: 'watching', reenter: true, description: 'The caller wrote: count again.' },
                  },
                  after: {
                    endOnSilence: {
                      guard: 'endsOnSilence',
                      description: 'The caller said nothing for too long: the call ends for inactivity.',
                      actions: endCall({ reason: 'inactivity' }),
                    },
                  },
                },
              },
            },
            duration: {
              description: "The agent's 'max call duration'.",
              initial: 'running',
              states: {
                running: {
                  description: 'The call is within its maximum duration.',
                  after: {
                    maxDuration: {
                      guard: 'hasMaxDuration',
                      description: 'The call reached its maximum duration: it ends.',
                      actions: endCall({ reason: 'max_duration_reached' }),
                    },
                  },
                },
              },
            },
          },
        },
        stopped: { type: 'final', description: 'The call ended: no timer counts.' },
      },
    },
  },
});
