import { describe, expect, it, vi } from 'vitest';
import type { PhoneNumber, PhoneNumberResponse } from '../../src/api/contract/phone.js';
import { ApiError } from '../../src/api/errors.js';
import {
  PHONE_UPDATE_TOASTS,
  type PhoneUpdateInput,
  phoneFormOf,
  phoneNumberUpdateMachine,
} from '../../src/machines/phoneNumberUpdate.machine.js';
import { recordingActor } from './agent-effects.js';
import { describeModel } from './harness.js';

/** An assigned number as GET /phone/assigned answers it. */
const number: PhoneNumber = {
  _id: 'num-1',
  phone: '+14155550100',
  provider: 'twilio',
  phone_number: '+14155550100',
  phone_number_type: 'local',
  phone_number_pretty: '(415) 555-0100',
  nickname: 'Front desk',
  assistantId: '',
  termination_uri: 'parley.pstn.twilio.com',
  area_code: 415,
  inbound_agent_id: null,
  outbound_agent_id: null,
  inbound_agent_name: null,
  outbound_agent_name: null,
  accountId: 'acc-1',
  companyId: 'co-1',
  origin: 'company',
  assignedAt: '2026-11-01T10:00:00.000Z',
  createdAt: '2026-11-01T10:00:00.000Z',
  updatedAt: '2026-11-01T10:00:00.000Z',
};
const saved = (n: Partial<PhoneNumber> = {}) =>
  ({ success: true, msg: 'Phone number updated', data: { number: { ...number, ...n } } }) as PhoneNumberResponse;

describeModel('phoneNumberUpdate', phoneNumberUpdateMachine, {
  implementations: { actions: { notify: () => {}, refreshList: () => {} } },
  events: {
    'dialog.open': [{ type: 'dialog.open', number }],
    'field.change': [
      { type: 'field.change', field: 'phone_number', value: '12345' },
      { type: 'field.change', field: 'phone_number', value: '+1 415 555 0199' },
    ],
    'xstate.done.actor.saveNumber': [{ type: 'xstate.done.actor.saveNumber', output: saved() }],
    'xstate.error.actor.saveNumber': [
      {
        type: 'xstate.error.actor.saveNumber',
        error: new ApiError({ kind: 'http', status: 404, serverMessage: 'Phone number not found' }),
      },
      { type: 'xstate.error.actor.saveNumber', error: new ApiError({ kind: 'network' }) },
    ],
  },
});

const flow = (answer: (input: PhoneUpdateInput) => Promise<PhoneNumberResponse>) => {
  const r = recordingActor(phoneNumberUpdateMachine, 'saveNumber', answer);
  return { ...r, sent: r.calls as PhoneUpdateInput[] };
};

describe('phoneNumberUpdate behaviour', () => {
  it('opens with the number and resets from it on every open', () => {
    const { actor } = flow(async () => saved());
    actor.send({ type: 'dialog.open', number });
    expect(actor.getSnapshot().context.values).toEqual(phoneFormOf(number));
    expect(actor.getSnapshot().context.values.area_code).toBe('415');
    actor.send({ type: 'field.change', field: 'nickname', value: 'Changed' });
    actor.send({ type: 'dialog.close' });
    actor.send({ type: 'dialog.open', number });
    expect(actor.getSnapshot().context.values.nickname).toBe('Front desk');
  });

  it("shows section 5's messages and sends nothing while the form is invalid", () => {
    const { actor, sent } = flow(async () => saved());
    actor.send({ type: 'dialog.open', number });
    actor.send({ type: 'field.change', field: 'phone_number', value: '415555' });
    actor.send({ type: 'field.change', field: 'phone_number_type', value: '' });
    actor.send({ type: 'field.change', field: 'phone_number_pretty', value: ' ' });
    actor.send({ type: 'field.change', field: 'termination_uri', value: '' });
    actor.send({ type: 'form.submit' });
    expect(actor.getSnapshot().matches('editing')).toBe(true);
    expect(actor.getSnapshot().context.errors).toEqual({
      phone_number: 'Invalid phone number',
      phone_number_type: 'Phone number type is required',
      phone_number_pretty: 'Pretty phone number is required',
      termination_uri: 'Termination URI is required',
    });
    expect(sent).toEqual([]);
    actor.send({ type: 'field.change', field: 'phone_number', value: '4155550100' });
    expect(actor.getSnapshot().context.errors.phone_number).toBeUndefined();
  });

  it("saves the form's fields (no agents), closes and toasts 'Phone number updated'", async () => {
    const { actor, sent, toasts } = flow(async () => saved({ nickname: 'Lobby' }));
    actor.send({ type: 'dialog.open', number });
    actor.send({ type: 'field.change', field: 'nickname', value: 'Lobby' });
    actor.send({ type: 'form.submit' });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    await vi.waitFor(() => expect(actor.getSnapshot().matches('closed')).toBe(true));
    expect(sent).toEqual([{ id: 'num-1', body: { ...phoneFormOf(number), nickname: 'Lobby' } }]);
    expect(Object.keys(sent[0]!.body)).not.toContain('inbound_agent_id');
    expect(toasts).toEqual([PHONE_UPDATE_TOASTS.updated('(415) 555-0100')]);
    expect(toasts[0]?.title).toBe('Phone number updated');
  });

  it("a failure keeps the input with the server's field message; a deleted number closes and reloads", async () => {
    let answer: Error = new ApiError({
      kind: 'http',
      status: 400,
      serverMessage: 'The number of a phone number from the Parley pool cannot be changed',
      fieldErrors: { phone_number: 'The number of a phone number from the Parley pool cannot be changed' },
    });
    const { actor, toasts, refreshes } = flow(async () => {
      throw answer;
    });
    actor.send({ type: 'dialog.open', number });
    actor.send({ type: 'field.change', field: 'phone_number', value: '+14155550199' });
    actor.send({ type: 'form.submit' });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('editing')).toBe(true));
    expect(actor.getSnapshot().context.values.phone_number).toBe('+14155550199');
    expect(actor.getSnapshot().context.errors.phone_number).toMatch(/cannot be changed/);
    expect(toasts.at(-1)?.variant).toBe('destructive');

    answer = new ApiError({ kind: 'network' });
    actor.send({ type: 'form.submit' });
    await vi.waitFor(() => expect(toasts).toHaveLength(2));
    expect(toasts[1]).toEqual({ title: 'Error', description: 'Failed to update phone number', variant: 'destructive' });
    expect(refreshes()).toBe(0);

    answer = new ApiError({ kind: 'http', status: 404, serverMessage: 'Phone number not found' });
    actor.send({ type: 'form.submit' });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('closed')).toBe(true));
    expect(refreshes()).toBe(1);
  });
});
