import * as v from 'valibot';
import { assign, fromPromise, setup } from 'xstate';
import { isApiError } from '../api/errors';
import { notify } from './notify';

/** A settings form's values, as typed in its inputs. */
export type FormValues = Record<string, string>;

export interface SettingsLoaded {
  values: FormValues;
  /** a line shown under the form (e.g. this month's spend so far) */
  note?: string;
}

export interface SettingsSaved extends SettingsLoaded {
  msg: string;
}

export interface SettingsFormInput {
  /** in a dialog: starts closed and closes after a save; inline: always shown */
  dialog: boolean;
  /** the form schema of the contract: string inputs in, the request body out (its messages are shown) */
  schema: v.GenericSchema<FormValues, unknown>;
  /** the toast title after a save */
  savedTitle: string;
}

export interface SettingsFormContext extends SettingsFormInput {
  values: FormValues;
  /** the values as last loaded or saved (what 'Reset' returns to) */
  initial: FormValues;
  errors: Record<string, string>;
  note: string | null;
  failure: string | null;
}

export type SettingsFormEvent =
  | { type: 'dialog.open' }
  | { type: 'dialog.close' }
  | { type: 'load.retry' }
  | { type: 'field.change'; field: string; value: string }
  | { type: 'form.reset' }
  | { type: 'form.submit' };

export const SETTINGS_FORM_MESSAGES = {
  loadFailed: 'Could not load these settings. Please try again.',
  saveFailed: 'Could not save. Please try again.',
} as const;

function errorsOf(schema: v.GenericSchema, values: FormValues): Record<string, string> {
  const r = v.safeParse(schema, values);
  if (r.success) return {};
  const nested = v.flatten(r.issues).nested ?? {};
  return Object.fromEntries(Object.entries(nested).flatMap(([k, msgs]) => (msgs?.[0] ? [[k, msgs[0]]] : [])));
}

const messageOf = (error: unknown, fallback: string) => (isApiError(error) && error.serverMessage) || fallback;

/**
 * A small settings form that loads, edits, validates with the contract and saves: the billing Limits tab
 * (inline) and the billing contact ('Manage billing info', a dialog). The effects are the named actors
 * `load` and `save`, provided by the screen; every failure keeps what was typed.
 */
export const settingsFormMachine = setup({
  types: {
    context: {} as SettingsFormContext,
    events: {} as SettingsFormEvent,
    input: {} as SettingsFormInput,
    tags: {} as 'open' | 'loading' | 'busy',
  },
  actors: {
    load: fromPromise<SettingsLoaded>(async () => ({ values: {} })),
    save: fromPromise<SettingsSaved, unknown>(async () => ({ values: {}, msg: '' })),
  },
  actions: {
    notify,
    showLoaded: assign((_, params: SettingsLoaded) => ({
      values: params.values,
      initial: params.values,
      note: params.note ?? null,
      errors: {},
      failure: null,
    })),
    showLoadFailure: assign({
      failure: (_, params: { error: unknown }) => messageOf(params.error, SETTINGS_FORM_MESSAGES.loadFailed),
    }),
    setField: assign(({ context }, params: { field: string; value: string }) => ({
      values: { ...context.values, [params.field]: params.value },
      errors: { ...context.errors, [params.field]: '' },
    })),
    resetForm: assign(({ context }) => ({ values: context.initial, errors: {}, failure: null })),
    clearErrors: assign({ errors: {}, failure: null }),
    showErrors: assign({ errors: ({ context }) => errorsOf(context.schema, context.values) }),
    keepSaved: assign((_, params: SettingsLoaded) => ({
      values: params.values,
      initial: params.values,
      note: params.note ?? null,
    })),
    showSaveFailure: assign((_, params: { error: unknown }) => ({
      failure: messageOf(params.error, SETTINGS_FORM_MESSAGES.saveFailed),
      errors: isApiError(params.error) ? params.error.fieldErrors : {},
    })),
  },
  guards: {
    isDialog: ({ context }) => context.dialog,
    isValid: ({ context }) => v.is(context.schema, context.values),
  },
}).createMachine({
  id: 'settingsForm',
  description: 'Load, edit, validate with the contract, save; failures keep the input.',
  context: ({ input }) => ({ ...input, values: {}, initial: {}, errors: {}, note: null, failure: null }),
  initial: 'starting',
  states: {
    starting: {
      description: 'A dialog form waits to be opened; an inline form loads at once.',
      always: [
        { guard: 'isDialog', target: 'closed', description: 'A dialog: closed until asked for.' },
        { target: 'loading', description: 'Inline: load the current values.' },
      ],
    },
    closed: {
      description: 'The dialog is closed.',
      on: { 'dialog.open': { target: 'loading', description: 'The dialog opens and loads the current values.' } },
    },
    loading: {
      description: 'The current values are asked for.',
      tags: ['open', 'loading'],
      invoke: {
        id: 'load',
        src: 'load',
        onDone: {
          target: 'editing',
          description: 'The values fill the form.',
          actions: { type: 'showLoaded', params: ({ event }) => event.output },
        },
        onError: {
          target: 'failed',
          description: 'The values could not be loaded: the message and Retry.',
          actions: { type: 'showLoadFailure', params: ({ event }) => ({ error: event.error }) },
        },
      },
      on: { 'dialog.close': { guard: 'isDialog', target: 'closed', description: 'The dialog is closed while loading.' } },
    },
    failed: {
      description: "The load failed: the message and 'Retry'.",
      tags: ['open'],
      on: {
        'load.retry': { target: 'loading', description: "'Retry': load again." },
        'dialog.close': { guard: 'isDialog', target: 'closed', description: 'The dialog is closed.' },
      },
    },
    editing: {
      description: 'The form, filled; the user edits it.',
      tags: ['open'],
      on: {
        'field.change': {
          description: "A field's new value clears its error.",
          actions: { type: 'setField', params: ({ event }) => ({ field: event.field, value: event.value }) },
        },
        'form.reset': { description: 'Back to the values last loaded or saved.', actions: 'resetForm' },
        'form.submit': [
          { guard: 'isValid', target: 'saving', description: 'Valid: save.', actions: 'clearErrors' },
          {
            description: "The contract's messages under the fields.",
            actions: 'showErrors',
          },
        ],
        'dialog.close': { guard: 'isDialog', target: 'closed', description: 'The dialog is closed; nothing is saved.' },
      },
    },
    saving: {
      description: 'The values are saved.',
      tags: ['open', 'busy'],
      invoke: {
        id: 'save',
        src: 'save',
        input: ({ context }: { context: SettingsFormContext }): unknown => v.parse(context.schema, context.values),
        onDone: [
          {
            guard: 'isDialog',
            target: 'closed',
            description: 'Saved: the dialog closes with a toast.',
            actions: {
              type: 'notify',
              params: ({ context, event }) => ({ title: context.savedTitle, description: event.output.msg }),
            },
          },
          {
            target: 'editing',
            description: 'Saved: the form shows what the server kept, with a toast.',
            actions: [
              { type: 'keepSaved', params: ({ event }) => event.output },
              { type: 'notify', params: ({ context, event }) => ({ title: context.savedTitle, description: event.output.msg }) },
            ],
          },
        ],
        onError: {
          description: 'The form stays with what was typed; server field errors go under their fields.',
          target: 'editing',
          actions: [
            { type: 'showSaveFailure', params: ({ event }) => ({ error: event.error }) },
            {
              type: 'notify',
              params: ({ event }) => ({
                title: 'Error',
                description: messageOf(event.error, SETTINGS_FORM_MESSAGES.saveFailed),
                variant: 'destructive' as const,
              }),
            },
          ],
        },
      },
    },
  },
});
