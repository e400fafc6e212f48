import { assign, fromPromise, setup } from 'xstate';
import {
  type CarrierNumber,
  NUMBER_IMPORT_MAX,
  type NumberImportResponse,
  PHONE_PROVIDER_LABELS,
  PHONE_TEXTS,
  type PhoneProvider,
} from '../api/contract/phone';
import { isApiError } from '../api/errors';
import { phone } from '../api/phone';
import type { ToastMessage } from './notify';
import { phoneEffects } from './phone-effects';

export const NUMBER_IMPORT_TOASTS = {
  imported: (n: number): ToastMessage => ({ title: PHONE_TEXTS.importedTitle, description: PHONE_TEXTS.imported(n) }),
};

export type NumberImportEvent =
  | { type: 'dialog.open'; provider: PhoneProvider }
  | { type: 'dialog.close' }
  | { type: 'numbers.retry' }
  | { type: 'number.toggle'; phone: string }
  | { type: 'import.submit' };

export interface NumberImportContext {
  provider: PhoneProvider;
  numbers: CarrierNumber[];
  /** the numbers ticked, in the listing's order */
  selected: string[];
  /** the last failure, in words (listing or import) */
  error: string | null;
  /** where the failure is fixed (a Providers card to connect), when the server says */
  errorLink: string | null;
}

const messageOf = (error: unknown, fallback: string) =>
  (isApiError(error) ? error.serverMessage || error.message : undefined) || fallback;
const linkOf = (error: unknown) => (isApiError(error) && error.link ? error.link : null);
const label = (p: PhoneProvider) => PHONE_PROVIDER_LABELS[p];

/**
 * 'Import from Twilio' / 'Import from Plivo' on the Assigned Numbers tab: a dialog lists the numbers of the
 * company's own carrier account (GET /number/import/{provider}); numbers already on the platform or that
 * cannot take calls cannot be ticked. 'Import selected' (POST /number/import) points them at Parley and
 * adds them (an agent is then given with Assign Agent); success closes with 'Numbers imported' and the table reloads.
 * A failure (a card not connected, the carrier refusing) is said in the dialog, with the Providers link
 * when that is the fix, and keeps the ticks.
 */
export const numberImportMachine = setup({
  types: {
    context: {} as NumberImportContext,
    events: {} as NumberImportEvent,
    tags: {} as 'open' | 'busy',
  },
  actors: {
    listNumbers: fromPromise<CarrierNumber[], PhoneProvider>(async ({ input, signal }) => {
      const res = await phone.carrierNumbers(input, { notify: false, signal });
      return res.data.numbers;
    }),
    importNumbers: fromPromise<NumberImportResponse, Pick<NumberImportContext, 'provider' | 'selected'>>(({ input, signal }) =>
      phone.importNumbers({ provider: input.provider, phone_numbers: input.selected }, { notify: false, signal }),
    ),
  },
  actions: {
    ...phoneEffects,
    start: assign((_, params: { provider: PhoneProvider }) => ({
      provider: params.provider,
      numbers: [],
      selected: [],
      error: null,
      errorLink: null,
    })),
    showNumbers: assign({ numbers: (_, params: { numbers: CarrierNumber[] }) => params.numbers }),
    toggle: assign({
      selected: ({ context }, params: { phone: string }) => {
        const chosen = new Set(context.selected);
        if (chosen.has(params.phone)) chosen.delete(params.phone);
        else chosen.add(params.phone);
        return context.numbers.map((n) => n.phone_number).filter((p) => chosen.has(p));
      },
      error: null,
    }),
    fail: assign((_, params: { error: string; link: string | null }) => ({ error: params.error, errorLink: params.link })),
    clearError: assign({ error: null, errorLink: null }),
  },
  guards: {
    /** the number is listed, can take calls, is not on the platform, and the limit is not reached */
    canTick: ({ context }, params: { phone: string }) => {
      const n = context.numbers.find((x) => x.phone_number === params.phone);
      if (!n || n.in_parley || !n.voice) return false;
      return context.selected.includes(params.phone) || context.selected.length < NUMBER_IMPORT_MAX;
    },
    hasSelection: ({ context }) => context.selected.length > 0,
  },
}).createMachine({
  id: 'numberImport',
  description: "The 'Import from Twilio' / 'Import from Plivo' dialog of the Assigned Numbers tab.",
  context: { provider: 'twilio', numbers: [], selected: [], error: null, errorLink: null },
  initial: 'closed',
  on: {
    'dialog.open': {
      target: '.loading',
      description: "'Import from Twilio' or 'Import from Plivo': the account's numbers are read.",
      actions: { type: 'start', params: ({ event }) => ({ provider: event.provider }) },
    },
  },
  states: {
    closed: { description: 'No dialog on screen.' },
    loading: {
      tags: ['open', 'busy'],
      description: "GET /number/import/{provider}: 'Loading numbers…'.",
      on: { 'dialog.close': { target: 'closed', description: 'Cancel while loading: nothing imported.' } },
      invoke: {
        id: 'listNumbers',
        src: 'listNumbers',
        input: ({ context }) => context.provider,
        onDone: {
          target: 'choosing',
          description: 'The numbers are listed (or the empty state when the account has none).',
          actions: { type: 'showNumbers', params: ({ event }) => ({ numbers: event.output }) },
        },
        onError: {
          target: 'loadFailed',
          description: 'The listing failed: the reason in the dialog (with the Providers link when a card is to connect).',
          actions: {
            type: 'fail',
            params: ({ context, event }) => ({
              error: messageOf(event.error, PHONE_TEXTS.importLoadFailed(label(context.provider))),
              link: linkOf(event.error),
            }),
          },
        },
      },
    },
    loadFailed: {
      tags: ['open'],
      description: 'Says why the numbers could not be read; Retry reads them again.',
      on: {
        'numbers.retry': { target: 'loading', description: 'Retry.', actions: 'clearError' },
        'dialog.close': { target: 'closed', description: 'Close: nothing imported.' },
      },
    },
    choosing: {
      tags: ['open'],
      description: "The account's numbers with a tick each; 'Import selected' is enabled once one is ticked.",
      on: {
        'number.toggle': {
          guard: { type: 'canTick', params: ({ event }) => ({ phone: event.phone }) },
          description: 'Ticks or unticks a number that can be imported.',
          actions: { type: 'toggle', params: ({ event }) => ({ phone: event.phone }) },
        },
        'import.submit': { guard: 'hasSelection', target: 'importing', description: "'Import selected'." },
        'dialog.close': { target: 'closed', description: 'Cancel: nothing imported.' },
      },
    },
    importing: {
      tags: ['open', 'busy'],
      description: "POST /number/import: the button reads 'Importing…'.",
      invoke: {
        id: 'importNumbers',
        src: 'importNumbers',
        input: ({ context }) => ({ provider: context.provider, selected: context.selected }),
        onDone: {
          target: 'closed',
          description: "'Numbers imported'; the table reloads with them.",
          actions: { type: 'notify', params: ({ event }) => NUMBER_IMPORT_TOASTS.imported(event.output.data.numbers.length) },
        },
        onError: {
          target: 'choosing',
          description: 'The reason is said in the dialog; the ticks stay to try again.',
          actions: {
            type: 'fail',
            params: ({ event }) => ({ error: messageOf(event.error, PHONE_TEXTS.importFailed), link: linkOf(event.error) }),
          },
        },
      },
    },
  },
});
