import { describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import type { ResetPasswordBody, ResetPasswordResponse } from '../../src/api/contract/account.js';
import { ApiError } from '../../src/api/errors.js';
import type { ToastMessage } from '../../src/api/toast.js';
import { resetPasswordMachine } from '../../src/machines/resetPassword.machine.js';
import { describeModel } from './harness.js';

describeModel('resetPassword', resetPasswordMachine, {
  inputs: [{ token: 'abc' }, { token: '' }],
  implementations: { actions: { notify: () => {} } },
  events: {
    'field.change': [
      { type: 'field.change', field: 'password', value: 'new-secret' },
      { type: 'field.change', field: 'confirm', value: 'new-secret' },
    ],
    'xstate.done.actor.resetPassword': [
      {
        type: 'xstate.done.actor.resetPassword',
        output: { success: true, msg: 'Your password has been reset. You can now log in.' },
      },
      { type: 'xstate.done.actor.resetPassword', output: { success: false, msg: 'No' } },
    ],
    'xstate.error.actor.resetPassword': [
      {
        type: 'xstate.error.actor.resetPassword',
        error: new ApiError({ kind: 'http', status: 400, serverMessage: 'This reset link is invalid or has expired.' }),
      },
    ],
  },
});

describe('resetPassword behaviour', () => {
  it("asks twice ('Passwords do not match'), posts token and password, then opens the login dialog", async () => {
    const toasts: ToastMessage[] = [];
    const sent: ResetPasswordBody[] = [];
    let openedLogin = 0;
    const actor = createActor(
      resetPasswordMachine.provide({
        actors: {
          resetPassword: fromPromise<ResetPasswordResponse, ResetPasswordBody>(async ({ input }) => {
            sent.push(input);
            return { success: true, msg: 'Your password has been reset. You can now log in.' };
          }),
        },
        actions: { notify: (_, t) => toasts.push(t), openLogin: () => (openedLogin += 1) },
      }),
      { input: { token: 'tok' } },
    ).start();
    actor.send({ type: 'form.submit' });
    expect(actor.getSnapshot().context.errors).toEqual({ password: 'Password is required', confirm: undefined });
    actor.send({ type: 'field.change', field: 'password', value: 'new-secret' });
    actor.send({ type: 'field.change', field: 'confirm', value: 'new-secreT' });
    actor.send({ type: 'form.submit' });
    expect(actor.getSnapshot().context.errors).toEqual({ password: undefined, confirm: 'Passwords do not match' });
    actor.send({ type: 'field.change', field: 'confirm', value: 'new-secret' });
    actor.send({ type: 'form.submit' });
    await vi.waitFor(() => expect(actor.getSnapshot().status).toBe('done'));
    expect(sent).toEqual([{ token: 'tok', password: 'new-secret' }]);
    expect(toasts).toEqual([{ title: 'Password reset', description: 'Your password has been reset. You can now log in.' }]);
    expect(openedLogin).toBe(1);
  });

  it('without a token the link is invalid', () => {
    const actor = createActor(resetPasswordMachine, { input: { token: '' } }).start();
    expect(actor.getSnapshot().matches('linkInvalid')).toBe(true);
  });
});
