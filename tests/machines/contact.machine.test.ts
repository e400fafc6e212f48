import { describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import type { ContactBody, ContactResponse } from '../../src/api/contract/account.js';
import { ApiError } from '../../src/api/errors.js';
import type { ToastMessage } from '../../src/api/toast.js';
import { contactMachine } from '../../src/machines/contact.machine.js';
import { describeModel } from './harness.js';

describeModel('contact', contactMachine, {
  implementations: { actions: { notify: () => {} } },
  events: {
    'field.change': [
      { type: 'field.change', field: 'name', value: 'Ava' },
      { type: 'field.change', field: 'email', value: 'ava@example.com' },
      { type: 'field.change', field: 'message', value: 'Hello' },
    ],
    'xstate.done.actor.sendMessage': [{ type: 'xstate.done.actor.sendMessage', output: { success: true, msg: 'Thanks!' } }],
    'xstate.error.actor.sendMessage': [{ type: 'xstate.error.actor.sendMessage', error: new ApiError({ kind: 'network' }) }],
  },
});

describe('contact behaviour', () => {
  it('requires every field, sends the message, closes and thanks; a failure keeps the dialog open', async () => {
    const toasts: ToastMessage[] = [];
    const sent: ContactBody[] = [];
    let fail = true;
    const actor = createActor(
      contactMachine.provide({
        actors: {
          sendMessage: fromPromise<ContactResponse, ContactBody>(async ({ input }) => {
            sent.push(input);
            if (fail) throw new ApiError({ kind: 'http', status: 429, serverMessage: 'Too many messages' });
            return { success: true, msg: 'Thanks! We will get back to you soon.' };
          }),
        },
        actions: { notify: (_, t) => toasts.push(t) },
      }),
    ).start();
    actor.send({ type: 'dialog.open' });
    actor.send({ type: 'form.submit' });
    expect(actor.getSnapshot().context.errors).toEqual({
      name: 'Name is required',
      email: 'Email is required',
      message: 'Message is required',
    });
    actor.send({ type: 'field.change', field: 'name', value: 'Ava' });
    actor.send({ type: 'field.change', field: 'email', value: 'ava@example.com' });
    actor.send({ type: 'field.change', field: 'message', value: 'Hello there' });
    actor.send({ type: 'form.submit' });
    await vi.waitFor(() => expect(actor.getSnapshot().hasTag('busy')).toBe(false));
    expect(actor.getSnapshot().hasTag('open')).toBe(true);
    expect(toasts).toEqual([{ title: 'Error', description: 'Too many messages', variant: 'destructive' }]);
    fail = false;
    actor.send({ type: 'form.submit' });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('closed')).toBe(true));
    expect(sent[1]).toEqual({ name: 'Ava', email: 'ava@example.com', message: 'Hello there' });
    expect(toasts[1]).toEqual({ title: 'Message sent', description: 'Thanks! We will get back to you soon.' });
    expect(actor.getSnapshot().context.values).toEqual({ name: '', email: '', message: '' });
  });
});
