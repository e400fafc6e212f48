import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import type { ForgotPasswordBody, ForgotPasswordResponse } from '../../src/api/contract/account.js';
import { ApiError } from '../../src/api/errors.js';
import type { ToastMessage } from '../../src/api/toast.js';
import { FORGOT_PASSWORD_RESET_DELAY, forgotPasswordMachine } from '../../src/machines/forgotPassword.machine.js';
import { describeModel } from './harness.js';

const sentMsg = 'If an account exists for that email, a reset link has been sent.';

describeModel('forgotPassword', forgotPasswordMachine, {
  implementations: { actions: { notify: () => {} } },
  events: {
    'field.change': [{ type: 'field.change', value: 'ava@example.com' }],
    'xstate.done.actor.sendResetLink': [
      { type: 'xstate.done.actor.sendResetLink', output: { success: true, msg: sentMsg } },
      { type: 'xstate.done.actor.sendResetLink', output: { success: false, msg: '' } },
    ],
    'xstate.error.actor.sendResetLink': [
      {
        type: 'xstate.error.actor.sendResetLink',
        error: new ApiError({ kind: 'http', status: 429, serverMessage: 'Too many requests' }),
      },
      { type: 'xstate.error.actor.sendResetLink', error: new ApiError({ kind: 'network' }) },
    ],
  },
});

function flow(answer: (input: ForgotPasswordBody) => Promise<ForgotPasswordResponse>) {
  const toasts: ToastMessage[] = [];
  const actor = createActor(
    forgotPasswordMachine.provide({
      actors: { sendResetLink: fromPromise<ForgotPasswordResponse, ForgotPasswordBody>(({ input }) => answer(input)) },
      actions: { notify: (_, t) => toasts.push(t) },
    }),
  ).start();
  return { actor, toasts };
}

describe('forgotPassword behaviour', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("validates with 'Email is required' and 'Invalid email format'", () => {
    const { actor } = flow(async () => ({ success: true, msg: sentMsg }));
    actor.send({ type: 'dialog.open' });
    actor.send({ type: 'form.submit' });
    expect(actor.getSnapshot().context.error).toBe('Email is required');
    actor.send({ type: 'field.change', value: 'ava@' });
    expect(actor.getSnapshot().context.error).toBeNull();
    actor.send({ type: 'form.submit' });
    expect(actor.getSnapshot().context.error).toBe('Invalid email format');
  });

  it("sends, toasts 'Reset link sent' with msg, shows 'sent'; closing resets after 300 ms", async () => {
    const inputs: ForgotPasswordBody[] = [];
    const { actor, toasts } = flow(async (input) => {
      inputs.push(input);
      return { success: true, msg: sentMsg };
    });
    actor.send({ type: 'dialog.open' });
    actor.send({ type: 'field.change', value: 'ava@example.com' });
    actor.send({ type: 'form.submit' });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    expect(actor.getSnapshot().can({ type: 'dialog.close' })).toBe(false);
    actor.send({ type: 'dialog.close' });
    expect(actor.getSnapshot().hasTag('open')).toBe(true);
    await vi.waitFor(() => expect(actor.getSnapshot().hasTag('sent')).toBe(true));
    expect(inputs).toEqual([{ email: 'ava@example.com' }]);
    expect(toasts).toEqual([{ title: 'Reset link sent', description: sentMsg }]);

    vi.useFakeTimers();
    actor.send({ type: 'dialog.close' });
    expect(actor.getSnapshot().hasTag('open')).toBe(false);
    // The content stays while the dialog animates out...
    vi.advanceTimersByTime(FORGOT_PASSWORD_RESET_DELAY - 1);
    expect(actor.getSnapshot().hasTag('sent')).toBe(true);
    // ...and is reset after the delay.
    vi.advanceTimersByTime(1);
    expect(actor.getSnapshot().hasTag('sent')).toBe(false);
    expect(actor.getSnapshot().context).toEqual({ email: '', error: null });
    expect(actor.getSnapshot().matches({ visibility: 'closed', flow: 'editing' })).toBe(true);
  });

  it('reopening within the delay keeps what was there', () => {
    vi.useFakeTimers();
    const { actor } = flow(async () => ({ success: true, msg: sentMsg }));
    actor.send({ type: 'dialog.open' });
    actor.send({ type: 'field.change', value: 'ava@example.com' });
    actor.send({ type: 'dialog.close' });
    vi.advanceTimersByTime(FORGOT_PASSWORD_RESET_DELAY - 1);
    actor.send({ type: 'dialog.open' });
    vi.advanceTimersByTime(FORGOT_PASSWORD_RESET_DELAY);
    expect(actor.getSnapshot().context.email).toBe('ava@example.com');
  });

  it('failure messages follow the specification', async () => {
    const answers: (() => Promise<ForgotPasswordResponse>)[] = [
      async () => ({ success: false, msg: 'Nope' }),
      async () => ({ success: false, msg: '' }),
      () => Promise.reject(new ApiError({ kind: 'http', status: 429, serverMessage: 'Too many requests' })),
      () => Promise.reject(new ApiError({ kind: 'network' })),
    ];
    const { actor, toasts } = flow(() => (answers.shift() as () => Promise<ForgotPasswordResponse>)());
    actor.send({ type: 'field.change', value: 'ava@example.com' });
    for (let i = 0; i < 4; i += 1) {
      actor.send({ type: 'form.submit' });
      await vi.waitFor(() => expect(actor.getSnapshot().hasTag('busy')).toBe(false));
    }
    expect(toasts).toEqual([
      { title: 'Error', description: 'Nope', variant: 'destructive' },
      { title: 'Error', description: 'Something went wrong. Please try again.', variant: 'destructive' },
      { title: 'Error', description: 'Too many requests', variant: 'destructive' },
      { title: 'Error', description: 'Failed to send reset link. Please try again later.', variant: 'destructive' },
    ]);
  });
});
