import { assign, fromPromise, setup } from 'xstate';
import { type NumberRequestResponse, PHONE_TEXTS } from '../api/contract/phone';
import { serverMessageOf } from '../api/errors';
import { phone } from '../api/phone';
import type { ToastMessage } from './notify';
import { phoneEffects } from './phone-effects';

/** Spec section 8, verbatim. */
export const PHONE_REQUEST_TOASTS = {
  /** `granted`: the server granted it at once (REQUEST_AUTO_GRANT), so the number is under Assigned Numbers now */
  sent: (phoneNumber: string, granted = false): ToastMessage => ({
    title: PHONE_TEXTS.requestSentTitle,
    description: PHONE_TEXTS.requestSent(phoneNumber) + (granted ? ' It is now under Assigned Numbers.' : ''),
  }),
  failed: (msg?: string): ToastMessage => ({
    title: PHONE_TEXTS.requestFailed,
    description: msg || 'Please try again.',
    variant: 'destructive',
  }),
};

export type PhoneRequestEvent = { type: 'number.request'; phone: string };

export interface PhoneRequestContext {
  /** the number being requested now */
  phone: string | undefined;
  /** numbers requested on this visit (the specification: marked Requested locally after a success) */
  requested: string[];
}

/**
 * 'Request' on a row of the Available Numbers tab: POST /request/ {phone}.
 * One request at a time (the other Request buttons wait). Success toasts 'Request Sent' and marks the
 * row 'Requested' at once; the list also reloads and the server's `requested: true` keeps the mark
 * after a reload. A failure toasts 'Failed to request phone number'.
 */
export const phoneRequestMachine = setup({
  types: {
    context: {} as PhoneRequestContext,
    events: {} as PhoneRequestEvent,
    tags: {} as 'busy',
  },
  actors: {
    requestNumber: fromPromise<NumberRequestResponse, string>(({ input, signal }) =>
      phone.request(input, { notify: false, signal }),
    ),
  },
  actions: {
    ...phoneEffects,
    choose: assign({ phone: (_, params: { phone: string }) => params.phone }),
    markRequested: assign({
      requested: ({ context }) => [...context.requested.filter((p) => p !== context.phone), context.phone!],
      phone: undefined,
    }),
    forget: assign({ phone: undefined }),
  },
}).createMachine({
  id: 'phoneRequest',
  description: "The 'Request' buttons of the Available Numbers tab.",
  context: { phone: undefined, requested: [] },
  initial: 'idle',
  states: {
    idle: {
      description: 'Every Request button is ready.',
      on: {
        'number.request': {
          target: 'requesting',
          description: "'Request' on a row.",
          actions: { type: 'choose', params: ({ event }) => ({ phone: event.phone }) },
        },
      },
    },
    requesting: {
      tags: ['busy'],
      description: 'POST /request/ {phone}; that row shows a spinner, the other buttons wait.',
      invoke: {
        id: 'requestNumber',
        src: 'requestNumber',
        input: ({ context }) => context.phone!,
        onDone: {
          target: 'idle',
          description: "'Request Sent'; the row reads 'Requested'.",
          actions: [
            {
              type: 'notify',
              params: ({ context, event }) => PHONE_REQUEST_TOASTS.sent(context.phone!, event.output.data.request.granted),
            },
            'markRequested',
          ],
        },
        onError: {
          target: 'idle',
          description: "'Failed to request phone number' (with the server's reason); the row keeps its Request button.",
          actions: [
            { type: 'notify', params: ({ event }) => PHONE_REQUEST_TOASTS.failed(serverMessageOf(event.error)) },
            'forget',
          ],
        },
      },
    },
  },
});
