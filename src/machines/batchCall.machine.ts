import * as v from 'valibot';
import { and, assign, fromCallback, fromPromise, setup, stateIn } from 'xstate';
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
import { toast } from '../ui/toast/toast';

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
  /** mirrors the `timing` region, for the body and the rules */
  sendMode: SendMode;
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

const failureMessage = (error: unknown) =>
  (isApiError(error) && (error.serverMessage ?? error.message)) || BATCH_FORM_MESSAGES.saveFailed;

const errorToast = (error: unknown) => ({ title: 'Error', description: failureMessage(error), variant: 'destructive' as const });

/** A failed save or send: back to editing, everything kept, the reason shown and toasted. */
const keepTheForm = {
  description: 'The form stays with everything in it.',
  target: 'editing',
  actions: [
    { type: 'keepForm', params: ({ event }: { event: { error: unknown } }) => ({ error: event.error }) },
    { type: 'notify', params: ({ event }: { event: { error: unknown } }) => errorToast(event.error) },
  ],
} as const;

/** A finished save or send: keep the batch, say so. */
const finish = (target: 'saved' | 'scheduled' | 'sent', title: string, description: string) =>
  ({
    target,
    actions: [
      { type: 'keep', params: ({ event }: { event: { output: Batch } }) => ({ batch: event.output }) },
      { type: 'notify', params: { title, description } },
    ],
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
    notify: (_, params: { title: string; description: string; variant?: 'destructive' }) => {
      toast(params);
    },
    renewKey: assign({ idempotencyKey: () => newIdempotencyKey() }),
    showErrors: assign({
      errors: ({ context }) => formErrors(context, context.intent, context.sendMode, Date.now()),
    }),
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
    hasErrors: ({ context }) => Object.keys(formErrors(context, context.intent, context.sendMode, Date.now())).length > 0,
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
    sendMode: 'now',
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
              actions: assign(({ context, event }) => ({
                numbers: event.output.numbers,
                numbersTotal: event.output.numbersTotal,
                concurrencyLimit: event.output.concurrencyLimit,
                // one number: nothing to choose
                values:
                  context.values.fromNumber === '' && event.output.numbers.length === 1
                    ? { ...context.values, fromNumber: event.output.numbers[0]?.phone ?? '' }
                    : context.values,
              })),
            },
            onError: { target: 'failed' },
          },
        },
        ready: {},
        failed: {
          description: "The From select shows the failure with 'Retry'.",
          on: { 'options.retry': 'loading' },
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
              actions: [
                'renewKey',
                assign(({ context }) => ({
                  sendMode: 'scheduled' as const,
                  errors: { ...context.errors, scheduledAt: undefined },
                })),
              ],
            },
          },
        },
        scheduled: {
          description: "A date and time in the future, in the user's time zone.",
          on: {
            'timing.now': {
              guard: 'isEditable',
              target: 'now',
              actions: [
                'renewKey',
                assign(({ context }) => ({ sendMode: 'now' as const, errors: { ...context.errors, scheduledAt: undefined } })),
              ],
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
            guard: and(['isEditable', 'isAcceptable']),
            target: '.parsing',
            actions: assign(({ context, event }) => ({
              file: event.file,
              fileError: null,
              progress: { loaded: 0, size: event.file.size },
              summary: null,
              table: null,
              errors: { ...context.errors, recipients: undefined },
            })),
          },
          {
            guard: 'isEditable',
            description: 'Over 50 MB, or not CSV: a clear message, nothing is read or uploaded.',
            target: '.rejected',
            actions: assign(({ event }) => ({
              file: null,
              fileError: checkRecipientsFile(event.file),
              summary: null,
              table: null,
            })),
          },
        ],
        'recipients.clear': {
          guard: 'isEditable',
          target: '.empty',
          actions: assign({ file: null, fileError: null, summary: null, table: null, progress: { loaded: 0, size: 0 } }),
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
            'recipients.progress': {
              actions: assign({ progress: ({ event }) => ({ loaded: event.loaded, size: event.size }) }),
            },
            'recipients.parsed': {
              target: 'ready',
              actions: assign(({ context, event }) => ({
                summary: event.summary,
                table: event.table,
                progress: { loaded: context.progress.size, size: context.progress.size },
              })),
            },
            'recipients.failed': {
              target: 'rejected',
              actions: assign({ file: null, fileError: ({ event }) => event.reason, summary: null, table: null }),
            },
          },
        },
        ready: {
          description: 'Valid and invalid counts with their reasons; the rows in a virtualised pane.',
        },
        rejected: {},
      },
    },

    form: {
      initial: 'editing',
      states: {
        editing: {
          on: {
            'field.change': {
              description: 'A different body needs a different Idempotency-Key.',
              actions: [
                'renewKey',
                assign(({ context, event }) => ({
                  values: { ...context.values, [event.field]: event.value },
                  errors: { ...context.errors, [event.field]: undefined },
                })),
              ],
            },
            'form.saveDraft': { target: 'validating', actions: assign({ intent: 'draft', failure: null }) },
            'form.send': { target: 'validating', actions: assign({ intent: 'send', failure: null }) },
          },
        },
        validating: {
          description: 'The contract rules, plus recipients and a future time when sending.',
          always: [
            {
              guard: 'isReading',
              target: 'editing',
              actions: assign(({ context }) => ({
                errors: { ...context.errors, recipients: BATCH_FORM_MESSAGES.stillReading },
              })),
            },
            { guard: 'hasErrors', target: 'editing', actions: 'showErrors' },
            { guard: 'isDraft', target: 'saving', actions: assign({ errors: {} }) },
            { target: 'sending', actions: assign({ errors: {} }) },
          ],
        },
        saving: {
          description: 'Create the draft (Idempotency-Key), then upload the recipients if any.',
          tags: ['busy'],
          invoke: {
            id: 'saveDraft',
            src: 'persistBatch',
            input: ({ context }) => ({
              idempotencyKey: context.idempotencyKey,
              body: createBody(context.values, context.sendMode),
              file: context.summary ? context.file : null,
              next: 'draft',
            }),
            onDone: finish('saved', 'Batch call saved', 'It waits in the list as a draft.'),
            onError: keepTheForm,
          },
        },
        sending: {
          description: 'Create, upload, then send now or schedule.',
          tags: ['busy'],
          invoke: {
            id: 'sendBatch',
            src: 'persistBatch',
            input: ({ context }) => ({
              idempotencyKey: context.idempotencyKey,
              body: createBody(context.values, context.sendMode),
              file: context.file,
              next: context.sendMode,
            }),
            onDone: [
              {
                guard: { type: 'isScheduled', params: ({ event }) => ({ batch: event.output }) },
                ...finish('scheduled', 'Batch call scheduled', BATCH_MESSAGES.scheduled),
              },
              finish('sent', 'Batch call sent', BATCH_MESSAGES.sent),
            ],
            onError: keepTheForm,
          },
        },
        saved: { tags: ['done'], description: 'A draft: the form closes onto the list.' },
        scheduled: { tags: ['done'] },
        sent: { tags: ['done'], description: "Waiting in 'Sending' with its recipients stored." },
      },
    },
  },
});
