import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { BATCH_MESSAGES, type BatchResponse } from '../../src/api/contract/batch.js';
import { ApiError } from '../../src/api/errors.js';
import { type BatchActInput, batchDetailMachine, scheduleError } from '../../src/machines/batchDetail.machine.js';
import { describeModel } from './harness.js';

const FUTURE = '2099-03-01T09:30';
const answer = { success: true, msg: BATCH_MESSAGES.scheduled } as BatchResponse;

describeModel('batchDetail', batchDetailMachine, {
  input: { batchId: 'b1' },
  implementations: { actions: { notify: () => {} } },
  events: {
    'action.ask': [
      { type: 'action.ask', action: 'send' },
      { type: 'action.ask', action: 'cancel' },
    ],
    'action.run': [
      { type: 'action.run', action: 'pause' },
      { type: 'action.run', action: 'resume' },
    ],
    'schedule.open': [{ type: 'schedule.open', current: '' }],
    'schedule.change': [
      { type: 'schedule.change', value: FUTURE },
      { type: 'schedule.change', value: '2000-01-01T09:00' },
    ],
    'xstate.done.actor.act': [{ type: 'xstate.done.actor.act', output: answer }],
    'xstate.error.actor.act': [
      { type: 'xstate.error.actor.act', error: new ApiError({ kind: 'http', status: 409, serverMessage: 'No longer' }) },
    ],
  },
});

describe('batchDetail behaviour', () => {
  it('reschedules with an ISO instant, refusing the past first', async () => {
    const inputs: BatchActInput[] = [];
    const actor = createActor(
      batchDetailMachine.provide({
        actors: {
          act: fromPromise<BatchResponse, BatchActInput>(async ({ input }) => {
            inputs.push(input);
            return answer;
          }),
        },
        actions: { notify: () => {} },
      }),
      { input: { batchId: 'b1' } },
    ).start();
    actor.send({ type: 'schedule.open', current: '2001-01-01T08:00' });
    actor.send({ type: 'schedule.submit' });
    expect(actor.getSnapshot().context.error).toBe(BATCH_MESSAGES.scheduledAtPast);
    actor.send({ type: 'schedule.change', value: FUTURE });
    actor.send({ type: 'schedule.submit' });
    await expect.poll(() => actor.getSnapshot().matches('idle')).toBe(true);
    expect(inputs).toEqual([{ batchId: 'b1', action: 'schedule', scheduledAt: new Date(FUTURE).toISOString() }]);
  });

  it("pauses and resumes at once, with the server's message in the toast, and says why it could not", async () => {
    const inputs: BatchActInput[] = [];
    const toasts: unknown[] = [];
    let fail = false;
    const actor = createActor(
      batchDetailMachine.provide({
        actors: {
          act: fromPromise<BatchResponse, BatchActInput>(async ({ input }) => {
            inputs.push(input);
            if (fail)
              throw new ApiError({ kind: 'http', status: 409, serverMessage: 'A sending batch call can no longer be changed' });
            return {
              success: true,
              msg: input.action === 'pause' ? BATCH_MESSAGES.paused : BATCH_MESSAGES.resumed,
            } as BatchResponse;
          }),
        },
        actions: { notify: (_, params) => toasts.push(params) },
      }),
      { input: { batchId: 'b1' } },
    ).start();
    actor.send({ type: 'action.run', action: 'pause' });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    await expect.poll(() => actor.getSnapshot().matches('idle')).toBe(true);
    actor.send({ type: 'action.run', action: 'resume' });
    await expect.poll(() => inputs.length).toBe(2);
    await expect.poll(() => actor.getSnapshot().matches('idle')).toBe(true);
    fail = true;
    actor.send({ type: 'action.run', action: 'resume' });
    await expect.poll(() => toasts.length).toBe(3);
    expect(inputs.map((i) => i.action)).toEqual(['pause', 'resume', 'resume']);
    expect(toasts).toEqual([
      { title: 'Batch call updated', description: BATCH_MESSAGES.paused },
      { title: 'Batch call updated', description: BATCH_MESSAGES.resumed },
      { title: 'Error', description: 'A sending batch call can no longer be changed', variant: 'destructive' },
    ]);
    expect(actor.getSnapshot().context.action).toBeNull();
  });

  it('names what is wrong with a schedule', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(scheduleError('', now)).toBe(BATCH_MESSAGES.scheduledAtRequired);
    expect(scheduleError('soon', now)).toBe(BATCH_MESSAGES.scheduledAtInvalid);
    expect(scheduleError('2026-11-21T10:00', now)).toBe(BATCH_MESSAGES.scheduledAtPast);
    expect(scheduleError('2026-11-23T10:00', now)).toBeNull();
  });
});
