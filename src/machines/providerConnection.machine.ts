import { assign, fromPromise, setup } from 'xstate';
import { type ActionKey, actionKey, newIdempotencyKey } from '../api/contract/idempotency';
import {
  fieldFlags,
  type KeyValue,
  PROVIDER_MESSAGES,
  type ProviderDisconnectResponse,
  type ProviderFieldsResponse,
  type ProviderSaveResponse,
} from '../api/contract/provider';
import { isApiError, serverMessageOf } from '../api/errors';
import { providers } from '../api/providers';
import { notify, type ToastMessage } from './notify';

const failure = (description: string): ToastMessage => ({ title: 'Error', description, variant: 'destructive' });

/** Spec sections 5 and 8, verbatim. Success toasts name the provider by its label ('Twilio'). */
export const PROVIDER_TOASTS = {
  connected: (label: string): ToastMessage => ({ title: 'Success', description: PROVIDER_MESSAGES.connected(label) }),
  updated: (label: string): ToastMessage => ({ title: 'Success', description: PROVIDER_MESSAGES.updated(label) }),
  disconnected: (label: string): ToastMessage => ({ title: 'Success', description: PROVIDER_MESSAGES.disconnected(label) }),
  missing: (names: string[]): ToastMessage => ({
    title: PROVIDER_MESSAGES.missingInformation,
    description: PROVIDER_MESSAGES.missingFields(names),
    variant: 'destructive',
  }),
  fieldsFailed: failure(PROVIDER_MESSAGES.fieldsLoadFailed),
  connectFailed: (msg?: string) => failure(msg || PROVIDER_MESSAGES.connectFailed),
  updateFailed: (msg?: string) => failure(msg || PROVIDER_MESSAGES.updateFailed),
  disconnectFailed: (msg?: string) => failure(msg || PROVIDER_MESSAGES.disconnectFailed),
  /**
   * saved, but the provider could not be asked whether it takes the key: the success toast says so under its
   * words (one toast is shown at a time, so a second toast would hide the first)
   */
  savedUnchecked: (saved: ToastMessage, warning: string | undefined): ToastMessage =>
    warning ? { ...saved, note: warning } : saved,
} as const;

export interface ProviderConnectionInput {
  /** the provider's slug ('twilio') */
  name: string;
  /** its display name ('Twilio') */
  label: string;
  /** whether the company has connected it (GET /provider) */
  connected: boolean;
}

export interface CredentialField {
  name: string;
  /** a credential (password input) rather than an identifier */
  secret: boolean;
  /** may be left empty (OpenAI's Base URL): never part of 'Missing information' */
  optional?: boolean;
  /** an http(s) URL */
  url?: boolean;
}

export interface ProviderConnectionContext {
  name: string;
  label: string;
  connected: boolean;
  /** the connection id for PUT /provider/{id}; known once the fields are loaded */
  connectionId: string | null;
  fields: CredentialField[];
  /** what the dialog's inputs hold: '' for a new connection, the server's mask for a stored value */
  values: Record<string, string>;
  /** the Idempotency-Key of the save being attempted (a retried Connect never connects twice) */
  attempt: ActionKey | undefined;
  /**
   * What is wrong with a field, shown under it: 'A value is required' for an empty required field, or the
   * provider's reason for a key it refused (the server's `errors`); cleared when the field changes.
   */
  fieldErrors: Record<string, string>;
}

export type ProviderConnectionEvent =
  | { type: 'dialog.open' }
  | { type: 'dialog.close' }
  | { type: 'fields.retry' }
  | { type: 'field.change'; name: string; value: string }
  | { type: 'form.submit' }
  | { type: 'disconnect.request' }
  | { type: 'disconnect.confirm' }
  | { type: 'disconnect.cancel' }
  | { type: 'status.sync'; connected: boolean };

export interface SaveInput {
  name: string;
  /** null: connect (POST /provider/values); else update (PUT /provider/{id}) */
  connectionId: string | null;
  keys: KeyValue[];
  idempotencyKey: string;
}

/** Names of the required fields left empty (spaces only counts as empty), in the dialog's order. */
export const missingFields = (c: Pick<ProviderConnectionContext, 'fields' | 'values'>): string[] =>
  c.fields.filter((f) => !f.optional && (c.values[f.name] ?? '').trim() === '').map((f) => f.name);

const forgetForm = { fields: [], values: {}, attempt: undefined, fieldErrors: {} } satisfies Partial<ProviderConnectionContext>;

/** The errors of the named fields of `error` (a refused key: the provider's reason under its field). */
const fieldErrorsOf = (error: unknown, fields: readonly CredentialField[]): Record<string, string> => {
  if (!isApiError(error)) return {};
  const known = new Set(fields.map((f) => f.name));
  return Object.fromEntries(Object.entries(error.fieldErrors).filter(([name]) => known.has(name)));
};

/** What one Save sends: a retry of the same values reuses the attempt's Idempotency-Key. */
const saveRequestOf = (context: ProviderConnectionContext) => ({
  name: context.name,
  connectionId: context.connectionId,
  keys: context.fields.map((f) => ({ name: f.name, value: (context.values[f.name] ?? '').trim() })),
});

/**
 * One provider card's connection: connect, update and disconnect, each in its own dialog.
 * The dialog's inputs live in the context so a failed save keeps them; they are forgotten as soon as the
 * dialog closes or the save succeeds (no credential stays in memory longer than the dialog).
 * Effects: `loadFields`, `saveConnection`, `disconnect` call the API without its automatic toast (the
 * machine shows the spec's own); `notify` shows a toast.
 */
export const providerConnectionMachine = setup({
  types: {
    context: {} as ProviderConnectionContext,
    events: {} as ProviderConnectionEvent,
    input: {} as ProviderConnectionInput,
  },
  actors: {
    loadFields: fromPromise<ProviderFieldsResponse, { name: string }>(({ input, signal }) =>
      providers.fields(input.name, { notify: false, signal }),
    ),
    saveConnection: fromPromise<ProviderSaveResponse, SaveInput>(({ input }) => {
      const options = { notify: false, idempotencyKey: input.idempotencyKey };
      return input.connectionId
        ? providers.update(input.connectionId, { keys: input.keys }, options)
        : providers.connect({ name: input.name, keys: input.keys }, options);
    }),
    disconnect: fromPromise<ProviderDisconnectResponse, { name: string }>(({ input }) =>
      providers.disconnect(input.name, { notify: false }),
    ),
  },
  actions: {
    notify,
    forgetForm: assign(forgetForm),
    syncStatus: assign({ connected: (_, params: { connected: boolean }) => params.connected }),
    showFields: assign((_, params: { fields: ProviderFieldsResponse }) => ({
      connected: params.fields.connected,
      connectionId: params.fields._id,
      fields: params.fields.keys.map((k) => ({ name: k.name, secret: k.secret, ...fieldFlags(k) })),
      values: Object.fromEntries(params.fields.keys.map((k) => [k.name, k.value])),
    })),
    setValue: assign({
      values: ({ context }, params: { name: string; value: string }) => ({ ...context.values, [params.name]: params.value }),
      fieldErrors: ({ context }, params: { name: string; value: string }) => {
        const { [params.name]: _, ...rest } = context.fieldErrors;
        return rest;
      },
    }),
    markMissing: assign({
      fieldErrors: ({ context }) =>
        Object.fromEntries(missingFields(context).map((name) => [name, PROVIDER_MESSAGES.valueRequired])),
    }),
    showFieldErrors: assign({
      fieldErrors: ({ context }, params: { error: unknown }) => fieldErrorsOf(params.error, context.fields),
    }),
    clearFieldErrors: assign({ fieldErrors: {} }),
    keyAttempt: assign({ attempt: ({ context }) => actionKey(context.attempt, saveRequestOf(context)) }),
    markConnected: assign({ connected: true, connectionId: (_, params: { connectionId: string }) => params.connectionId }),
    markDisconnected: assign({ connected: false, connectionId: null }),
  },
  guards: {
    isConnected: ({ context }) => context.connected,
    isUpdate: ({ context }) => context.connectionId !== null,
    hasMissingFields: ({ context }) => missingFields(context).length > 0,
  },
}).createMachine({
  id: 'providerConnection',
  description: 'Connect, update or disconnect one provider from its card on the Providers screen.',
  context: ({ input }) => ({
    name: input.name,
    label: input.label,
    connected: input.connected,
    connectionId: null,
    ...forgetForm,
  }),
  initial: 'idle',
  states: {
    idle: {
      initial: 'resolving',
      on: {
        'status.sync': {
          description: 'The screen reloaded the connection status (another tab may have changed it).',
          target: '.resolving',
          actions: { type: 'syncStatus', params: ({ event }) => ({ connected: event.connected }) },
        },
      },
      states: {
        resolving: {
          description: 'Shows the card as connected or not, from the last known status.',
          always: [
            { guard: 'isConnected', target: 'connected', description: 'Connected: Edit and Disconnect.' },
            { target: 'notConnected', description: 'Not connected: Connect.' },
          ],
        },
        notConnected: {
          description: "The card shows 'Connect'.",
          on: {
            'dialog.open': {
              target: '#providerConnection.loadingFields',
              description: "'Connect': the dialog opens and asks which fields the provider needs.",
            },
          },
        },
        connected: {
          description: "The card shows a green 'Connected' mark with 'Edit' and 'Disconnect'.",
          on: {
            'dialog.open': {
              target: '#providerConnection.loadingFields',
              description: "'Edit': the dialog opens with the stored values (secrets masked).",
            },
            'disconnect.request': {
              target: '#providerConnection.confirmingDisconnect',
              description: "'Disconnect': asks for confirmation first.",
            },
          },
        },
      },
    },
    loadingFields: {
      description: 'GET /provider/fields: the dialog opens with a spinner; a stored value comes back as its mask.',
      tags: ['open', 'loading'],
      invoke: {
        id: 'loadFields',
        src: 'loadFields',
        input: ({ context }) => ({ name: context.name }),
        onDone: {
          target: 'editing',
          description: 'The fields arrive: one input each, filled with the stored value or its mask.',
          actions: { type: 'showFields', params: ({ event }) => ({ fields: event.output }) },
        },
        onError: {
          target: 'fieldsFailed',
          description: 'The fields could not be loaded: a toast, and Retry in the dialog.',
          actions: { type: 'notify', params: PROVIDER_TOASTS.fieldsFailed },
        },
      },
      on: {
        'dialog.close': { target: 'idle', description: 'Closed while loading: nothing is kept.', actions: 'forgetForm' },
      },
    },
    fieldsFailed: {
      description: "The dialog stays open with the error and a 'Retry' button.",
      tags: ['open', 'fieldsFailed'],
      on: {
        'fields.retry': { target: 'loadingFields', description: "'Retry': ask for the fields again." },
        'dialog.close': { target: 'idle', description: 'Closed: nothing is kept.', actions: 'forgetForm' },
      },
    },
    editing: {
      description: "'Connect {provider}' or 'Update {provider}': every field is a required text input.",
      tags: ['open', 'editing'],
      on: {
        'field.change': {
          description: 'The user types in a field.',
          actions: { type: 'setValue', params: ({ event }) => ({ name: event.name, value: event.value }) },
        },
        'form.submit': { target: 'validating', description: "'Connect' or 'Update' pressed: check every field is filled." },
        'dialog.close': {
          target: 'idle',
          description: 'Closed or cancelled: the typed credentials are forgotten.',
          actions: 'forgetForm',
        },
      },
    },
    validating: {
      description: "Empty fields: the toast 'Missing information' names them and no call is made.",
      tags: ['open', 'editing'],
      always: [
        {
          guard: 'hasMissingFields',
          target: 'editing',
          description: "Empty fields: the toast 'Missing information' names them, each says so under it; nothing is sent.",
          actions: [{ type: 'notify', params: ({ context }) => PROVIDER_TOASTS.missing(missingFields(context)) }, 'markMissing'],
        },
        {
          target: 'saving',
          description: 'A retry of the same values reuses the Idempotency-Key of the first attempt.',
          actions: ['keyAttempt', 'clearFieldErrors'],
        },
      ],
    },
    saving: {
      description:
        "POST /provider/values (connect) or PUT /provider/{id} (update), the button reads 'Checking…': the server tries the key with the provider first; an untouched mask keeps the stored secret.",
      tags: ['open', 'busy'],
      invoke: {
        id: 'saveConnection',
        src: 'saveConnection',
        input: ({ context }) => ({ ...saveRequestOf(context), idempotencyKey: context.attempt?.key ?? newIdempotencyKey() }),
        onDone: [
          {
            guard: 'isUpdate',
            target: 'idle.connected',
            description:
              "Updated: 'Success' toast (with the warning under it when the provider could not be asked); the dialog closes and the credentials are forgotten.",
            actions: [
              {
                type: 'notify',
                params: ({ context, event }) =>
                  PROVIDER_TOASTS.savedUnchecked(PROVIDER_TOASTS.updated(context.label), event.output.warning),
              },
              'forgetForm',
            ],
          },
          {
            target: 'idle.connected',
            description:
              "Connected: 'Success' toast (with the warning under it when the provider could not be asked); the card shows Connected; the credentials are forgotten.",
            actions: [
              {
                type: 'notify',
                params: ({ context, event }) =>
                  PROVIDER_TOASTS.savedUnchecked(PROVIDER_TOASTS.connected(context.label), event.output.warning),
              },
              { type: 'markConnected', params: ({ event }) => ({ connectionId: event.output.provider._id }) },
              'forgetForm',
            ],
          },
        ],
        onError: [
          {
            description: "The dialog and its input stay; a key the provider refused shows the provider's reason under its field.",
            guard: 'isUpdate',
            target: 'editing',
            actions: [
              { type: 'notify', params: ({ event }) => PROVIDER_TOASTS.updateFailed(serverMessageOf(event.error)) },
              { type: 'showFieldErrors', params: ({ event }) => ({ error: event.error }) },
            ],
          },
          {
            description: "The dialog and its input stay; a key the provider refused shows the provider's reason under its field.",
            target: 'editing',
            actions: [
              { type: 'notify', params: ({ event }) => PROVIDER_TOASTS.connectFailed(serverMessageOf(event.error)) },
              { type: 'showFieldErrors', params: ({ event }) => ({ error: event.error }) },
            ],
          },
        ],
      },
    },
    confirmingDisconnect: {
      description: 'An alert dialog asks to confirm; an outside click does not close it.',
      tags: ['confirming'],
      on: {
        'disconnect.confirm': { target: 'disconnecting', description: 'Confirmed: disconnect.' },
        'disconnect.cancel': { target: 'idle.connected', description: 'Cancelled: nothing changes.' },
      },
    },
    disconnecting: {
      description: 'DELETE /provider/disconnect: the stored secrets are deleted.',
      tags: ['confirming', 'busy'],
      invoke: {
        id: 'disconnect',
        src: 'disconnect',
        input: ({ context }) => ({ name: context.name }),
        onDone: {
          target: 'idle.notConnected',
          description: "Disconnected: 'Success' toast; the card shows Connect again.",
          actions: [{ type: 'notify', params: ({ context }) => PROVIDER_TOASTS.disconnected(context.label) }, 'markDisconnected'],
        },
        onError: {
          description: 'The confirmation stays open.',
          target: 'confirmingDisconnect',
          actions: { type: 'notify', params: ({ event }) => PROVIDER_TOASTS.disconnectFailed(serverMessageOf(event.error)) },
        },
      },
    },
  },
});
