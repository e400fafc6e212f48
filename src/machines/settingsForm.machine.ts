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
      always: [{ guard: 'isDialog', target: 'closed' }, { target: 'loading' }],
    },
    closed: {
      on: { 'dialog.open': 'loading' },
    },
    loading: {
      tags: ['open', 'loading'],
      invoke: {
        id: 'load',
        src: 'load',
        onDone: {
          target: 'editing',
          actions: assign(({ event }) => ({
            values: event.output.values,
            initial: event.output.values,
            note: event.output.note ?? null,
            errors: {},
            failure: null,
          })),
        },
        onError: {
          target: 'failed',
          actions: assign({ failure: ({ event }) => messageOf(event.error, SETTINGS_FORM_MESSAGES.loadFailed) }),
        },
      },
      on: { 'dialog.close': { guard: 'isDialog', target: 'closed' } },
    },
    failed: {
      description: "The load failed: the message and 'Retry'.",
      tags: ['open'],
      on: {
        'load.retry': 'loading',
        'dialog.close': { guard: 'isDialog', target: 'closed' },
      },
    },
    editing: {
      tags: ['open'],
      on: {
        'field.change': {
          actions: assign(({ context, event }) => ({
            values: { ...context.values, [event.field]: event.value },
            errors: { ...context.errors, [event.field]: '' },
          })),
        },
        'form.reset': { actions: assign(({ context }) => ({ values: context.initial, errors: {}, failure: null })) },
        'form.submit': [
          { guard: 'isValid', target: 'saving', actions: assign({ errors: {}, failure: null }) },
          {
            description: "The contract's messages under the fields.",
            actions: assign({ errors: ({ context }) => errorsOf(context.schema, context.values) }),
          },
        ],
        'dialog.close': { guard: 'isDialog', target: 'closed' },
      },
    },
    saving: {
      tags: ['open', 'busy'],
      invoke: {
        id: 'save',
        src: 'save',
        input: ({ context }: { context: SettingsFormContext }): unknown => v.parse(context.schema, context.values),
        onDone: [
          {
            guard: 'isDialog',
            target: 'closed',
            actions: {
              type: 'notify',
              params: ({ context, event }) => ({ title: context.savedTitle, description: event.output.msg }),
            },
          },
          {
            target: 'editing',
            actions: [
              assign(({ event }) => ({
                values: event.output.values,
                initial: event.output.values,
                note: event.output.note ?? null,
              })),
              { type: 'notify', params: ({ context, event }) => ({ title: context.savedTitle, description: event.output.msg }) },
            ],
          },
        ],
        onError: {
          description: 'The form stays with what was typed; server field errors go under their fields.',
          target: 'editing',
          actions: [
            assign(({ event }) => ({
              failure: messageOf(event.error, SETTINGS_FORM_MESSAGES.saveFailed),
              errors: isApiError(event.error) ? event.error.fieldErrors : {},
            })),
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
