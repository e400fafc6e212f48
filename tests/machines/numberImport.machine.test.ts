import { describe, expect, it, vi } from 'vitest';
import { fromPromise } from 'xstate';
import type { CarrierNumber, NumberImportResponse } from '../../src/api/contract/phone.js';
import { ApiError } from '../../src/api/errors.js';
import { numberImportMachine } from '../../src/machines/numberImport.machine.js';
import { recordingActor } from './agent-effects.js';
import { describeModel } from './harness.js';
import invariants from './invariants/numberImport.js';

describeModel('numberImport', numberImportMachine, {
  implementations: { actions: { notify: () => {}, refreshList: () => {} } },
  events: invariants.explore?.events ?? {},
});

const listed: CarrierNumber[] = [
  { phone_number: '+14155550101', friendly_name: 'Front desk', voice: true, in_parley: false },
  { phone_number: '+14155550102', friendly_name: 'Fax', voice: false, in_parley: false },
  { phone_number: '+14155550103', friendly_name: 'Old line', voice: true, in_parley: true },
  { phone_number: '+14155550104', friendly_name: 'Nurse line', voice: true, in_parley: false },
];

/** the machine with the listing answered by `listed` (the import is recorded by recordingActor) */
const withListing = numberImportMachine.provide({ actors: { listNumbers: fromPromise(async () => listed) } });

describe('numberImport behaviour', () => {
  it('lists, ticks only importable numbers, imports exactly those ticked and toasts', async () => {
    const imported = { success: true, msg: '2 numbers imported', data: { numbers: [{}, {}] } } as unknown as NumberImportResponse;
    const { actor, calls, toasts } = recordingActor(withListing, 'importNumbers', async () => imported);
    actor.send({ type: 'dialog.open', provider: 'twilio' });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('choosing')).toBe(true));
    for (const n of listed) actor.send({ type: 'number.toggle', phone: n.phone_number });
    // the fax cannot take calls and the old line is on the platform: only two are ticked
    expect(actor.getSnapshot().context.selected).toEqual(['+14155550101', '+14155550104']);
    actor.send({ type: 'import.submit' });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('closed')).toBe(true));
    expect(calls).toEqual([{ provider: 'twilio', selected: ['+14155550101', '+14155550104'] }]);
    expect(toasts).toEqual([{ title: 'Numbers imported', description: '2 numbers imported.' }]);
  });

  it('a refused import keeps the ticks and says why; nothing can be submitted without a tick', async () => {
    const { actor, calls } = recordingActor(withListing, 'importNumbers', async () => {
      throw new ApiError({ kind: 'http', status: 502, serverMessage: 'Twilio answered 500.' });
    });
    actor.send({ type: 'dialog.open', provider: 'plivo' });
    await vi.waitFor(() => expect(actor.getSnapshot().matches('choosing')).toBe(true));
    actor.send({ type: 'import.submit' });
    expect(actor.getSnapshot().matches('choosing')).toBe(true);
    actor.send({ type: 'number.toggle', phone: '+14155550104' });
    actor.send({ type: 'import.submit' });
    await vi.waitFor(() => expect(actor.getSnapshot().context.error).toBe('Twilio answered 500.'));
    expect(actor.getSnapshot().matches('choosing')).toBe(true);
    expect(actor.getSnapshot().context.selected).toEqual(['+14155550104']);
    expect(calls).toHaveLength(1);
  });
});
