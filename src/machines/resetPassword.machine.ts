import * as v from 'valibot';
import { assign, fromPromise, setup } from 'xstate';
import { account } from '../api/account';
import { PasswordSchema, type ResetPasswordBody, type ResetPasswordResponse } from '../api/contract/account';
import { notify } from './notify';

export const PASSWORDS_DIFFER = 'Passwords do not match';

export type ResetPasswordEvent = { type: 'field.change'; field: 'password' | 'confirm'; value: string } | { type: 'form.submit' };

export interface ResetPasswordContext {
  token: string;
  password: string;
  confirm: string;
  errors: { password?: string; confirm?: string };
}

const FormSchema = v.pipe(
  v.object({ password: PasswordSchema, confirm: v.string() }),
  v.forward(
    v.check((form) => form.password === form.confirm, PASSWORDS_DIFFER),
    ['confirm'],
  ),
);

function errorsOf(context: ResetPasswordContext): ResetPasswordContext['errors'] {
  const issues = v.safeParse(FormSchema, context).issues;
  const nested = issues ? (v.flatten<typeof FormSchema>(issues).nested ?? {}) : {};
  return { password: nested.password?.[0], confirm: nested.confirm?.[0] };
}

/**
 * /reset-password: the token comes from the link's fragment (`#token=...`, never sent to servers in
 * logs or Referer). The new password is asked twice; success says so and opens the login dialog.
 */
export const resetPasswordMachine = setup({
  types: {
    context: {} as ResetPasswordContext,
    events: {} as ResetPasswordEvent,
    input: {} as { token: string },
  },
  actors: {
    resetPassword: fromPromise<ResetPasswordResponse, ResetPasswordBody>(({ input, signal }) =>
      account.resetPassword(input, { notify: false, signal }),
    ),
  },
  actions: {
    notify,
    openLogin: () => {},
    setField: assign(({ context }, params: { field: 'password' | 'confirm'; value: string }) => ({
      [params.field]: params.value,
      errors: { ...context.errors, [params.field]: undefined },
    })),
    clearErrors: assign({ errors: {} }),
    showErrors: assign({ errors: ({ context }) => errorsOf(context) }),
  },
  guards: {
    hasToken: ({ context }) => context.token !== '',
    isValid: ({ context }) => v.is(FormSchema, context),
    succeeded: (_, params: { success: boolean }) => params.success,
  },
}).createMachine({
  id: 'resetPassword',
  description: 'Choose a new password from an emailed reset link.',
  context: ({ input }) => ({ token: input.token, password: '', confirm: '', errors: {} }),
  initial: 'checking',
  states: {
    checking: {
      description: 'Reads the token the link carried in its fragment.',
      always: [
        { guard: 'hasToken', target: 'editing', description: 'A token: ask for the new password.' },
        { target: 'linkInvalid', description: 'No token: the link is broken.' },
      ],
    },
    linkInvalid: {
      description: 'Opened without a token: explain and offer a new link.',
    },
    editing: {
      on: {
        'field.change': {
          description: "The user types a password; that field's error goes.",
          actions: { type: 'setField', params: ({ event }) => ({ field: event.field, value: event.value }) },
        },
        'form.submit': [
          { guard: 'isValid', target: 'saving', description: 'Valid and matching: reset the password.', actions: 'clearErrors' },
          {
            description: "Spec section 5 password rules, and 'Passwords do not match'.",
            actions: 'showErrors',
          },
        ],
      },
    },
    saving: {
      tags: ['busy'],
      invoke: {
        id: 'resetPassword',
        src: 'resetPassword',
        input: ({ context }) => ({ token: context.token, password: context.password }),
        onDone: [
          {
            guard: { type: 'succeeded', params: ({ event }) => event.output },
            target: 'done',
            description: "Reset: 'Password reset' toast and the login dialog opens.",
            actions: [
              { type: 'notify', params: ({ event }) => ({ title: 'Password reset', description: event.output.msg }) },
              'openLogin',
            ],
          },
          {
            target: 'editing',
            description: 'The server answered without success: its message in a toast.',
            actions: {
              type: 'notify',
              params: ({ event }) => ({ title: 'Error', description: event.output.msg, variant: 'destructive' as const }),
            },
          },
        ],
        onError: {
          description: 'An expired or used link answers 400 with its msg.',
          target: 'editing',
          actions: {
            type: 'notify',
            params: ({ event }) => ({
              title: 'Error',
              description: event.error instanceof Error ? event.error.message : 'Could not reset the password. Please try again.',
              variant: 'destructive' as const,
            }),
          },
        },
      },
    },
    done: {
      type: 'final',
      description: 'Password changed: every session of the account was revoked; log in with the new one.',
    },
  },
});
