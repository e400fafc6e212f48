import { assign, fromPromise, setup } from 'xstate';

export interface RemoteListContext {
  /** the last answer (kept on screen while a refresh runs) */
  data: unknown;
  error: string | undefined;
}

export type RemoteListEvent = { type: 'list.retry' } | { type: 'list.reload' };

/** How often a list that `needsPolling` asks again (knowledge bases being processed). */
export const POLL_DELAY_MS = 2000;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * A list the server answers (the editor's voices and knowledge bases): loading, failed with Retry, loaded.
 * The view provides `load` (the API call) and, for lists whose items change on the server, `needsPolling`:
 * while it holds, the list asks again every POLL_DELAY_MS. A failed refresh keeps the last answer.
 */
export const remoteListMachine = setup({
  types: {
    context: {} as RemoteListContext,
    events: {} as RemoteListEvent,
    tags: {} as 'loading' | 'failed' | 'refreshing',
  },
  actors: {
    load: fromPromise<unknown>(async () => {
      throw new Error('remoteList: no loader provided');
    }),
  },
  actions: {
    showData: assign({ data: (_, params: { data: unknown }) => params.data, error: undefined }),
    showError: assign({ error: (_, params: { error: unknown }) => messageOf(params.error) }),
  },
  guards: {
    needsPolling: (_: unknown) => false,
  },
  delays: { pollDelay: POLL_DELAY_MS },
}).createMachine({
  id: 'remoteList',
  description: "A list read from the server: 'Loading...', a failure with Retry, the items; polled while they change.",
  context: { data: undefined, error: undefined },
  initial: 'loading',
  states: {
    loading: {
      tags: ['loading'],
      invoke: {
        id: 'load',
        src: 'load',
        onDone: {
          target: 'loaded',
          description: 'The items are shown.',
          actions: { type: 'showData', params: ({ event }) => ({ data: event.output }) },
        },
        onError: {
          target: 'failed',
          description: 'The list could not be read: the message and Retry.',
          actions: { type: 'showError', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    failed: {
      description: "e.g. 'Failed to load voices' with a Retry button.",
      tags: ['failed'],
      on: { 'list.retry': { target: 'loading', description: "'Retry': ask again." } },
    },
    loaded: {
      on: { 'list.reload': { target: 'refreshing', description: 'Something changed (an upload, a delete): ask again.' } },
      after: {
        pollDelay: { guard: 'needsPolling', target: 'refreshing', description: 'Some items are still changing on the server.' },
      },
    },
    refreshing: {
      description: 'Asks again while the last answer stays on screen.',
      tags: ['refreshing'],
      invoke: {
        id: 'reload',
        src: 'load',
        onDone: {
          target: 'loaded',
          description: 'The new answer replaces the old one.',
          actions: { type: 'showData', params: ({ event }) => ({ data: event.output }) },
        },
        onError: {
          target: 'loaded',
          actions: { type: 'showError', params: ({ event }) => ({ error: event.error }) },
          description: 'A failed refresh keeps the last answer.',
        },
      },
      on: {
        'list.reload': {
          target: 'refreshing',
          reenter: true,
          description: 'Asked again while asking: the newer question replaces the one under way.',
        },
      },
    },
  },
});
