import * as v from 'valibot';
import { assign, fromPromise, raise, setup, stateIn } from 'xstate';
import { account } from '../api/account';
import { type ForgotPasswordBody, ForgotPasswordBodySchema, type ForgotPasswordResponse } from '../api/contract/account';
import { isApiError } from '../api/errors';
import { notify, type ToastMessage } from './notify';

/** ms after the dialog closes before its form is reset (so the closing animation shows the old text). */
export const FORGOT_PASSWORD_RESET_DELAY = 300;

/** Spec section 8, verbatim. */
export const FORGOT_PASSWORD_TOASTS = {
  sent: (msg: string): ToastMessage => ({ title: 'Reset link sent', description: msg }),
  refused: (msg?: string): ToastMessage => ({
    title: 'Error',
    description: msg || 'Something went wrong. Please try again.',
    variant: 'destructive',
  }),
  failed: (msg?: string): ToastMessage => ({
    title: 'Error',
    description: msg || 'Failed to send reset link. Please try again later.',
    variant: 'destructive',
  }),
};

export type ForgotPasswordEvent =
  | { type: 'dialog.open' }
  | { type: 'dialog.close' }
  | { type: 'field.change'; value: string }
  | { type: 'form.submit' }
  | { type: 'form.reset' };

export interface ForgotPasswordContext {
  email: string;
  error: string | null;
}

const emptyForm: ForgotPasswordContext = { email: '', error: null };

/**
 * Forgot password: a dialog on the landing page and the /forgot-password page (which renders only the
 * `flow` region). Two regions: `visibility` (is the dialog shown) and `flow` (form -> sending -> sent).
 * Closing keeps the content while the dialog animates out, then resets form and sent state after
 * the named delay `resetDelay` (300 ms, the specification).
 */
export const forgotPasswordMachine = setup({
  types: {
    context: {} as ForgotPasswordContext,
    events: {} as ForgotPasswordEvent,
  },
  actors: {
    sendResetLink: fromPromise<ForgotPasswordResponse, ForgotPasswordBody>(({ input, signal }) =>
      account.forgotPassword(input, { notify: false, signal }),
    ),
  },
  actions: {
    notify,
    clearForm: assign(emptyForm),
    setEmail: assign({ email: (_, params: { value: string }) => params.value, error: null }),
    clearError: assign({ error: null }),
    showError: assign({
      error: ({ context }) => v.safeParse(ForgotPasswordBodySchema, { email: context.email }).issues?.[0]?.message ?? null,
    }),
  },
  delays: {
    resetDelay: FORGOT_PASSWORD_RESET_DELAY,
  },
  guards: {
    isValid: ({ context }) => v.is(ForgotPasswordBodySchema, { email: context.email }),
    succeeded: (_, params: { success: boolean }) => params.success,
    isSending: stateIn({ flow: 'sending' }),
  },
}).createMachine({
  id: 'forgotPassword',
  description: 'Forgot password: email -> reset link sent -> "Check your inbox".',
  context: emptyForm,
  type: 'parallel',
  states: {
    visibility: {
      initial: 'closed',
      states: {
        closed: {
          on: { 'dialog.open': { target: 'open', description: "'Forgot password' on the login form opens it." } },
        },
        open: {
          tags: ['open'],
          on: {
            'dialog.close': [
              { description: 'The request under way finishes first.', guard: 'isSending' },
              { target: 'closing', description: 'Escape, the close button or an outside click: the dialog animates out.' },
            ],
          },
        },
        closing: {
          description: 'Hidden; the content stays as it was while the dialog animates out.',
          after: {
            resetDelay: {
              target: 'closed',
              description: 'Out of sight: the form is emptied for next time.',
              actions: raise({ type: 'form.reset' }),
            },
          },
          on: { 'dialog.open': { target: 'open', description: 'Opened again while closing: the content is kept.' } },
        },
      },
    },
    flow: {
      initial: 'editing',
      states: {
        editing: {
          on: {
            'field.change': {
              description: 'The user types the email; the error shown goes.',
              actions: { type: 'setEmail', params: ({ event }) => ({ value: event.value }) },
            },
            'form.submit': [
              { guard: 'isValid', target: 'sending', description: 'A valid email: ask for the link.', actions: 'clearError' },
              {
                description: "'Email is required' or 'Invalid email format'.",
                actions: 'showError',
              },
            ],
            'form.reset': { description: 'The closed dialog empties its form.', actions: 'clearForm' },
          },
        },
        sending: {
          description: 'POST /account/forgotpassword; the answer is the same whether the email exists or not.',
          tags: ['busy'],
          invoke: {
            id: 'sendResetLink',
            src: 'sendResetLink',
            input: ({ context }) => v.parse(ForgotPasswordBodySchema, { email: context.email }),
            onDone: [
              {
                guard: { type: 'succeeded', params: ({ event }) => event.output },
                target: 'sent',
                description: "Sent: 'Reset link sent' toast and 'Check your inbox'.",
                actions: { type: 'notify', params: ({ event }) => FORGOT_PASSWORD_TOASTS.sent(event.output.msg) },
              },
              {
                target: 'editing',
                description: 'The server answered without success: its message in a toast; the email stays.',
                actions: { type: 'notify', params: ({ event }) => FORGOT_PASSWORD_TOASTS.refused(event.output.msg) },
              },
            ],
            onError: {
              target: 'editing',
              description: 'No answer or an error: a toast; the email stays to try again.',
              actions: {
                type: 'notify',
                params: ({ event }) =>
                  FORGOT_PASSWORD_TOASTS.failed(isApiError(event.error) ? event.error.serverMessage : undefined),
              },
            },
          },
        },
        sent: {
          description: "'Check your inbox' with a 'Got it' button.",
          tags: ['sent'],
          on: {
            'form.reset': {
              target: 'editing',
              description: "'Got it' or the dialog closed: back to an empty form.",
              actions: 'clearForm',
            },
          },
        },
      },
    },
  },
});
