import { describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import {
  type CallDialogFilters,
  type CallLineOption,
  callFiltersMachine,
  NO_CALL_DIALOG_FILTERS,
} from '../../src/machines/callFilters.machine.js';
import { describeModel } from './harness.js';

const numbers: CallLineOption[] = [
  { phone: '+14155550100', nickname: 'Front desk' },
  { phone: '+13125550101', nickname: null },
];
const inUrl: CallDialogFilters = { phoneNumber: '', type: 'inbound', status: '' };

describeModel('callFilters', callFiltersMachine, {
  events: {
    'dialog.open': [{ type: 'dialog.open', filters: inUrl }],
    'field.change': [{ type: 'field.change', field: 'status', value: 'failed' }],
    'xstate.done.actor.loadNumbers': [{ type: 'xstate.done.actor.loadNumbers', output: numbers }],
    'xstate.error.actor.loadNumbers': [{ type: 'xstate.error.actor.loadNumbers', error: new Error('Network down') }],
  },
});

function flow(load: () => Promise<CallLineOption[]>) {
  const applied: CallDialogFilters[] = [];
  let loads = 0;
  const actor = createActor(
    callFiltersMachine.provide({
      actors: {
        loadNumbers: fromPromise(async () => {
          loads += 1;
          return load();
        }),
      },
    }),
  );
  actor.on('filters.applied', (e) => applied.push(e.filters));
  actor.start();
  return { actor, applied, loads: () => loads };
}

describe('callFilters behaviour', () => {
  it('opens from the URL filters, loads the numbers on every open, applies the draft only on Apply', async () => {
    const { actor, applied, loads } = flow(async () => numbers);
    actor.send({ type: 'dialog.open', filters: inUrl });
    expect(actor.getSnapshot().hasTag('loading')).toBe(true);
    await vi.waitFor(() => expect(actor.getSnapshot().matches({ open: 'ready' })).toBe(true));
    expect(actor.getSnapshot().context.numbers).toEqual(numbers);
    expect(actor.getSnapshot().context.draft).toEqual(inUrl);
    actor.send({ type: 'field.change', field: 'phoneNumber', value: '+14155550100' });
    actor.send({ type: 'field.change', field: 'status', value: 'busy' });
    actor.send({ type: 'dialog.close' });
    expect(applied).toEqual([]);

    actor.send({ type: 'dialog.open', filters: inUrl });
    expect(actor.getSnapshot().context.draft).toEqual(inUrl);
    actor.send({ type: 'field.change', field: 'status', value: 'busy' });
    actor.send({ type: 'filters.apply' });
    expect(actor.getSnapshot().matches('closed')).toBe(true);
    expect(applied).toEqual([{ phoneNumber: '', type: 'inbound', status: 'busy' }]);
    expect(loads()).toBe(2);

    actor.send({ type: 'dialog.open', filters: applied[0]! });
    actor.send({ type: 'filters.clear' });
    expect(applied[1]).toEqual(NO_CALL_DIALOG_FILTERS);
  });

  it('a failed load shows its message; Retry loads again while type and status stay usable', async () => {
    let fail = true;
    const { actor, applied } = flow(async () => {
      if (fail) throw new Error('Network down');
      return numbers;
    });
    actor.send({ type: 'dialog.open', filters: NO_CALL_DIALOG_FILTERS });
    await vi.waitFor(() => expect(actor.getSnapshot().hasTag('error')).toBe(true));
    expect(actor.getSnapshot().context.error).toBe('Network down');
    actor.send({ type: 'field.change', field: 'type', value: 'outbound' });
    fail = false;
    actor.send({ type: 'numbers.retry' });
    await vi.waitFor(() => expect(actor.getSnapshot().matches({ open: 'ready' })).toBe(true));
    expect(actor.getSnapshot().context.error).toBeUndefined();
    actor.send({ type: 'filters.apply' });
    expect(applied).toEqual([{ phoneNumber: '', type: 'outbound', status: '' }]);
  });
});
