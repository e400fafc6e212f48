import { describe, expect, it, vi } from 'vitest';
import type { PhoneNumberDeleteResponse } from '../../src/api/contract/phone.js';
import { ApiError } from '../../src/api/errors.js';
import { type PhoneDeleteTarget, phoneNumberDeleteMachine } from '../../src/machines/phoneNumberDelete.machine.js';
import { recordingActor } from './agent-effects.js';
import { describeModel } from './harness.js';

const target: PhoneDeleteTarget = { _id: 'num-1', phone: '+14155550100', origin: 'pool' };
const deleted = (released: boolean): PhoneNumberDeleteResponse => ({
  success: true,
  msg: 'Phone number deleted',
  data: { _id: 'num-1', released },
});

describeModel('phoneNumberDelete', phoneNumberDeleteMachine, {
  implementations: { actions: { notify: () => {}, refreshList: () => {} } },
  events: {
    'dialog.open': [{ type: 'dialog.open', number: target }],
    'xstate.done.actor.deleteNumber': [{ type: 'xstate.done.actor.deleteNumber', output: deleted(true) }],
    'xstate.error.actor.deleteNumber': [
      {
        type: 'xstate.error.actor.deleteNumber',
        error: new ApiError({ kind: 'http', status: 404, serverMessage: 'Phone number not found' }),
      },
      { type: 'xstate.error.actor.deleteNumber', error: new ApiError({ kind: 'network' }) },
    ],
  },
});

describe('phoneNumberDelete behaviour', () => {
  it("Cancel deletes nothing; Confirm deletes, closes and toasts 'Phone number deleted'", async () => {
    const { actor, calls, toasts } = recordingActor(phoneNumberDeleteMachine, 'deleteNumber', async () => deleted(true));
    actor.send({ type: 'dialog.open', number: target });
    actor.send({ type: 'dialog.close' });
    expect(actor.getSnapshot().matches('closed')).toBe(true);
    expect(calls).toEqual([]);

    actor.send({ type: 'dialog.open', number: target });
    actor.send({ type: 'delete.confirm' });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    actor.send({ type: 'dialog.close' });
    expect(actor.getSnapshot().hasTag('open')).toBe(true);
    await vi.waitFor(() => expect(actor.getSnapshot().matches('closed')).toBe(true));
    expect(calls).toEqual([target]);
    expect(toasts).toEqual([{ title: 'Phone number deleted', description: '+14155550100 went back to the available numbers.' }]);
  });

  it("a failure toasts the spec's message and stays; a number already gone closes and reloads", async () => {
    let answer: Error = new ApiError({ kind: 'network' });
    const { actor, toasts, refreshes } = recordingActor(phoneNumberDeleteMachine, 'deleteNumber', async () => {
      throw answer;
    });
    actor.send({ type: 'dialog.open', number: target });
    actor.send({ type: 'delete.confirm' });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('confirming')).toBe(true));
    expect(toasts).toEqual([
      { title: 'Error', description: 'An error occurred while deleting the phone number', variant: 'destructive' },
    ]);
    expect(refreshes()).toBe(0);
    answer = new ApiError({ kind: 'http', status: 404, serverMessage: 'Phone number not found' });
    actor.send({ type: 'delete.confirm' });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('closed')).toBe(true));
    expect(refreshes()).toBe(1);
  });
});
