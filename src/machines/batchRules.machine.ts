import * as v from 'valibot';
import { assign, fromPromise, setup } from 'xstate';
import { batches } from '../api/batches';
import {
  BATCH_DEFAULT_TIME_ZONE,
  type Batch,
  type BatchResponse,
  type UpdateBatchBody,
  UpdateBatchBodySchema,
} from '../api/contract/batch';
import { isApiError } from '../api/errors';
import { notify, type ToastMessage } from './notify';

/** The form of the dialling rules, as typed (numbers stay text until they are checked). */
export interface RulesDraft {
  /** 'Only call inside a calling window' */
  windowOn: boolean;
  /** 0 = Sunday ... 6 = Saturday */
  days: number[];
  start: string;
  end: string;
  timeZone: string;
  maxAttempts: string;
  retryDelaySeconds: string;
}

export type RulesField = 'days' | 'start' | 'end' | 'timeZone' | 'maxAttempts' | 'retryDelaySeconds';
export type RulesErrors = Partial<Record<RulesField, string>>;

/** The rules of a batch as the API answers them. */
export type BatchRules = Pick<Batch, 'callingWindow' | 'timeZone' | 'maxAttempts' | 'retryDelaySeconds'>;

export interface BatchRulesContext {
  batchId: string;
  draft: RulesDraft;
  /** the contract's message per field, after a submit */
  errors: RulesErrors;
  /** the server's message when a save failed */
  failure: string | null;
}

export type BatchRulesEvent =
  | { type: 'rules.open'; rules: BatchRules; localZone: string }
  | { type: 'rules.change'; patch: Partial<RulesDraft> }
  | { type: 'rules.submit' }
  | { type: 'rules.close' };

export const BATCH_RULES_MESSAGES = {
  saved: { title: 'Dialling rules saved', description: 'The batch call dials by its new rules.' } satisfies ToastMessage,
  failed: 'The dialling rules could not be saved. Please try again.',
} as const;

/** A window's defaults when none is set yet: the user chooses the days. */
const NEW_WINDOW = { days: [] as number[], start: '09:00', end: '17:00' };

/**
 * The form's first values: the batch's rules. Setting a window for the first time (none yet, the zone
 * still the default) proposes the user's own time zone.
 */
export function draftOf(rules: BatchRules, localZone: string): RulesDraft {
  const w = rules.callingWindow;
  const firstWindow = !w && rules.timeZone === BATCH_DEFAULT_TIME_ZONE;
  return {
    windowOn: w !== null,
    days: w ? [...w.days] : [...NEW_WINDOW.days],
    start: w?.start ?? NEW_WINDOW.start,
    end: w?.end ?? NEW_WINDOW.end,
    timeZone: firstWindow && localZone ? localZone : rules.timeZone,
    maxAttempts: String(rules.maxAttempts),
    retryDelaySeconds: String(rules.retryDelaySeconds),
  };
}

/** A number field's text as the number it says (NaN when it says none, which the contract refuses). */
const numberOf = (text: string) => (/^\s*-?\d+(\.\d+)?\s*$/.test(text) ? Number(text) : Number.NaN);

/** The field an issue of UpdateBatchBodySchema belongs to. */
function fieldOf(issue: v.BaseIssue<unknown>): RulesField | null {
  const keys = (issue.path ?? []).map((p) => p.key).filter((k): k is string => typeof k === 'string');
  const key = keys[0] === 'callingWindow' ? (keys[1] ?? 'days') : keys[0];
  return key === 'days' ||
    key === 'start' ||
    key === 'end' ||
    key === 'timeZone' ||
    key === 'maxAttempts' ||
    key === 'retryDelaySeconds'
    ? key
    : null;
}

/**
 * The PATCH body of a draft, checked with the contract (UpdateBatchBodySchema), or the contract's message
 * per field. Without a window the body removes it (`callingWindow: null`) and leaves the zone as it is.
 */
export function rulesBody(draft: RulesDraft): { body: UpdateBatchBody } | { errors: RulesErrors } {
  const body: UpdateBatchBody = {
    callingWindow: draft.windowOn ? { days: [...draft.days], start: draft.start, end: draft.end } : null,
    ...(draft.windowOn ? { timeZone: draft.timeZone } : {}),
    maxAttempts: numberOf(draft.maxAttempts),
    retryDelaySeconds: numberOf(draft.retryDelaySeconds),
  };
  const result = v.safeParse(UpdateBatchBodySchema, body);
  if (result.success) return { body: result.output };
  const errors: RulesErrors = {};
  for (const issue of result.issues) {
    const field = fieldOf(issue);
    if (field && !errors[field]) errors[field] = issue.message;
  }
  return { errors };
}

const errorsOf = (draft: RulesDraft): RulesErrors => {
  const r = rulesBody(draft);
  return 'errors' in r ? r.errors : {};
};

/** The fields a change touches lose their message (the window's switch clears the window's). */
function withoutTouched(errors: RulesErrors, patch: Partial<RulesDraft>): RulesErrors {
  const out = { ...errors };
  for (const key of Object.keys(patch) as (keyof RulesDraft)[]) {
    if (key === 'windowOn') {
      delete out.days;
      delete out.start;
      delete out.end;
      delete out.timeZone;
    } else delete out[key];
  }
  return out;
}

export interface SaveRulesInput {
  batchId: string;
  body: UpdateBatchBody;
}

const EMPTY_DRAFT: RulesDraft = {
  windowOn: false,
  ...NEW_WINDOW,
  timeZone: BATCH_DEFAULT_TIME_ZONE,
  maxAttempts: '',
  retryDelaySeconds: '',
};

/**
 * 'Edit dialling rules' of a batch that has not ended: the calling window (days, From, Until,
 * time zone), attempts and the retry delay. Submit checks the draft with the contract and shows its
 * messages next to the fields; a valid draft is saved with PATCH /batch-call/{id}. A success closes with
 * a toast (the detail reloads: the call invalidates the batch); a failure keeps the input and shows the
 * server's message.
 */
export const batchRulesMachine = setup({
  types: {
    context: {} as BatchRulesContext,
    events: {} as BatchRulesEvent,
    input: {} as { batchId: string },
    tags: {} as 'open' | 'busy',
  },
  actors: {
    saveRules: fromPromise<BatchResponse, SaveRulesInput>(({ input, signal }) =>
      batches.update(input.batchId, input.body, { notify: false, signal }),
    ),
  },
  actions: {
    notify,
    startDraft: assign({
      draft: (_, params: { rules: BatchRules; localZone: string }) => draftOf(params.rules, params.localZone),
      errors: {},
      failure: null,
    }),
    changeDraft: assign({
      draft: ({ context }, params: { patch: Partial<RulesDraft> }) => ({ ...context.draft, ...params.patch }),
      errors: ({ context }, params: { patch: Partial<RulesDraft> }) => withoutTouched(context.errors, params.patch),
      failure: null,
    }),
    showErrors: assign({ errors: ({ context }) => errorsOf(context.draft), failure: null }),
    showFailure: assign({ failure: (_, params: { error: unknown }) => failureOf(params.error) }),
    forget: assign({ draft: EMPTY_DRAFT, errors: {}, failure: null }),
  },
  guards: {
    isDraftValid: ({ context }) => 'body' in rulesBody(context.draft),
  },
}).createMachine({
  id: 'batchRules',
  description: "The 'Edit dialling rules' dialog of a batch call's detail.",
  context: ({ input }) => ({ batchId: input.batchId, draft: EMPTY_DRAFT, errors: {}, failure: null }),
  initial: 'closed',
  states: {
    closed: {
      description: 'The detail shows the rules; no form on screen.',
      on: {
        'rules.open': {
          target: 'editing',
          description: "'Edit dialling rules': the form opens with the batch's rules.",
          actions: { type: 'startDraft', params: ({ event }) => ({ rules: event.rules, localZone: event.localZone }) },
        },
      },
    },
    editing: {
      tags: ['open'],
      description: 'The form: calling window, time zone, attempts, retry delay.',
      on: {
        'rules.change': {
          description: 'The user changes a field; its message goes.',
          actions: { type: 'changeDraft', params: ({ event }) => ({ patch: event.patch }) },
        },
        'rules.submit': [
          { guard: 'isDraftValid', target: 'saving', description: 'Save: the rules keep the contract; PATCH them.' },
          {
            description: 'Save with a value the contract refuses: its message next to the field, nothing sent.',
            actions: 'showErrors',
          },
        ],
        'rules.close': { target: 'closed', description: 'Cancel, Escape or Close: nothing changes.', actions: 'forget' },
      },
    },
    saving: {
      tags: ['open', 'busy'],
      description: "PATCH /batch-call/{id}; Save reads 'Saving...' and the form waits.",
      invoke: {
        id: 'saveRules',
        src: 'saveRules',
        input: ({ context }) => {
          const r = rulesBody(context.draft);
          return { batchId: context.batchId, body: 'body' in r ? r.body : {} };
        },
        onDone: {
          target: 'closed',
          description: "Saved: 'Dialling rules saved'; the detail reloads with the new rules.",
          actions: [{ type: 'notify', params: BATCH_RULES_MESSAGES.saved }, 'forget'],
        },
        onError: {
          target: 'editing',
          description: "Not saved: the form keeps the input and shows the server's message.",
          actions: { type: 'showFailure', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
  },
});

function failureOf(error: unknown): string {
  return (isApiError(error) && error.serverMessage) || BATCH_RULES_MESSAGES.failed;
}
