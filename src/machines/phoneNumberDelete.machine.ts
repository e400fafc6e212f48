import { assign, fromPromise, setup } from 'xstate';
import { PHONE_TEXTS, type PhoneNumber, type PhoneNumberDeleteResponse } from '../api/contract/phone';
import { phone } from '../api/phone';
import type { ToastMessage } from './notify';
import { isGone, phoneEffects } from './phone-effects';

/** What the confirmation names and deletes. */
export type PhoneDeleteTarget = Pick<PhoneNumber, '_id' | 'phone' | 'origin'>;

/** Spec section 8, verbatim titles. */
export const PHONE_DELETE_TOASTS = {
  deleted: (n: PhoneDeleteTarget, released: boolean): ToastMessage => ({
    title: PHONE_TEXTS.deleted,
    description: released ? `${n.phone} went back to the available numbers.` : `${n.phone} has been removed from your account.`,
  }),
  failed: { title: 'Error', description: PHONE_TEXTS.deleteFailed, variant: 'destructive' } satisfies ToastMessage,
};

export type PhoneNumberDeleteEvent =
  | { type: 'dialog.open'; number: PhoneDeleteTarget }
  | { type: 'dialog.close' }
  | { type: 'delete.confirm' };

/**
 * 'Confirm Deletion': 'Delete' in a row's menu asks first, in an alert
 * dialog an outside click does not close. Confirm reads 'Deleting...' while DELETE /number/{id} runs;
 * success closes, toasts 'Phone number deleted' and the table reloads (the call invalidates the phone
 * lists); a failure toasts 'An error occurred while deleting the phone number' and stays open.
 */
export const phoneNumberDeleteMachine = setup({
  types: {
    context: {} as { number: PhoneDeleteTarget | undefined },
    events: {} as PhoneNumberDeleteEvent,
    tags: {} as 'open' | 'busy',
  },
  actors: {
    deleteNumber: fromPromise<PhoneNumberDeleteResponse, PhoneDeleteTarget>(({ input, signal }) =>
      phone.remove(input._id, { notify: false, signal }),
    ),
  },
  actions: {
    ...phoneEffects,
    choose: assign({ number: (_, params: { number: PhoneDeleteTarget }) => params.number }),
    forget: assign({ number: undefined }),
  },
  guards: {
    isGone,
  },
}).createMachine({
  id: 'phoneNumberDelete',
  description: "The 'Confirm Deletion' dialog of the Assigned Numbers tab.",
  context: { number: undefined },
  initial: 'closed',
  states: {
    closed: {
      description: 'No dialog on screen.',
      on: {
        'dialog.open': {
          target: 'confirming',
          description: "'Delete' in a row's menu.",
          actions: { type: 'choose', params: ({ event }) => ({ number: event.number }) },
        },
      },
    },
    confirming: {
      tags: ['open'],
      description: 'Asks to confirm; an outside click does not close it.',
      on: {
        'dialog.close': {
          target: 'closed',
          description: 'Cancel or Escape: nothing is deleted.',
          actions: 'forget',
        },
        'delete.confirm': { target: 'deleting', description: 'Delete: go ahead.' },
      },
    },
    deleting: {
      tags: ['open', 'busy'],
      description: "DELETE /number/{id}; the button reads 'Deleting...' and Cancel waits.",
      invoke: {
        id: 'deleteNumber',
        src: 'deleteNumber',
        input: ({ context }) => context.number!,
        onDone: {
          target: 'closed',
          description: "Deleted: 'Phone number deleted', the table reloads without it.",
          actions: [
            {
              type: 'notify',
              params: ({ context, event }) => PHONE_DELETE_TOASTS.deleted(context.number!, event.output.data.released),
            },
            'forget',
          ],
        },
        onError: [
          {
            guard: { type: 'isGone', params: ({ event }) => ({ error: event.error }) },
            target: 'closed',
            description: 'Already gone (deleted elsewhere): nothing left to confirm; the table reloads without it.',
            actions: [{ type: 'notify', params: PHONE_DELETE_TOASTS.failed }, 'refreshList', 'forget'],
          },
          {
            target: 'confirming',
            description: 'The dialog stays open to try again or cancel.',
            actions: { type: 'notify', params: PHONE_DELETE_TOASTS.failed },
          },
        ],
      },
    },
  },
});
