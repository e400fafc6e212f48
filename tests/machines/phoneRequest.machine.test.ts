import { describe, expect, it, vi } from 'vitest';
import type { NumberRequestResponse } from '../../src/api/contract/phone.js';
import { ApiError } from '../../src/api/errors.js';
import { phoneRequestMachine } from '../../src/machines/phoneRequest.machine.js';
import { recordingActor } from './agent-effects.js';
import { describeModel } from './harness.js';

const answer = (phone: string, granted = false): NumberRequestResponse => ({
  success: true,
  msg: `Request for phone number ${phone} has been sent.`,
  data: { request: { _id: 'r1', phone, phoneNumberId: 'n1', requestedAt: '2026-11-23T10:00:00.000Z', granted } },
});

describeModel('phoneRequest', phoneRequestMachine, {
  implementations: { actions: { notify: () => {}, refreshList: () => {} } },
  events: {
    'number.request': [{ type: 'number.request', phone: '+14155550100' }],
    'xstate.done.actor.requestNumber': [{ type: 'xstate.done.actor.requestNumber', output: answer('+14155550100') }],
    'xstate.error.actor.requestNumber': [{ type: 'xstate.error.actor.requestNumber', error: new ApiError({ kind: 'network' }) }],
  },
});

describe('phoneRequest behaviour', () => {
  it("requests one number at a time, toasts 'Request Sent' and marks it requested", async () => {
    const { actor, calls, toasts } = recordingActor(phoneRequestMachine, 'requestNumber', async (phone: string) => answer(phone));
    actor.send({ type: 'number.request', phone: '+14155550100' });
    expect(actor.getSnapshot().context.phone).toBe('+14155550100');
    // a second Request while the first runs waits (its button is disabled): nothing is sent
    actor.send({ type: 'number.request', phone: '+14155550101' });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('idle')).toBe(true));
    expect(calls).toEqual(['+14155550100']);
    expect(actor.getSnapshot().context.requested).toEqual(['+14155550100']);
    expect(toasts).toEqual([{ title: 'Request Sent', description: 'Request for phone number +14155550100 has been sent.' }]);
  });

  it('says so when the server granted the number at once (REQUEST_AUTO_GRANT)', async () => {
    const { actor, toasts } = recordingActor(phoneRequestMachine, 'requestNumber', async (phone: string) => answer(phone, true));
    actor.send({ type: 'number.request', phone: '+14155550100' });
    await vi.waitFor(() => expect(toasts).toHaveLength(1));
    expect(toasts[0]).toEqual({
      title: 'Request Sent',
      description: 'Request for phone number +14155550100 has been sent. It is now under Assigned Numbers.',
    });
  });

  it("a failure toasts 'Failed to request phone number' with the server's reason and marks nothing", async () => {
    const { actor, toasts } = recordingActor(phoneRequestMachine, 'requestNumber', async () => {
      throw new ApiError({ kind: 'http', status: 404, serverMessage: 'This phone number is not available' });
    });
    actor.send({ type: 'number.request', phone: '+14155550100' });
    await vi.waitFor(() => expect(toasts).toHaveLength(1));
    expect(toasts[0]).toEqual({
      title: 'Failed to request phone number',
      description: 'This phone number is not available',
      variant: 'destructive',
    });
    expect(actor.getSnapshot().context.requested).toEqual([]);
  });
});
