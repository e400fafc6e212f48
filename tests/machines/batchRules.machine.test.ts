import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { BATCH_MESSAGES, type BatchResponse } from '../../src/api/contract/batch.js';
import { ApiError } from '../../src/api/errors.js';
import type { ToastMessage } from '../../src/api/toast.js';
import {
  type BatchRules,
  batchRulesMachine,
  draftOf,
  rulesBody,
  type SaveRulesInput,
} from '../../src/machines/batchRules.machine.js';
import { describeModel } from './harness.js';

const anyTime: BatchRules = { callingWindow: null, timeZone: 'UTC', maxAttempts: 2, retryDelaySeconds: 120 };
const weekdays: BatchRules = {
  callingWindow: { days: [1, 2, 3, 4, 5], start: '09:00', end: '17:00' },
  timeZone: 'America/New_York',
  maxAttempts: 3,
  retryDelaySeconds: 300,
};
const answer = { success: true } as BatchResponse;

describeModel('batchRules', batchRulesMachine, {
  input: { batchId: 'b1' },
  implementations: { actions: { notify: () => {} } },
  events: {
    'rules.open': [
      { type: 'rules.open', rules: anyTime, localZone: 'Europe/Paris' },
      { type: 'rules.open', rules: weekdays, localZone: 'Europe/Paris' },
    ],
    'rules.change': [
      { type: 'rules.change', patch: { windowOn: true } },
      { type: 'rules.change', patch: { windowOn: false } },
      { type: 'rules.change', patch: { days: [5, 1] } },
      { type: 'rules.change', patch: { end: '08:00', maxAttempts: '9' } },
    ],
    'xstate.done.actor.saveRules': [{ type: 'xstate.done.actor.saveRules', output: answer }],
    'xstate.error.actor.saveRules': [
      {
        type: 'xstate.error.actor.saveRules',
        error: new ApiError({ kind: 'http', status: 409, serverMessage: 'A completed batch call can no longer be changed' }),
      },
      { type: 'xstate.error.actor.saveRules', error: new ApiError({ kind: 'network' }) },
    ],
  },
});

function recording(fail?: () => Error | undefined) {
  const inputs: SaveRulesInput[] = [];
  const toasts: ToastMessage[] = [];
  const actor = createActor(
    batchRulesMachine.provide({
      actors: {
        saveRules: fromPromise<BatchResponse, SaveRulesInput>(async ({ input }) => {
          inputs.push(input);
          const error = fail?.();
          if (error) throw error;
          return answer;
        }),
      },
      actions: { notify: (_, t) => void toasts.push(t) },
    }),
    { input: { batchId: 'b1' } },
  ).start();
  return { actor, inputs, toasts };
}

describe('batchRules behaviour', () => {
  it("proposes the user's zone for a first window, keeps a batch's own zone", () => {
    expect(draftOf(anyTime, 'Europe/Paris').timeZone).toBe('Europe/Paris');
    expect(draftOf({ ...anyTime, timeZone: 'Asia/Tokyo' }, 'Europe/Paris').timeZone).toBe('Asia/Tokyo');
    expect(draftOf(weekdays, 'Europe/Paris')).toEqual({
      windowOn: true,
      days: [1, 2, 3, 4, 5],
      start: '09:00',
      end: '17:00',
      timeZone: 'America/New_York',
      maxAttempts: '3',
      retryDelaySeconds: '300',
    });
  });

  it("checks the draft with the contract's messages, per field", () => {
    const d = draftOf(anyTime, 'Europe/Paris');
    expect(rulesBody(d)).toEqual({ body: { callingWindow: null, maxAttempts: 2, retryDelaySeconds: 120 } });
    expect(rulesBody({ ...d, windowOn: true })).toEqual({ errors: { days: BATCH_MESSAGES.callingWindowDays } });
    expect(
      rulesBody({
        ...d,
        windowOn: true,
        days: [1],
        start: '17:00',
        end: '09:00',
        timeZone: 'Nowhere/Atlantis',
        maxAttempts: '2.5',
        retryDelaySeconds: '',
      }),
    ).toEqual({
      errors: {
        end: BATCH_MESSAGES.callingWindowOrder,
        timeZone: BATCH_MESSAGES.timeZone,
        maxAttempts: BATCH_MESSAGES.maxAttempts,
        retryDelaySeconds: BATCH_MESSAGES.retryDelay,
      },
    });
    expect(rulesBody({ ...d, windowOn: true, days: [1], start: '9:00', end: '24:00' })).toEqual({
      errors: { start: BATCH_MESSAGES.callingWindowTime },
    });
  });

  it('saves a weekday window with the zone, toasts, and closes', async () => {
    const { actor, inputs, toasts } = recording();
    actor.send({ type: 'rules.open', rules: anyTime, localZone: 'Europe/Paris' });
    actor.send({ type: 'rules.change', patch: { windowOn: true } });
    actor.send({ type: 'rules.submit' });
    expect(actor.getSnapshot().context.errors).toEqual({ days: BATCH_MESSAGES.callingWindowDays });
    expect(inputs).toEqual([]);
    actor.send({ type: 'rules.change', patch: { days: [5, 4, 3, 2, 1], timeZone: 'America/New_York', maxAttempts: '3' } });
    expect(actor.getSnapshot().context.errors).toEqual({});
    actor.send({ type: 'rules.submit' });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    await expect.poll(() => actor.getSnapshot().matches('closed')).toBe(true);
    expect(inputs).toEqual([
      {
        batchId: 'b1',
        body: {
          callingWindow: { days: [1, 2, 3, 4, 5], start: '09:00', end: '17:00' },
          timeZone: 'America/New_York',
          maxAttempts: 3,
          retryDelaySeconds: 120,
        },
      },
    ]);
    expect(toasts).toEqual([{ title: 'Dialling rules saved', description: 'The batch call dials by its new rules.' }]);
  });

  it("a failed save keeps the input and shows the server's message; the next change clears it", async () => {
    const { actor, inputs, toasts } = recording(
      () => new ApiError({ kind: 'http', status: 409, serverMessage: 'A canceled batch call can no longer be changed' }),
    );
    actor.send({ type: 'rules.open', rules: weekdays, localZone: 'Europe/Paris' });
    actor.send({ type: 'rules.change', patch: { maxAttempts: '5' } });
    actor.send({ type: 'rules.submit' });
    await expect.poll(() => actor.getSnapshot().matches('editing')).toBe(true);
    expect(actor.getSnapshot().context.failure).toBe('A canceled batch call can no longer be changed');
    expect(actor.getSnapshot().context.draft.maxAttempts).toBe('5');
    expect(inputs).toHaveLength(1);
    expect(toasts).toEqual([]);
    actor.send({ type: 'rules.change', patch: { maxAttempts: '4' } });
    expect(actor.getSnapshot().context.failure).toBeNull();
    actor.send({ type: 'rules.close' });
    expect(actor.getSnapshot().matches('closed')).toBe(true);
  });
});
