/**
 * A transition of one region of a parallel state must leave the other regions alone. `reenter: true`
 * on a region's own transition to its child re-entered the whole parallel parent in XState v5 (the
 * transition's domain is the parent): picking a recipients file reset the batch form's timing and
 * reloaded its options, typing in the agent search cancelled a save in flight. The walks' invariants
 * found both; these tests pin the fixes with real actors.
 */
import { describe, expect, it, vi } from 'vitest';
import { createActor, fromCallback, fromPromise } from 'xstate';
import type { PhoneNumberResponse } from '../../src/api/contract/phone.js';
import { type AgentOption, type AssignSaveInput, assignAgentMachine } from '../../src/machines/assignAgent.machine.js';
import { type BatchCallEvent, type BatchOptions, batchCallMachine } from '../../src/machines/batchCall.machine.js';

describe('one region, one region only', () => {
  it('batchCall: picking another file while one is read restarts the reading with it, timing and options stay', async () => {
    const reads: string[] = [];
    let loads = 0;
    const actor = createActor(
      batchCallMachine.provide({
        actions: { notify: () => {} },
        actors: {
          loadOptions: fromPromise<BatchOptions>(async () => {
            loads += 1;
            return { numbers: [], numbersTotal: 0, concurrencyLimit: 5 };
          }),
          parseRecipients: fromCallback<BatchCallEvent, { file: File }>(({ input }) => {
            reads.push(input.file.name);
          }),
        },
      }),
      { input: { timeZone: 'UTC', idempotencyKey: 'k' } },
    ).start();
    await vi.waitFor(() => expect(actor.getSnapshot().matches({ options: 'ready' })).toBe(true));
    actor.send({ type: 'timing.schedule' });
    const csv = (name: string) => ({ name, size: 10, type: 'text/csv' }) as File;
    actor.send({ type: 'recipients.pick', file: csv('a.csv') });
    actor.send({ type: 'recipients.pick', file: csv('b.csv') });
    const snap = actor.getSnapshot();
    expect(reads).toEqual(['a.csv', 'b.csv']);
    expect(snap.context.file?.name).toBe('b.csv');
    expect(snap.matches({ timing: 'scheduled', options: 'ready', recipients: 'parsing' })).toBe(true);
    expect(snap.context.sendMode).toBe('scheduled');
    expect(loads).toBe(1);
    actor.stop();
  });

  it('assignAgent: typing in the agent search while saving keeps the save', () => {
    const saves: AssignSaveInput[] = [];
    const actor = createActor(
      assignAgentMachine.provide({
        actions: { notify: () => {}, refreshList: () => {} },
        actors: {
          loadAgents: fromPromise<AgentOption[], { search: string }>(() => new Promise(() => {})),
          saveAssignment: fromPromise<PhoneNumberResponse, AssignSaveInput>(({ input }) => {
            saves.push(input);
            return new Promise(() => {});
          }),
        },
      }),
    ).start();
    actor.send({
      type: 'dialog.open',
      number: {
        _id: 'n1',
        phone: '+14155550100',
        inbound_agent_id: 'a1',
        outbound_agent_id: null,
        inbound_agent_name: 'Ava',
        outbound_agent_name: null,
      },
    });
    actor.send({ type: 'form.submit' });
    actor.send({ type: 'agent.search', search: 'b' });
    const snap = actor.getSnapshot();
    expect(snap.matches({ open: { form: 'saving', agents: 'debouncing' } })).toBe(true);
    expect(snap.children.saveAssignment?.getSnapshot().status).toBe('active');
    expect(saves).toHaveLength(1);
    actor.stop();
  });
});
