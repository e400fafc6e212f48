import { assign, fromCallback, fromPromise, sendTo, setup } from 'xstate';
import { callRuntime, webCallSocketUrl } from '../api/call-runtime';
import { CALL_RUNTIME_MESSAGES, type StartConversationInput } from '../api/contract/call-runtime';
import { ApiError } from '../api/errors';
import { type CallLine, openCallLine } from '../audio/call-line';
import { type Microphone, MicrophoneError, openMicrophone } from '../audio/microphone';

export type AgentState = 'listening' | 'thinking' | 'speaking';

export interface TranscriptLine {
  role: 'user' | 'agent';
  text: string;
  /** false while the caller is still speaking (the words may change) */
  final: boolean;
}

export interface Levels {
  caller: number;
  agent: number;
}

export interface WebCallContext {
  request: StartConversationInput | null;
  callId: string | null;
  agentState: AgentState | null;
  transcript: TranscriptLine[];
  muted: boolean;
  /** reads both sides' levels now (for the meters); set once the microphone is open */
  levels: (() => Levels) | null;
  endReason: string | null;
  endMessage: string | null;
  error: string | null;
  errorLink: string | null;
}

export type WebCallEvent =
  | { type: 'call.start'; request: StartConversationInput }
  | { type: 'call.hangup' }
  | { type: 'call.close' }
  | { type: 'mute.toggle' }
  | { type: 'mic.ready'; levels: () => Levels }
  | { type: 'mic.failed'; message: string }
  | { type: 'line.opened' }
  | { type: 'line.transcript'; role: 'user' | 'agent'; text: string; final: boolean }
  | { type: 'line.state'; value: AgentState }
  | { type: 'line.ended'; reason: string; message?: string }
  | { type: 'line.closed' };

/** What the machine tells the line actor. */
export type LineCommand = { type: 'line.connect'; url: string } | { type: 'line.mute'; muted: boolean } | { type: 'line.hangup' };

export const WEB_CALL_MESSAGES = {
  microphoneFailed:
    'The microphone could not be started. Check that no other application is using it, then start the call again.',
  connectFailed: 'The call could not connect. Please try again.',
  startFailed: 'The call could not be started. Please try again.',
  connectionLost: 'The connection to the call was lost.',
} as const;

/** ms to wait for the socket to open, and for the server's `ended` after a hang-up. */
export const WEB_CALL_CONNECT_TIMEOUT_MS = 10_000;
export const WEB_CALL_HANGUP_TIMEOUT_MS = 3_000;

/**
 * The transcript with one more line: a caller's line still being spoken is replaced as it grows; a line
 * without words is left out.
 */
export function addTranscript(lines: readonly TranscriptLine[], line: TranscriptLine): TranscriptLine[] {
  // an agent turn cut before a word was heard has no text: nothing to show
  if (!line.text.trim()) return [...lines];
  const last = lines.at(-1);
  if (last && !last.final && last.role === line.role) return [...lines.slice(0, -1), line];
  if (last && !last.final && line.role === 'agent') {
    // the agent answers: the caller's words so far are what was said
    return [...lines.slice(0, -1), { ...last, final: true }, line];
  }
  return [...lines, line];
}

/**
 * The line actor: opens the microphone (sends mic.ready or mic.failed), then on line.connect the call's
 * WebSocket, and reports what the server says. Stopping it closes the socket and releases the microphone.
 */
export const callLineActor = fromCallback<LineCommand, void>(({ sendBack, receive }) => {
  let stopped = false;
  let mic: Microphone | null = null;
  let line: CallLine | null = null;
  let muted = false;
  openMicrophone({
    denied: CALL_RUNTIME_MESSAGES.microphoneDenied,
    missing: CALL_RUNTIME_MESSAGES.microphoneMissing,
    failed: WEB_CALL_MESSAGES.microphoneFailed,
  }).then(
    (m) => {
      if (stopped) {
        m.close();
        return;
      }
      mic = m;
      sendBack({ type: 'mic.ready', levels: () => line?.levels() ?? { caller: muted ? 0 : m.level(), agent: 0 } });
    },
    (error: unknown) => {
      if (stopped) return;
      sendBack({
        type: 'mic.failed',
        message: error instanceof MicrophoneError ? error.message : WEB_CALL_MESSAGES.microphoneFailed,
      });
    },
  );
  receive((command) => {
    if (command.type === 'line.connect' && mic && !line) {
      line = openCallLine(command.url, mic, (e) => {
        if (e.type === 'opened') sendBack({ type: 'line.opened' });
        else if (e.type === 'transcript') sendBack({ type: 'line.transcript', role: e.role, text: e.text, final: e.final });
        else if (e.type === 'state') sendBack({ type: 'line.state', value: e.value });
        else if (e.type === 'ended')
          sendBack({ type: 'line.ended', reason: e.reason, ...(e.message ? { message: e.message } : {}) });
        else if (e.type === 'closed') sendBack({ type: 'line.closed' });
      });
      line.setMuted(muted);
    } else if (command.type === 'line.mute') {
      muted = command.muted;
      if (line) line.setMuted(muted);
      else mic?.setMuted(muted);
    } else if (command.type === 'line.hangup') line?.hangup();
  });
  return () => {
    stopped = true;
    if (line) line.close();
    else mic?.close();
  };
});

const fresh = {
  callId: null,
  agentState: null,
  transcript: [],
  muted: false,
  levels: null,
  endReason: null,
  endMessage: null,
  error: null,
  errorLink: null,
} satisfies Partial<WebCallContext>;

/**
 * Test: a call with the agent from the browser's microphone. Start opens the microphone first
 * (refused: a clear message and nothing else happens), then creates the call (POST /call/web) and opens its
 * socket; while it is live the transcript and the agent's state (listening, thinking, speaking) follow the
 * server. Hang up asks the server to end the call and waits briefly for its answer.
 * Actors: `callLine` (the microphone, the socket and the playback; see callLineActor) for as long as a
 * call is being made, and `startWebCall` (POST /call/web).
 */
export const webCallMachine = setup({
  types: {
    context: {} as WebCallContext,
    events: {} as WebCallEvent,
  },
  actors: {
    callLine: callLineActor,
    startWebCall: fromPromise<{ callId: string; url: string }, StartConversationInput>(async ({ input, signal }) => {
      const { data } = await callRuntime.startWebCall(input, { notify: false, signal });
      return { callId: data.call_id, url: webCallSocketUrl(data.call_id, data.access_token) };
    }),
  },
  actions: {
    clearCall: assign(fresh),
    rememberRequest: assign((_, params: { request: StartConversationInput }) => ({ request: params.request })),
    showMicrophoneError: assign((_, params: { message: string }) => ({ error: params.message })),
    toggleMute: assign(({ context }) => ({ muted: !context.muted })),
    updateTranscript: assign(({ context }, params: TranscriptLine) => ({
      transcript: addTranscript(context.transcript, params),
    })),
    showAgentState: assign((_, params: { value: AgentState }) => ({ agentState: params.value })),
    showWhyEnded: assign((_, params: { reason: string; message: string | null }) => ({
      endReason: params.reason,
      endMessage: params.message,
    })),
    rememberCall: assign((_, params: { callId: string }) => ({ callId: params.callId })),
    showLevels: assign((_, params: { levels: () => Levels }) => ({ levels: params.levels })),
    showStartError: assign((_, params: { error: unknown }) => ({
      error:
        params.error instanceof ApiError ? (params.error.serverMessage ?? params.error.message) : WEB_CALL_MESSAGES.startFailed,
      errorLink: params.error instanceof ApiError ? (params.error.link ?? null) : null,
    })),
    showConnectFailed: assign({ error: WEB_CALL_MESSAGES.connectFailed }),
    endByHangup: assign({ endReason: 'user_hangup', endMessage: null }),
  },
  delays: {
    connectTimeout: WEB_CALL_CONNECT_TIMEOUT_MS,
    hangupTimeout: WEB_CALL_HANGUP_TIMEOUT_MS,
  },
}).createMachine({
  id: 'webCall',
  description:
    'Test: a call with the agent from the browser, with the live transcript, the agent’s state and a level meter for each side.',
  context: { request: null, ...fresh },
  initial: 'idle',
  on: {
    'call.close': {
      target: '.idle',
      description: 'Close the call window: a call in progress is cut (the socket closes, the microphone is released).',
      actions: 'clearCall',
    },
  },
  states: {
    idle: {
      description: 'No call: Start places one.',
      on: {
        'call.start': {
          target: 'active',
          description: 'Start a call with the agent as it is in the editor now.',
          actions: ['clearCall', { type: 'rememberRequest', params: ({ event }) => ({ request: event.request }) }],
        },
      },
    },
    active: {
      description: 'A call is being placed or is in progress; the line actor holds the microphone and the socket.',
      invoke: { id: 'line', src: 'callLine' },
      initial: 'microphone',
      on: {
        'mic.failed': {
          target: 'failed',
          description: 'The microphone was refused or is missing: say so; no call is created.',
          actions: { type: 'showMicrophoneError', params: ({ event }) => ({ message: event.message }) },
        },
        'mute.toggle': {
          description: 'Mute or unmute the microphone (silence is sent while muted).',
          actions: ['toggleMute', sendTo('line', ({ context }): LineCommand => ({ type: 'line.mute', muted: context.muted }))],
        },
        'line.transcript': {
          description: 'The server heard the caller or the agent spoke: update the live transcript.',
          actions: {
            type: 'updateTranscript',
            params: ({ event }) => ({ role: event.role, text: event.text, final: event.final }),
          },
        },
        'line.state': {
          description: 'The agent is now listening, thinking or speaking.',
          actions: { type: 'showAgentState', params: ({ event }) => ({ value: event.value }) },
        },
        'line.ended': {
          target: 'ended',
          description: 'The server ended the call (either side hung up, silence, the time limit, a provider error).',
          actions: { type: 'showWhyEnded', params: ({ event }) => ({ reason: event.reason, message: event.message ?? null }) },
        },
        'line.closed': {
          target: 'ended',
          description: 'The socket closed without the server saying the call ended: the connection was lost.',
          actions: {
            type: 'showWhyEnded',
            params: { reason: 'connection_lost', message: WEB_CALL_MESSAGES.connectionLost },
          },
        },
      },
      states: {
        microphone: {
          description: 'Asking the browser for the microphone (the browser may ask the tester).',
          tags: ['starting'],
          on: {
            'mic.ready': {
              target: 'starting',
              description: 'The microphone is open: create the call.',
              actions: { type: 'showLevels', params: ({ event }) => ({ levels: event.levels }) },
            },
            'call.hangup': {
              target: '#webCall.idle',
              description: 'Cancel before the call exists.',
            },
          },
        },
        starting: {
          description: 'Creating the call on the server.',
          tags: ['starting'],
          invoke: {
            id: 'startWebCall',
            src: 'startWebCall',
            input: ({ context }) => context.request!,
            onDone: {
              target: 'connecting',
              description: 'The call exists: open its socket with the one-time token.',
              actions: [
                { type: 'rememberCall', params: ({ event }) => ({ callId: event.output.callId }) },
                sendTo('line', ({ event }): LineCommand => ({ type: 'line.connect', url: event.output.url })),
              ],
            },
            onError: {
              target: '#webCall.failed',
              description: 'The call could not be created (a provider key to connect, an invalid agent): say why.',
              actions: { type: 'showStartError', params: ({ event }) => ({ error: event.error }) },
            },
          },
          on: {
            'call.hangup': {
              target: '#webCall.idle',
              description: 'Cancel while the call is being created.',
            },
          },
        },
        connecting: {
          description: 'Opening the call’s socket.',
          tags: ['starting'],
          after: {
            connectTimeout: {
              target: '#webCall.failed',
              description: 'The socket did not open in time.',
              actions: 'showConnectFailed',
            },
          },
          on: {
            'line.opened': {
              target: 'live',
              description: 'Connected: the agent greets or listens.',
            },
            'call.hangup': {
              target: '#webCall.idle',
              description: 'Cancel while connecting.',
            },
          },
        },
        live: {
          description: 'The call is in progress.',
          tags: ['live'],
          on: {
            'call.hangup': {
              target: 'hangingUp',
              description: 'Hang up: ask the server to end the call.',
              actions: sendTo('line', { type: 'line.hangup' } satisfies LineCommand),
            },
          },
        },
        hangingUp: {
          description: 'Waiting for the server to close the line (or to say how the call ended).',
          tags: ['live'],
          on: {
            'line.closed': {
              target: '#webCall.ended',
              description: 'The server closed the line after the hang-up: the call is over.',
              actions: 'endByHangup',
            },
          },
          after: {
            hangupTimeout: {
              target: '#webCall.ended',
              description: 'No answer in time: the call is over on this side all the same.',
              actions: 'endByHangup',
            },
          },
        },
      },
    },
    ended: {
      description: 'The call is over: why it ended shows, with the transcript. Start calls again.',
      on: {
        'call.start': {
          target: 'active',
          description: 'Call again.',
          actions: ['clearCall', { type: 'rememberRequest', params: ({ event }) => ({ request: event.request }) }],
        },
      },
    },
    failed: {
      description: 'The call could not be placed (microphone, server, connection): the message says why.',
      on: {
        'call.start': {
          target: 'active',
          description: 'Try again.',
          actions: ['clearCall', { type: 'rememberRequest', params: ({ event }) => ({ request: event.request }) }],
        },
      },
    },
  },
});
