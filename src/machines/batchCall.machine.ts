import * as v from 'valibot';
import { type AnyMachineSnapshot, and, assign, fromCallback, fromPromise, setup, stateIn } from 'xstate';
import { batches } from '../api/batches';
import { billing } from '../api/billing';
import {
  BATCH_MESSAGES,
  type Batch,
  type CreateBatchBody,
  CreateBatchBodySchema,
  checkRecipientsFile,
  type SendMode,
} from '../api/contract/batch';
import { CONCURRENCY_LIMIT_DEFAULT } from '../api/contract/billing';
import { newIdempotencyKey } from '../api/contract/idempotency';
import { PHONE_LIST_LIMIT_MAX, type PhoneNumber } from '../api/contract/phone';
import { isApiError } from '../api/errors';
import { phone } from '../api/phone';
import { parseRecipientsFile, type RecipientsSummary, type RecipientsTable } from '../recipients';
import { notify } from './notify';

export type BatchField = 'name' | 'fromNumber' | 'scheduledAt';
/** What the From select shows of an assigned number. */
export type FromNumber = Pick<PhoneNumber, '_id' | 'phone' | 'provider'>;
export type BatchFormErrors = Partial<Record<BatchField | 'recipients', string>>;
export type BatchIntent = 'draft' | 'send';

export const BATCH_FORM_MESSAGES = {
  stillReading: 'Please wait until the recipients file has been read.',
  optionsFailed: 'Could not load your phone numbers and limits.',
  saveFailed: 'The batch call could not be saved. Please try again.',
} as const;

export interface BatchCallContext {
  values: Record<BatchField, string>;
  errors: BatchFormErrors;
  /** the company's assigned numbers (the From options) and its concurrency limit */
  numbers: FromNumber[];
  /** how many numbers the company has (the select shows the first PHONE_LIST_LIMIT_MAX) */
  numbersTotal: number;
  concurrencyLimit: number;
  /** the picked file (read in a worker, uploaded on save) */
  file: File | null;
  /** why the picked file was refused (too large, not CSV, unreadable) */
  fileError: string | null;
  progress: { loaded: number; size: number };
  summary: RecipientsSummary | null;
  table: RecipientsTable | null;
  intent: BatchIntent;
  /** one key per distinct create body: a retry of the same form replays instead of creating twice */
  idempotencyKey: string;
  /** the message of the last failed save (the form keeps everything) */
  failure: string | null;
  saved: Batch | null;
  /** the user's IANA time zone, shown next to the schedule */
  timeZone: string;
}

export interface BatchCallInput {
  timeZone?: string;
  idempotencyKey?: string;
}

export type BatchCallEvent =
  | { type: 'field.change'; field: BatchField; value: string }
  | { type: 'timing.now' }
  | { type: 'timing.schedule' }
  | { type: 'recipients.pick'; file: File }
  | { type: 'recipients.clear' }
  | { type: 'recipients.progress'; loaded: number; size: number }
  | { type: 'recipients.parsed'; summary: RecipientsSummary; table: RecipientsTable }
  | { type: 'recipients.failed'; reason: string }
  | { type: 'options.retry' }
  | { type: 'form.saveDraft' }
  | { type: 'form.send' };

export interface BatchOptions {
  numbers: FromNumber[];
  numbersTotal: number;
  concurrencyLimit: number;
}

export interface PersistInput {
  idempotencyKey: string;
  body: CreateBatchBody;
  /** uploaded after the create when given */
  file: File | null;
  /** what follows the upload: nothing (a draft), send now, or schedule at `body.scheduledAt` */
  next: 'draft' | SendMode;
}

/** 'yyyy-MM-ddTHH:mm' in the user's time zone (a datetime-local value) -> ISO instant, or null. */
export function localToIso(local: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(local)) return null;
  const t = new Date(local).getTime();
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/** The create body the form stands for: always a draft first (recipients follow, then send/schedule). */
export function createBody(values: BatchCallContext['values'], sendMode: SendMode): CreateBatchBody {
  const at = sendMode === 'scheduled' ? localToIso(values.scheduledAt) : null;
  return {
    name: values.name,
    fromNumber: values.fromNumber,
    sendMode,
    status: 'draft',
    ...(at ? { scheduledAt: at } : {}),
  };
}

/**
 * What stops the form (none = it may go on). The body rules are the contract's; on top: sending needs
 * recipients (valid rows) and a schedule in the future; a draft only needs its name and From number.
 */
export function formErrors(
  context: Pick<BatchCallContext, 'values' | 'summary'>,
  intent: BatchIntent,
  sendMode: SendMode,
  now: number,
): BatchFormErrors {
  const errors: BatchFormErrors = {};
  const parsed = v.safeParse(CreateBatchBodySchema, createBody(context.values, sendMode));
  if (!parsed.success) {
    const nested = v.flatten<typeof CreateBatchBodySchema>(parsed.issues).nested ?? {};
    if (nested.name?.[0]) errors.name = nested.name[0];
    if (nested.fromNumber?.[0]) errors.fromNumber = nested.fromNumber[0];
  }
  if (sendMode === 'scheduled') {
    const raw = context.values.scheduledAt.trim();
    const at = localToIso(raw);
    if (raw !== '' && !at) errors.scheduledAt = BATCH_MESSAGES.scheduledAtInvalid;
    else if (intent === 'send' && !at) errors.scheduledAt = BATCH_MESSAGES.scheduledAtRequired;
    else if (intent === 'send' && at && Date.parse(at) <= now) errors.scheduledAt = BATCH_MESSAGES.scheduledAtPast;
  }
  if (intent === 'send' && !(context.summary && context.summary.valid > 0)) errors.recipients = BATCH_MESSAGES.noRecipients;
  return errors;
}

/** 'Send Now' or 'Schedule': read from the `timing` region, never kept beside it. */
export const sendModeOf = (snapshot: Pick<AnyMachineSnapshot, 'matches'>): SendMode =>
  snapshot.matches({ timing: 'scheduled' }) ? 'scheduled' : 'now';

const failureMessage = (error: unknown) =>
  (isApiError(error) && (error.serverMessage ?? error.message)) || BATCH_FORM_MESSAGES.saveFailed;

const errorToast = (error: unknown) => ({ title: 'Error', description: failureMessage(error), variant: 'destructive' as const });

/** A failed save or send: back to editing, everything kept, the reason shown and toasted. */
const keepTheForm = {
  description: 'The save or send failed: back to editing with everything kept; the reason is shown and toasted.',
  target: '#batchCall.form.editing',
  actions: [
    { type: 'keepForm', params: ({ event }: { event: { error: unknown } }) => ({ error: event.error }) },
    { type: 'notify', params: ({ event }: { event: { error: unknown } }) => errorToast(event.error) },
  ],
} as const;

/** A finished save or send: keep the batch, say so. */
const finish = (target: 'saved' | 'scheduled' | 'sent', title: string, description: string, says: string) =>
  ({
    target: `#batchCall.form.${target}`,
    description: says,
    actions: [
      { type: 'keep', params: ({ event }: { event: { output: Batch } }) => ({ batch: event.output }) },
      { type: 'notify', params: { title, description } },
    ],
  }) as const;

/**
 * One run of `persistBatch` (the children of `saving` and `sending`): which child runs says which body is
 * sent. The `timing` region picks it on the way in (`stateIn`), so the mode is never copied into context.
 */
const persisting = (id: 'saveDraft' | 'sendBatch', sendMode: SendMode, intent: BatchIntent) =>
  ({
    description:
      sendMode === 'now'
        ? 'The body has no schedule (Send Now).'
        : intent === 'draft'
          ? 'The body keeps the chosen time (Schedule).'
          : 'The body carries the chosen time; the batch is scheduled after the upload.',
    invoke: {
      id,
      src: 'persistBatch',
      input: ({ context }: { context: BatchCallContext }): PersistInput => ({
        idempotencyKey: context.idempotencyKey,
        body: createBody(context.values, sendMode),
        // a draft uploads the recipients only once they were read; a send always has them
        file: intent === 'draft' && !context.summary ? null : context.file,
        next: intent === 'draft' ? 'draft' : sendMode,
      }),
      onDone:
        intent === 'draft'
          ? finish('saved', 'Batch call saved', 'It waits in the list as a draft.', 'The draft is saved.')
          : [
              {
                guard: {
                  type: 'isScheduled' as const,
                  params: ({ event }: { event: { output: Batch } }) => ({ batch: event.output }),
                },
                ...finish('scheduled', 'Batch call scheduled', BATCH_MESSAGES.scheduled, 'Scheduled for the chosen time.'),
              },
              finish('sent', 'Batch call sent', BATCH_MESSAGES.sent, 'Sent now: the calls start.'),
            ],
      onError: keepTheForm,
    },
  }) as const;

/**
 * The 'Create a batch call' form. Four regions run side by side:
 * - `options`: the From numbers (GET /phone/assigned) and the concurrency limit of the estimate;
 * - `timing`: the 'Send Now' / 'Schedule' radio;
 * - `recipients`: the CSV, checked (size, type) then read in a Web Worker with progress;
 * - `form`: editing -> validating -> saving (a draft) -> saved, or -> sending -> scheduled / sent.
 * Saving and sending create the batch (POST /batch-call with an Idempotency-Key), upload the file, then
 * send or schedule it. Every failure returns to editing with everything the user entered.
 */
export const batchCallMachine = setup({
  types: {
    context: {} as BatchCallContext,
    events: {} as BatchCallEvent,
    input: {} as BatchCallInput,
    tags: {} as 'loading' | 'busy' | 'done',
  },
  actors: {
    loadOptions: fromPromise<BatchOptions>(async ({ signal }) => {
      const [assigned, limits] = await Promise.all([
        phone.assigned({ page: 0, limit: PHONE_LIST_LIMIT_MAX }, { notify: false, signal }),
        billing.limits({ notify: false, signal }),
      ]);
      return {
        numbers: assigned.data.numbers.map((n) => ({ _id: n._id, phone: n.phone, provider: n.provider })),
        numbersTotal: assigned.data.total,
        concurrencyLimit: limits.limits.concurrencyLimit,
      };
    }),
    parseRecipients: fromCallback<BatchCallEvent, { file: File }>(({ input, sendBack }) =>
      parseRecipientsFile(input.file, {
        progress: (loaded, size) => sendBack({ type: 'recipients.progress', loaded, size }),
        done: (summary, table) => sendBack({ type: 'recipients.parsed', summary, table }),
        failed: (reason) => sendBack({ type: 'recipients.failed', reason }),
      }),
    ),
    persistBatch: fromPromise<Batch, PersistInput>(async ({ input, signal }) => {
      const options = { notify: false, signal };
      const { batch } = await batches.create(input.body, input.idempotencyKey, options);
      if (input.file) await batches.upload(batch._id, input.file, options);
      if (input.next === 'now') return (await batches.send(batch._id, options)).batch;
      if (input.next === 'scheduled' && input.body.scheduledAt) {
        return (await batches.schedule(batch._id, input.body.scheduledAt, options)).batch;
      }
      return (await batches.get(batch._id, options)).batch;
    }),
  },
  actions: {
    notify,
    renewKey: assign({ idempotencyKey: () => newIdempotencyKey() }),
    showErrors: assign({
      errors: ({ context }, params: { sendMode: SendMode }) => formErrors(context, context.intent, params.sendMode, Date.now()),
    }),
    keepOptions: assign(({ context }, params: { options: BatchOptions }) => ({
      numbers: params.options.numbers,
      numbersTotal: params.options.numbersTotal,
      concurrencyLimit: params.options.concurrencyLimit,
      // one number: nothing to choose
      values:
        context.values.fromNumber === '' && params.options.numbers.length === 1
          ? { ...context.values, fromNumber: params.options.numbers[0]?.phone ?? '' }
          : context.values,
    })),
    clearScheduleError: assign(({ context }) => ({ errors: { ...context.errors, scheduledAt: undefined } })),
    takeFile: assign(({ context }, params: { file: File }) => ({
      file: params.file,
      fileError: null,
      progress: { loaded: 0, size: params.file.size },
      summary: null,
      table: null,
      errors: { ...context.errors, recipients: undefined },
    })),
    refuseFile: assign((_, params: { file: File }) => ({
      file: null,
      fileError: checkRecipientsFile(params.file),
      summary: null,
      table: null,
    })),
    clearFile: assign({ file: null, fileError: null, summary: null, table: null, progress: { loaded: 0, size: 0 } }),
    showProgress: assign({ progress: (_, params: { loaded: number; size: number }) => params }),
    keepRecipients: assign(({ context }, params: { summary: RecipientsSummary; table: RecipientsTable }) => ({
      summary: params.summary,
      table: params.table,
      progress: { loaded: context.progress.size, size: context.progress.size },
    })),
    showUnreadable: assign((_, params: { reason: string }) => ({
      file: null,
      fileError: params.reason,
      summary: null,
      table: null,
    })),
    setField: assign(({ context }, params: { field: BatchField; value: string }) => ({
      values: { ...context.values, [params.field]: params.value },
      errors: { ...context.errors, [params.field]: undefined },
    })),
    startSubmit: assign((_, params: { intent: BatchIntent }) => ({ intent: params.intent, failure: null })),
    sayStillReading: assign(({ context }) => ({
      errors: { ...context.errors, recipients: BATCH_FORM_MESSAGES.stillReading },
    })),
    clearErrors: assign({ errors: {} }),
    keep: assign({ saved: (_, params: { batch: Batch }) => params.batch }),
    keepForm: assign(({ context }, params: { error: unknown }) => ({
      failure: failureMessage(params.error),
      errors: { ...context.errors, ...(isApiError(params.error) ? params.error.fieldErrors : {}) },
    })),
  },
  guards: {
    isEditable: stateIn({ form: 'editing' }),
    isAcceptable: ({ event }) => event.type === 'recipients.pick' && checkRecipientsFile(event.file) === null,
    isReading: stateIn({ recipients: 'parsing' }),
    isDraft: ({ context }) => context.intent === 'draft',
    hasErrors: ({ context }, params: { sendMode: SendMode }) =>
      Object.keys(formErrors(context, context.intent, params.sendMode, Date.now())).length > 0,
    isScheduled: (_, params: { batch: Batch }) => params.batch.status === 'scheduled',
  },
}).createMachine({
  id: 'batchCall',
  description: "The full-screen 'Create a batch call' form.",
  type: 'parallel',
  context: ({ input }) => ({
    values: { name: '', fromNumber: '', scheduledAt: '' },
    errors: {},
    numbers: [],
    numbersTotal: 0,
    concurrencyLimit: CONCURRENCY_LIMIT_DEFAULT,
    file: null,
    fileError: null,
    progress: { loaded: 0, size: 0 },
    summary: null,
    table: null,
    intent: 'draft',
    idempotencyKey: input.idempotencyKey ?? newIdempotencyKey(),
    failure: null,
    saved: null,
    timeZone: input.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
  }),
  states: {
    options: {
      initial: 'loading',
      states: {
        loading: {
          tags: ['loading'],
          invoke: {
            id: 'loadOptions',
            src: 'loadOptions',
            onDone: {
              target: 'ready',
              description: 'The From select lists the assigned numbers (the only one is chosen); the estimate uses the limit.',
              actions: { type: 'keepOptions', params: ({ event }) => ({ options: event.output }) },
            },
            onError: { target: 'failed', description: 'The numbers or the limits could not be loaded.' },
          },
        },
        ready: {},
        failed: {
          description: "The From select shows the failure with 'Retry'.",
          on: { 'options.retry': { target: 'loading', description: "'Retry': ask for the numbers and limits again." } },
        },
      },
    },

    timing: {
      initial: 'now',
      states: {
        now: {
          on: {
            'timing.schedule': {
              guard: 'isEditable',
              target: 'scheduled',
              description: "'Schedule' picked: a date and time is asked for; a new body, so a new Idempotency-Key.",
              actions: ['renewKey', 'clearScheduleError'],
            },
          },
        },
        scheduled: {
          description: "A date and time in the future, in the user's time zone.",
          on: {
            'timing.now': {
              guard: 'isEditable',
              target: 'now',
              description: "'Send Now' picked: the schedule is dropped; a new body, so a new Idempotency-Key.",
              actions: ['renewKey', 'clearScheduleError'],
            },
          },
        },
      },
    },

    recipients: {
      initial: 'empty',
      on: {
        'recipients.pick': [
          {
            // no `reenter` here: re-entering from `recipients` re-enters the whole form (its parallel
            // parent), which reset the Schedule choice and reloaded the numbers; `parsing` restarts itself
            guard: and(['isEditable', 'isAcceptable']),
            target: '.parsing',
            description: 'A CSV within 50 MB: read it.',
            actions: { type: 'takeFile', params: ({ event }) => ({ file: event.file }) },
          },
          {
            guard: 'isEditable',
            description: 'Over 50 MB, or not CSV: a clear message, nothing is read or uploaded.',
            target: '.rejected',
            actions: { type: 'refuseFile', params: ({ event }) => ({ file: event.file }) },
          },
        ],
        'recipients.clear': {
          guard: 'isEditable',
          target: '.empty',
          description: 'The file is removed; nothing of it is kept.',
          actions: 'clearFile',
        },
      },
      states: {
        empty: {
          description: "'Please upload recipients first' in the pane, 'Please add recipients first' in the estimate.",
        },
        parsing: {
          description: 'papaparse in a Web Worker; the page stays responsive and shows progress.',
          tags: ['loading'],
          invoke: { id: 'parseRecipients', src: 'parseRecipients', input: ({ context }) => ({ file: context.file as File }) },
          on: {
            'recipients.pick': [
              {
                guard: and(['isEditable', 'isAcceptable']),
                target: 'parsing',
                reenter: true,
                description: 'Another CSV while one is read: the first reading stops, the new file is read.',
                actions: { type: 'takeFile', params: ({ event }) => ({ file: event.file }) },
              },
              {
                guard: 'isEditable',
                target: 'rejected',
                description: 'Another file, refused (over 50 MB, or not CSV): the reading stops, the message says why.',
                actions: { type: 'refuseFile', params: ({ event }) => ({ file: event.file }) },
              },
            ],
            'recipients.progress': {
              description: 'The worker read further: the progress bar moves.',
              actions: { type: 'showProgress', params: ({ event }) => ({ loaded: event.loaded, size: event.size }) },
            },
            'recipients.parsed': {
              target: 'ready',
              description: 'The whole file is read: valid and invalid counts, and the rows.',
              actions: { type: 'keepRecipients', params: ({ event }) => ({ summary: event.summary, table: event.table }) },
            },
            'recipients.failed': {
              target: 'rejected',
              description: 'The file could not be read (no phone column, not text): the reason is shown.',
              actions: { type: 'showUnreadable', params: ({ event }) => ({ reason: event.reason }) },
            },
          },
        },
        ready: {
          description: 'Valid and invalid counts with their reasons; the rows in a virtualised pane.',
        },
        rejected: { description: 'The file was refused; the message says why and another file can be picked.' },
      },
    },

    form: {
      initial: 'editing',
      states: {
        editing: {
          on: {
            'field.change': {
              description: "A field's new value clears its error; a different body needs a different Idempotency-Key.",
              actions: ['renewKey', { type: 'setField', params: ({ event }) => ({ field: event.field, value: event.value }) }],
            },
            'form.saveDraft': {
              target: 'validating',
              description: "'Save as draft': check the name and the From number.",
              actions: { type: 'startSubmit', params: { intent: 'draft' } },
            },
            'form.send': {
              target: 'validating',
              description: "'Send': check everything, recipients and the schedule included.",
              actions: { type: 'startSubmit', params: { intent: 'send' } },
            },
          },
        },
        validating: {
          description: 'The contract rules, plus recipients and a future time when sending.',
          always: [
            {
              guard: 'isReading',
              target: 'editing',
              description: 'The recipients file is still being read: wait for it.',
              actions: 'sayStillReading',
            },
            {
              guard: and([stateIn({ timing: 'now' }), { type: 'hasErrors', params: { sendMode: 'now' } }]),
              target: 'editing',
              description: 'Sending now: something is missing or wrong; each field says what.',
              actions: { type: 'showErrors', params: { sendMode: 'now' } },
            },
            {
              guard: and([stateIn({ timing: 'scheduled' }), { type: 'hasErrors', params: { sendMode: 'scheduled' } }]),
              target: 'editing',
              description: 'Scheduling: something is missing or wrong (a time in the past too); each field says what.',
              actions: { type: 'showErrors', params: { sendMode: 'scheduled' } },
            },
            {
              guard: and(['isDraft', stateIn({ timing: 'now' })]),
              target: 'saving.now',
              description: 'A valid draft: save it.',
              actions: 'clearErrors',
            },
            {
              guard: 'isDraft',
              target: 'saving.scheduled',
              description: 'A valid draft with its schedule: save it.',
              actions: 'clearErrors',
            },
            {
              guard: stateIn({ timing: 'now' }),
              target: 'sending.now',
              description: 'A valid batch to send now: create, upload and send it.',
              actions: 'clearErrors',
            },
            {
              target: 'sending.scheduled',
              description: 'A valid batch with a future time: create, upload and schedule it.',
              actions: 'clearErrors',
            },
          ],
        },
        saving: {
          description: 'Create the draft (Idempotency-Key), then upload the recipients if any.',
          tags: ['busy'],
          // entered at `now` or `scheduled` by `validating`, after the `timing` region
          initial: 'now',
          states: {
            now: persisting('saveDraft', 'now', 'draft'),
            scheduled: persisting('saveDraft', 'scheduled', 'draft'),
          },
        },
        sending: {
          description: 'Create, upload, then send now or schedule.',
          tags: ['busy'],
          initial: 'now',
          states: {
            now: persisting('sendBatch', 'now', 'send'),
            scheduled: persisting('sendBatch', 'scheduled', 'send'),
          },
        },
        saved: { tags: ['done'], description: 'A draft: the form closes onto the list.' },
        scheduled: { tags: ['done'], description: 'Waits in the list until its time.' },
        sent: { tags: ['done'], description: "Waiting in 'Sending' with its recipients stored." },
      },
    },
  },
});
