import { describe, expect, it } from 'vitest';
import { type AnyMachineSnapshot, createActor, fromCallback, fromPromise } from 'xstate';
import { BATCH_CSV_MAX_BYTES, BATCH_MESSAGES, type Batch } from '../../src/api/contract/batch.js';
import { ApiError } from '../../src/api/errors.js';
import {
  BATCH_FORM_MESSAGES,
  type BatchCallContext,
  type BatchCallEvent,
  type BatchOptions,
  batchCallMachine,
  type FromNumber,
  type PersistInput,
  sendModeOf,
} from '../../src/machines/batchCall.machine.js';
import type { RecipientsSummary } from '../../src/recipients/parser.js';
import { RecipientsTable } from '../../src/recipients/table.js';
import { describeModel, type ModelEvent } from './harness.js';

const file = (name: string, size: number, type = 'text/csv') => ({ name, size, type }) as File;
const GOOD = file('recipients.csv', 1000);
const BIG = file('huge.csv', BATCH_CSV_MAX_BYTES + 1);
const FUTURE = '2099-01-01T09:00';
const NUMBER: FromNumber = { _id: 'n1', phone: '+14155550101', provider: 'twilio' };
const summary = (valid: number): RecipientsSummary => ({
  columns: ['phone_number'],
  phoneIndex: 0,
  total: valid + 1,
  valid,
  invalid: 1,
  duplicates: 0,
  reasons: [{ reason: BATCH_MESSAGES.invalidPhone, count: 1 }],
  errors: [{ row: valid + 2, reason: BATCH_MESSAGES.invalidPhone }],
});
const table = new RecipientsTable(['phone_number'], 0);
const batch = (status: Batch['status']): Batch => ({
  _id: 'b1',
  name: 'Flu shots',
  status,
  fromNumber: NUMBER.phone,
  sendMode: status === 'scheduled' ? 'scheduled' : 'now',
  scheduledAt: status === 'scheduled' ? '2099-01-01T09:00:00.000Z' : null,
  recipients: 3,
  invalid: 1,
  duplicates: 0,
  sent: 0,
  createdAt: '2026-11-22T10:00:00.000Z',
  updatedAt: '2026-11-22T10:00:00.000Z',
  callingWindow: null,
  timeZone: 'UTC',
  maxAttempts: 2,
  retryDelaySeconds: 120,
  pausedReason: null,
  allFailed: false,
});

const ctx = (s: AnyMachineSnapshot) => s.context as BatchCallContext;

/**
 * A small event set that still enables every declared transition, ordered so the regions do not
 * interleave needlessly: the options settle first, a file being read settles before anything else, a
 * save in flight only settles, and a finished form takes no more events.
 */
function events(s: AnyMachineSnapshot): ModelEvent[] {
  const c = ctx(s);
  if (!s.matches({ options: 'ready' })) {
    return [
      { type: 'options.retry' },
      {
        type: 'xstate.done.actor.loadOptions',
        output: { numbers: [NUMBER], numbersTotal: 1, concurrencyLimit: 5 } satisfies BatchOptions,
      },
      { type: 'xstate.error.actor.loadOptions', error: new ApiError({ kind: 'network' }) },
    ];
  }
  if (s.hasTag('done')) return [];
  if (s.matches({ form: 'saving' }) || s.matches({ form: 'sending' })) {
    return [
      { type: 'xstate.done.actor.saveDraft', output: batch('draft') },
      { type: 'xstate.error.actor.saveDraft', error: new ApiError({ kind: 'http', status: 422, serverMessage: 'Nope' }) },
      { type: 'xstate.done.actor.sendBatch', output: batch('scheduled') },
      { type: 'xstate.done.actor.sendBatch', output: batch('sending') },
      { type: 'xstate.error.actor.sendBatch', error: new ApiError({ kind: 'network' }) },
    ];
  }
  const submit: ModelEvent[] = [{ type: 'form.saveDraft' }, { type: 'form.send' }];
  // the name first: submitting without it walks the error branch, everything else follows it
  if (c.values.name === '') return [...submit, { type: 'field.change', field: 'name', value: 'Flu shots' }];
  if (s.matches({ recipients: 'parsing' })) {
    return [
      ...submit,
      { type: 'recipients.pick', file: GOOD },
      { type: 'recipients.pick', file: BIG },
      { type: 'recipients.progress', loaded: 500, size: 1000 },
      { type: 'recipients.parsed', summary: summary(3), table },
      { type: 'recipients.failed', reason: BATCH_MESSAGES.unreadable(2) },
    ];
  }
  const out: ModelEvent[] = [{ type: 'timing.now' }, { type: 'timing.schedule' }];
  if (!s.matches({ recipients: 'empty' })) out.push({ type: 'recipients.clear' });
  if (sendModeOf(s) === 'scheduled' && c.values.scheduledAt === '') {
    // a time first when scheduling (sending without one walks the scheduled error branch)
    return [{ type: 'field.change', field: 'scheduledAt', value: FUTURE }, { type: 'form.send' }];
  }
  if (s.matches({ recipients: 'empty' })) {
    out.push({ type: 'recipients.pick', file: GOOD }, { type: 'recipients.pick', file: BIG });
  }
  // submits from a few telling forms only: no recipients yet (now), and ready in either timing
  const telling = s.matches({ recipients: 'ready' }) || (s.matches({ recipients: 'empty' }) && sendModeOf(s) === 'now');
  return telling ? [...submit, ...out] : out;
}

/** What identifies a state for the model: the state value and the context facts its guards read. */
const serializeState = (s: AnyMachineSnapshot) => {
  const c = ctx(s);
  return JSON.stringify([
    s.value,
    c.values.name !== '',
    c.values.scheduledAt !== '',
    c.values.fromNumber !== '',
    c.summary?.valid ?? null,
  ]);
};

/** Every event type, each answered from `events` (a type left out would get the harness's bare default). */
const EVENT_TYPES = [
  ...['field.change', 'timing.now', 'timing.schedule', 'options.retry', 'form.saveDraft', 'form.send'],
  ...['recipients.pick', 'recipients.clear', 'recipients.progress', 'recipients.parsed', 'recipients.failed'],
  ...['loadOptions', 'saveDraft', 'sendBatch'].flatMap((id) => [`xstate.done.actor.${id}`, `xstate.error.actor.${id}`]),
];

describeModel('batchCall', batchCallMachine, {
  input: { timeZone: 'Europe/Paris', idempotencyKey: 'k0' },
  implementations: { actions: { notify: () => {} } },
  events: Object.fromEntries(
    EVENT_TYPES.map((type) => [type, (s: AnyMachineSnapshot) => events(s).filter((e) => e.type === type)]),
  ),
  serializeState,
});

function form(persist: (input: PersistInput) => Promise<Batch>) {
  const calls: PersistInput[] = [];
  const toasts: unknown[] = [];
  const actor = createActor(
    batchCallMachine.provide({
      actors: {
        loadOptions: fromPromise<BatchOptions>(async () => ({ numbers: [NUMBER], numbersTotal: 1, concurrencyLimit: 5 })),
        parseRecipients: fromCallback<BatchCallEvent, { file: File }>(({ sendBack }) => {
          sendBack({ type: 'recipients.progress', loaded: 1000, size: 1000 });
          sendBack({ type: 'recipients.parsed', summary: summary(3), table });
        }),
        persistBatch: fromPromise<Batch, PersistInput>(({ input }) => {
          calls.push(input);
          return persist(input);
        }),
      },
      actions: { notify: (_, t) => toasts.push(t) },
    }),
    { input: { timeZone: 'UTC', idempotencyKey: 'first-key' } },
  ).start();
  const idle = () => expect.poll(() => actor.getSnapshot().hasTag('busy') || actor.getSnapshot().hasTag('loading')).toBe(false);
  return { actor, calls, toasts, idle };
}

describe('batchCall behaviour', () => {
  it('picks the only assigned number, saves a draft with its recipients and an Idempotency-Key', async () => {
    const { actor, calls, idle } = form(async () => batch('draft'));
    await idle();
    expect(actor.getSnapshot().context.values.fromNumber).toBe(NUMBER.phone);
    expect(actor.getSnapshot().context.concurrencyLimit).toBe(5);
    actor.send({ type: 'field.change', field: 'name', value: 'Flu shots' });
    actor.send({ type: 'recipients.pick', file: GOOD });
    await idle();
    expect(actor.getSnapshot().matches({ recipients: 'ready' })).toBe(true);
    actor.send({ type: 'form.saveDraft' });
    await expect.poll(() => actor.getSnapshot().hasTag('done')).toBe(true);
    expect(actor.getSnapshot().matches({ form: 'saved' })).toBe(true);
    expect(calls).toEqual([
      {
        idempotencyKey: expect.any(String),
        body: { name: 'Flu shots', fromNumber: NUMBER.phone, sendMode: 'now', status: 'draft' },
        file: GOOD,
        next: 'draft',
      },
    ]);
    // the key was renewed by the edits (a new body), never reused for another body
    expect(calls[0]?.idempotencyKey).not.toBe('first-key');
  });

  it('a failed save keeps the form and retries with the same key; an edit after it takes a new key', async () => {
    let fail = true;
    const { actor, calls, toasts, idle } = form(async () => {
      if (fail) throw new ApiError({ kind: 'network' });
      return batch('draft');
    });
    await idle();
    actor.send({ type: 'field.change', field: 'name', value: 'Flu shots' });
    actor.send({ type: 'form.saveDraft' });
    await idle();
    const after = actor.getSnapshot();
    expect(after.matches({ form: 'editing' })).toBe(true);
    expect(after.context.values.name).toBe('Flu shots');
    expect(after.context.failure).toBe(new ApiError({ kind: 'network' }).message);
    expect(toasts).toHaveLength(1);
    actor.send({ type: 'form.saveDraft' });
    await idle();
    expect(calls[1]?.idempotencyKey).toBe(calls[0]?.idempotencyKey);
    actor.send({ type: 'field.change', field: 'name', value: 'Flu shots 2' });
    fail = false;
    actor.send({ type: 'form.saveDraft' });
    await expect.poll(() => actor.getSnapshot().hasTag('done')).toBe(true);
    expect(calls[2]?.idempotencyKey).not.toBe(calls[0]?.idempotencyKey);
    expect(calls[2]?.file).toBeNull();
  });

  it('sending needs recipients and a future time; it schedules in the user’s time zone', async () => {
    const { actor, calls, idle } = form(async (input) => batch(input.next === 'scheduled' ? 'scheduled' : 'sending'));
    await idle();
    actor.send({ type: 'form.send' });
    expect(actor.getSnapshot().context.errors).toEqual({
      name: BATCH_MESSAGES.nameRequired,
      recipients: BATCH_MESSAGES.noRecipients,
    });
    actor.send({ type: 'field.change', field: 'name', value: 'Flu shots' });
    actor.send({ type: 'timing.schedule' });
    actor.send({ type: 'field.change', field: 'scheduledAt', value: '2001-01-01T09:00' });
    actor.send({ type: 'recipients.pick', file: GOOD });
    await idle();
    // picking the file leaves the rest of the form alone: still Schedule, the numbers not asked for again
    expect(actor.getSnapshot().matches({ timing: 'scheduled', options: 'ready' })).toBe(true);
    actor.send({ type: 'form.send' });
    expect(actor.getSnapshot().context.errors).toEqual({ scheduledAt: BATCH_MESSAGES.scheduledAtPast });
    expect(calls).toEqual([]);
    actor.send({ type: 'field.change', field: 'scheduledAt', value: FUTURE });
    actor.send({ type: 'form.send' });
    await expect.poll(() => actor.getSnapshot().matches({ form: 'scheduled' })).toBe(true);
    expect(calls[0]).toMatchObject({
      body: { sendMode: 'scheduled', status: 'draft', scheduledAt: '2099-01-01T09:00:00.000Z' },
      next: 'scheduled',
    });
  });

  it('refuses a file over 50 MB or not CSV without reading it, and waits for a file being read', async () => {
    const { actor, idle } = form(async () => batch('draft'));
    await idle();
    actor.send({ type: 'recipients.pick', file: BIG });
    expect(actor.getSnapshot().matches({ recipients: 'rejected' })).toBe(true);
    expect(actor.getSnapshot().context.fileError).toBe(BATCH_MESSAGES.tooLarge);
    actor.send({ type: 'recipients.pick', file: file('list.xlsx', 10, 'application/vnd.ms-excel') });
    expect(actor.getSnapshot().context.fileError).toBe(BATCH_MESSAGES.notCsv);

    const slow = createActor(
      batchCallMachine.provide({
        actors: {
          loadOptions: fromPromise<BatchOptions>(async () => ({ numbers: [NUMBER], numbersTotal: 1, concurrencyLimit: 5 })),
          parseRecipients: fromCallback(() => () => {}),
        },
        actions: { notify: () => {} },
      }),
      { input: {} },
    ).start();
    slow.send({ type: 'field.change', field: 'name', value: 'x' });
    slow.send({ type: 'recipients.pick', file: GOOD });
    slow.send({ type: 'form.saveDraft' });
    expect(slow.getSnapshot().context.errors.recipients).toBe(BATCH_FORM_MESSAGES.stillReading);
    expect(slow.getSnapshot().matches({ form: 'editing' })).toBe(true);
    // editing is locked while a save runs: nothing changes the form under it
    slow.stop();
  });
});
