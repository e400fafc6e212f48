import { assign, emit, fromPromise, setup } from 'xstate';
import type { CallStatus, CallType } from '../api/contract/call-values';
import { phone } from '../api/phone';

/** The fields of the 'Filter Call History' dialog ('' = any). */
export interface CallDialogFilters {
  phoneNumber: string;
  type: CallType | '';
  status: CallStatus | '';
}

export const NO_CALL_DIALOG_FILTERS: CallDialogFilters = { phoneNumber: '', type: '', status: '' };

/** One of the company's numbers, as the phone-number choice offers it. */
export interface CallLineOption {
  phone: string;
  nickname: string | null;
}

export interface CallFiltersContext {
  /** what the dialog shows (applied only by Apply) */
  draft: CallDialogFilters;
  /** the company's numbers, once loaded */
  numbers: CallLineOption[] | undefined;
  /** why loading the numbers failed */
  error: string | undefined;
}

export type CallFiltersEvent =
  | { type: 'dialog.open'; filters: CallDialogFilters }
  | { type: 'dialog.close' }
  | { [K in keyof CallDialogFilters]: { type: 'field.change'; field: K; value: CallDialogFilters[K] } }[keyof CallDialogFilters]
  | { type: 'numbers.retry' }
  | { type: 'filters.apply' }
  | { type: 'filters.clear' };

/** Emitted when Apply or Clear sets the filters: the screen writes them into the URL. */
export type CallFiltersEmitted = { type: 'filters.applied'; filters: CallDialogFilters };

const messageOf = (error: unknown) => (error instanceof Error && error.message ? error.message : 'Could not load your numbers.');

/**
 * The 'Filter Call History' dialog: phone number, call type and call status.
 * Every open starts from the filters in the URL and loads the company's numbers (GET /number/ with empty
 * params, the specification: "the phone list is also loaded with empty params when the filter dialog opens").
 * Apply emits the draft, Clear emits no filters; both close. Closing otherwise changes nothing.
 */
export const callFiltersMachine = setup({
  types: {
    context: {} as CallFiltersContext,
    events: {} as CallFiltersEvent,
    emitted: {} as CallFiltersEmitted,
  },
  actors: {
    loadNumbers: fromPromise<CallLineOption[]>(async ({ signal }) => {
      const { data } = await phone.numbers({}, { notify: false, signal });
      return data.numbers.map((n) => ({ phone: n.phone, nickname: n.nickname || null }));
    }),
  },
  actions: {
    applyDraft: emit(({ context }) => ({ type: 'filters.applied' as const, filters: context.draft })),
    applyNone: emit({ type: 'filters.applied' as const, filters: NO_CALL_DIALOG_FILTERS }),
    startFrom: assign({ draft: (_, params: { filters: CallFiltersContext['draft'] }) => params.filters, error: undefined }),
    setChoice: assign({
      draft: ({ context }, params: { field: string; value: unknown }) => ({ ...context.draft, [params.field]: params.value }),
    }),
    showNumbers: assign({ numbers: (_, params: { numbers: CallLineOption[] }) => params.numbers, error: undefined }),
    showError: assign({ error: (_, params: { error: unknown }) => messageOf(params.error) }),
  },
}).createMachine({
  id: 'callFilters',
  description: "The 'Filter Call History' dialog: phone number, call type and call status, applied to the URL.",
  context: { draft: NO_CALL_DIALOG_FILTERS, numbers: undefined, error: undefined },
  initial: 'closed',
  states: {
    closed: {
      description: "The 'Filter' button ('Filters Applied' when any filter is set) opens the dialog.",
      on: {
        'dialog.open': {
          target: 'open',
          description: 'The dialog starts from the filters of the URL.',
          actions: { type: 'startFrom', params: ({ event }) => ({ filters: event.filters }) },
        },
      },
    },
    open: {
      tags: ['open'],
      description: 'The dialog is shown; its choices are a draft until Apply.',
      initial: 'loadingNumbers',
      on: {
        'field.change': {
          description: 'A choice in the dialog (not applied yet).',
          actions: { type: 'setChoice', params: ({ event }) => ({ field: event.field, value: event.value }) },
        },
        'filters.apply': {
          target: 'closed',
          description: 'Apply: the draft becomes the filters (the table goes back to its first page).',
          actions: 'applyDraft',
        },
        'filters.clear': {
          target: 'closed',
          description: 'Clear: phone number, type and status are removed.',
          actions: 'applyNone',
        },
        'dialog.close': { target: 'closed', description: 'Escape, the close button or Cancel: nothing changes.' },
      },
      states: {
        loadingNumbers: {
          tags: ['loading'],
          description: "Loads the company's numbers (the last list stays offered meanwhile).",
          invoke: {
            id: 'loadNumbers',
            src: 'loadNumbers',
            onDone: {
              target: 'ready',
              description: 'The numbers are offered.',
              actions: { type: 'showNumbers', params: ({ event }) => ({ numbers: event.output }) },
            },
            onError: {
              target: 'failed',
              description: 'The numbers could not be loaded.',
              actions: { type: 'showError', params: ({ event }) => ({ error: event.error }) },
            },
          },
        },
        ready: { description: 'The phone-number choice lists the company numbers.' },
        failed: {
          tags: ['error'],
          description: 'The numbers could not be loaded: the message and Retry; type and status still work.',
          on: { 'numbers.retry': { target: 'loadingNumbers', description: 'Retry loading the numbers.' } },
        },
      },
    },
  },
});
