import { assign, fromCallback, fromPromise, setup } from 'xstate';
import { callRuntime } from '../api/call-runtime';
import type { VoicePreviewBody } from '../api/contract/call-runtime';
import { ApiError } from '../api/errors';
import { playClip } from '../audio/player';

export interface VoicePreviewContext {
  request: VoicePreviewBody | null;
  /** the WAV being played */
  audio: ArrayBuffer | null;
  error: string | null;
  /** where to fix the error (the Providers page for a voice key to connect) */
  errorLink: string | null;
}

export type VoicePreviewEvent =
  | { type: 'preview.play'; request: VoicePreviewBody }
  | { type: 'preview.stop' }
  | { type: 'clip.ended' }
  | { type: 'clip.failed' };

export const VOICE_PREVIEW_MESSAGES = {
  loadFailed: 'The voice could not be loaded. Please try again.',
  playFailed: 'Your browser could not play the voice.',
} as const;

/**
 * Test Audio: the agent's voice saying its welcome message (or a sentence the tester typed) with
 * the voice settings in the editor now. Play loads the audio (a spinner shows), then plays it; Stop ends
 * the load or the playback at once.
 * Actors: `loadVoice` (POST /voices/preview) and `playVoice` (plays the clip; sends clip.ended when it is
 * over, clip.failed when the browser cannot decode it; stopping it stops the sound).
 */
export const voicePreviewMachine = setup({
  types: {
    context: {} as VoicePreviewContext,
    events: {} as VoicePreviewEvent,
  },
  actors: {
    loadVoice: fromPromise<ArrayBuffer, VoicePreviewBody>(({ input, signal }) =>
      callRuntime.voicePreview(input, { notify: false, signal }),
    ),
    playVoice: fromCallback<VoicePreviewEvent, { audio: ArrayBuffer }>(({ input, sendBack }) => {
      let stopped = false;
      let stop = () => {};
      playClip(input.audio.slice(0)).then(
        (clip) => {
          stop = clip.stop;
          if (stopped) clip.stop();
          else void clip.finished.then(() => !stopped && sendBack({ type: 'clip.ended' }));
        },
        () => !stopped && sendBack({ type: 'clip.failed' }),
      );
      return () => {
        stopped = true;
        stop();
      };
    }),
  },
  actions: {
    rememberRequest: assign((_, params: { request: VoicePreviewBody }) => ({
      request: params.request,
      error: null,
      errorLink: null,
    })),
    keepAudio: assign((_, params: { audio: ArrayBuffer }) => ({ audio: params.audio })),
    showLoadError: assign((_, params: { error: unknown }) => ({
      error:
        params.error instanceof ApiError
          ? (params.error.serverMessage ?? params.error.message)
          : VOICE_PREVIEW_MESSAGES.loadFailed,
      errorLink: params.error instanceof ApiError ? (params.error.link ?? null) : null,
    })),
    showPlayError: assign({ error: VOICE_PREVIEW_MESSAGES.playFailed }),
  },
}).createMachine({
  id: 'voicePreview',
  description: "Test Audio: hear the agent's voice say its welcome message or a typed sentence, with play and stop.",
  context: { request: null, audio: null, error: null, errorLink: null },
  initial: 'idle',
  states: {
    idle: {
      description: 'Nothing is playing.',
      on: {
        'preview.play': {
          target: 'loading',
          description: 'Play: ask the server for the voice with the agent’s current voice settings.',
          actions: { type: 'rememberRequest', params: ({ event }) => ({ request: event.request }) },
        },
      },
    },
    loading: {
      description: 'The voice is being synthesised (a spinner shows).',
      tags: ['busy'],
      invoke: {
        id: 'loadVoice',
        src: 'loadVoice',
        input: ({ context }) => context.request!,
        onDone: {
          target: 'playing',
          description: 'The audio arrived: play it.',
          actions: { type: 'keepAudio', params: ({ event }) => ({ audio: event.output }) },
        },
        onError: {
          target: 'idle',
          description: 'The voice could not be made (a key to connect, no welcome message, a provider error): say why.',
          actions: { type: 'showLoadError', params: ({ event }) => ({ error: event.error }) },
        },
      },
      on: {
        'preview.stop': {
          target: 'idle',
          description: 'Stop: the request is abandoned.',
        },
      },
    },
    playing: {
      description: 'The voice is playing.',
      tags: ['busy'],
      invoke: { id: 'playVoice', src: 'playVoice', input: ({ context }) => ({ audio: context.audio! }) },
      exit: assign({ audio: null }),
      on: {
        'preview.stop': {
          target: 'idle',
          description: 'Stop: the sound stops at once.',
        },
        'clip.ended': {
          target: 'idle',
          description: 'The voice finished speaking.',
        },
        'clip.failed': {
          target: 'idle',
          description: 'The browser could not play the audio: say so.',
          actions: 'showPlayError',
        },
      },
    },
  },
});
