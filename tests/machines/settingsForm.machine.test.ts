import { describe, expect, it } from 'vitest';
import { type AnyMachineSnapshot, createActor, fromPromise } from 'xstate';
import { BILLING_MESSAGES, BillingContactSchema, BillingLimitsFormSchema } from '../../src/api/contract/billing.js';
import { ApiError } from '../../src/api/errors.js';
import {
  type FormValues,
  type SettingsFormContext,
  type SettingsFormInput,
  type SettingsLoaded,
  type SettingsSaved,
  settingsFormMachine,
} from '../../src/machines/settingsForm.machine.js';
import { describeModel } from './harness.js';

const CONTACT: SettingsFormInput = { dialog: true, schema: BillingContactSchema, savedTitle: 'Billing information saved' };
const LIMITS: SettingsFormInput = { dialog: false, schema: BillingLimitsFormSchema, savedTitle: 'Limits saved' };
const contactValues = { name: 'Sunrise Care', email: 'billing@sunrise.example', address: '', taxId: '' };
const limitsValues = { concurrencyLimit: '10', monthlySpendLimit: '500.00' };

describeModel('settingsForm', settingsFormMachine, {
  inputs: [CONTACT, LIMITS],
  implementations: { actions: { notify: () => {} } },
  events: {
    'field.change': (s) =>
      (s.context as SettingsFormContext).dialog
        ? [
            { type: 'field.change', field: 'email', value: 'not an email' },
            { type: 'field.change', field: 'email', value: 'ada@example.com' },
          ]
        : [
            { type: 'field.change', field: 'concurrencyLimit', value: '0' },
            { type: 'field.change', field: 'concurrencyLimit', value: '25' },
          ],
    'xstate.done.actor.load': (s) => [
      {
        type: 'xstate.done.actor.load',
        output: (s.context as SettingsFormContext).dialog
          ? { values: contactValues }
          : { values: limitsValues, note: 'Spent this month so far: $0.63' },
      },
    ],
    'xstate.done.actor.save': (s) => [
      { type: 'xstate.done.actor.save', output: { values: (s.context as SettingsFormContext).values, msg: 'Saved.' } },
    ],
    'xstate.error.actor.save': [
      {
        type: 'xstate.error.actor.save',
        error: new ApiError({
          kind: 'http',
          status: 400,
          serverMessage: 'Invalid email',
          fieldErrors: { email: 'Invalid email' },
        }),
      },
    ],
  },
  serializeState: (s: AnyMachineSnapshot) => {
    const c = s.context as SettingsFormContext;
    return JSON.stringify([s.value, c.dialog, c.values, c.initial, c.errors, c.failure, c.note]);
  },
});

function form(input: SettingsFormInput, load: () => Promise<SettingsLoaded>, save: (body: unknown) => Promise<SettingsSaved>) {
  const toasts: unknown[] = [];
  const bodies: unknown[] = [];
  const actor = createActor(
    settingsFormMachine.provide({
      actors: {
        load: fromPromise(load),
        save: fromPromise<SettingsSaved, unknown>(({ input: body }) => {
          bodies.push(body);
          return save(body);
        }),
      },
      actions: { notify: (_, t) => toasts.push(t) },
    }),
    { input },
  ).start();
  const settled = () =>
    expect.poll(() => actor.getSnapshot().hasTag('loading') || actor.getSnapshot().hasTag('busy')).toBe(false);
  return { actor, toasts, bodies, settled };
}

describe('settingsForm behaviour', () => {
  it('the limits form turns text into the contract body and shows the contract’s messages', async () => {
    const { actor, bodies, toasts, settled } = form(
      LIMITS,
      async () => ({ values: limitsValues }),
      async (body) => ({ values: { concurrencyLimit: '25', monthlySpendLimit: '99.50' }, msg: 'Limits updated.', body }),
    );
    await settled();
    actor.send({ type: 'field.change', field: 'concurrencyLimit', value: '101' });
    actor.send({ type: 'field.change', field: 'monthlySpendLimit', value: '12.345' });
    actor.send({ type: 'form.submit' });
    expect(actor.getSnapshot().context.errors).toEqual({
      concurrencyLimit: BILLING_MESSAGES.concurrencyLimit,
      monthlySpendLimit: BILLING_MESSAGES.monthlySpendLimitFormat,
    });
    actor.send({ type: 'field.change', field: 'concurrencyLimit', value: ' 25 ' });
    actor.send({ type: 'field.change', field: 'monthlySpendLimit', value: '$99.5' });
    actor.send({ type: 'form.submit' });
    await settled();
    expect(bodies).toEqual([{ concurrencyLimit: 25, monthlySpendLimit: 99.5 }]);
    expect(actor.getSnapshot().context.values).toEqual({ concurrencyLimit: '25', monthlySpendLimit: '99.50' });
    expect(toasts).toEqual([{ title: 'Limits saved', description: 'Limits updated.' }]);
  });

  it('a failed save keeps the dialog open with what was typed and the server’s field errors', async () => {
    const { actor, toasts, settled } = form(
      CONTACT,
      async () => ({ values: contactValues }),
      async () => {
        throw new ApiError({
          kind: 'http',
          status: 400,
          serverMessage: 'Invalid email',
          fieldErrors: { email: 'Invalid email' },
        });
      },
    );
    expect(actor.getSnapshot().hasTag('open')).toBe(false);
    actor.send({ type: 'dialog.open' });
    await settled();
    const typed: FormValues = { ...contactValues, taxId: 'US-123' };
    actor.send({ type: 'field.change', field: 'taxId', value: 'US-123' });
    actor.send({ type: 'form.submit' });
    await settled();
    expect(actor.getSnapshot().hasTag('open')).toBe(true);
    expect(actor.getSnapshot().context.values).toEqual(typed);
    expect(actor.getSnapshot().context.errors).toEqual({ email: 'Invalid email' });
    expect(toasts).toEqual([{ title: 'Error', description: 'Invalid email', variant: 'destructive' }]);
    actor.send({ type: 'form.reset' });
    expect(actor.getSnapshot().context.values).toEqual(contactValues);
  });
});
