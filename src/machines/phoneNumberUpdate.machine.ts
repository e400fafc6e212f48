import * as v from 'valibot';
import { assign, fromPromise, setup } from 'xstate';
import {
  PHONE_TEXTS,
  type PhoneNumber,
  type PhoneNumberResponse,
  PhoneNumberUpdateBodySchema,
  type PhoneNumberUpdateInput,
} from '../api/contract/phone';
import { isApiError, serverMessageOf } from '../api/errors';
import { phone } from '../api/phone';
import type { ToastMessage } from './notify';
import { isGone, phoneEffects } from './phone-effects';

/**
 * The fields the 'Update Phone Number' dialog edits, as typed. The agents are
 * set with 'Assign Agent'; accountId and companyId are shown read-only and never sent.
 */
export const PHONE_FORM_FIELDS = [
  'phone_number',
  'phone_number_type',
  'phone_number_pretty',
  'termination_uri',
  'nickname',
  'assistantId',
  'area_code',
] as const;
export type PhoneFormField = (typeof PHONE_FORM_FIELDS)[number];
export type PhoneFormValues = Record<PhoneFormField, string>;
export type PhoneFormErrors = Partial<Record<PhoneFormField, string>>;

/** Spec section 8, verbatim. */
export const PHONE_UPDATE_TOASTS = {
  updated: (phoneNumber: string): ToastMessage => ({
    title: PHONE_TEXTS.updated,
    description: `${phoneNumber} has been saved.`,
  }),
  failed: (msg?: string): ToastMessage => ({
    title: 'Error',
    description: msg || PHONE_TEXTS.updateFailed,
    variant: 'destructive',
  }),
};

const emptyForm: PhoneFormValues = {
  phone_number: '',
  phone_number_type: '',
  phone_number_pretty: '',
  termination_uri: '',
  nickname: '',
  assistantId: '',
  area_code: '',
};

/** The form's starting values: the selected number (the specification: the form resets from the record on open). */
export const phoneFormOf = (n: PhoneNumber): PhoneFormValues => ({
  phone_number: n.phone_number,
  phone_number_type: n.phone_number_type,
  phone_number_pretty: n.phone_number_pretty,
  termination_uri: n.termination_uri,
  nickname: n.nickname,
  assistantId: n.assistantId,
  area_code: n.area_code === null ? '' : String(n.area_code),
});

/** The first message per field (its messages come from the shared contract). */
export function phoneFormErrorsOf(values: PhoneFormValues): PhoneFormErrors {
  return fieldErrorsOf(v.safeParse(PhoneNumberUpdateBodySchema, values).issues);
}

function fieldErrorsOf(issues: v.SafeParseResult<typeof PhoneNumberUpdateBodySchema>['issues']): PhoneFormErrors {
  if (!issues) return {};
  const nested: Record<string, string[] | undefined> = v.flatten(issues).nested ?? {};
  const out: PhoneFormErrors = {};
  for (const k of PHONE_FORM_FIELDS) if (nested[k]?.[0]) out[k] = nested[k][0];
  return out;
}

/** Per-field messages of a 400/409 answer (e.g. a pool number's number cannot change). */
function serverFieldErrors(error: unknown): PhoneFormErrors {
  if (!isApiError(error)) return {};
  const out: PhoneFormErrors = {};
  for (const k of PHONE_FORM_FIELDS) if (error.fieldErrors[k]) out[k] = error.fieldErrors[k];
  return out;
}

export interface PhoneUpdateInput {
  id: string;
  body: PhoneNumberUpdateInput;
}

export type PhoneNumberUpdateEvent =
  | { type: 'dialog.open'; number: PhoneNumber }
  | { type: 'dialog.close' }
  | { type: 'field.change'; field: PhoneFormField; value: string }
  | { type: 'form.submit' };

export interface PhoneNumberUpdateContext {
  number: PhoneNumber | undefined;
  values: PhoneFormValues;
  errors: PhoneFormErrors;
}

const closedContext: PhoneNumberUpdateContext = { number: undefined, values: emptyForm, errors: {} };

/**
 * 'Update Phone Number': edit an assigned number's settings. Save
 * checks section 5's rules ('Invalid phone number', 'Phone number type is required', ...) before
 * anything is sent, then PUT /number/{id}; success closes, toasts 'Phone number updated' and the
 * table reloads (the call invalidates the phone lists); a failure toasts 'Failed to update phone
 * number' (or the server's msg) and keeps the input.
 */
export const phoneNumberUpdateMachine = setup({
  types: {
    context: {} as PhoneNumberUpdateContext,
    events: {} as PhoneNumberUpdateEvent,
    tags: {} as 'open' | 'busy',
  },
  actors: {
    saveNumber: fromPromise<PhoneNumberResponse, PhoneUpdateInput>(({ input, signal }) =>
      phone.update(input.id, input.body, { notify: false, signal }),
    ),
  },
  actions: {
    ...phoneEffects,
    loadRow: assign((_, params: { number: PhoneNumber }) => ({
      number: params.number,
      values: phoneFormOf(params.number),
      errors: {},
    })),
    forgetDialog: assign(closedContext),
    setField: assign(({ context }, params: { field: string; value: unknown }) => ({
      values: { ...context.values, [params.field]: params.value },
      errors: { ...context.errors, [params.field]: undefined },
    })),
    clearErrors: assign({ errors: {} }),
    showErrors: assign({ errors: ({ context }) => phoneFormErrorsOf(context.values) }),
    showServerErrors: assign({ errors: (_, params: { error: unknown }) => serverFieldErrors(params.error) }),
  },
  guards: {
    isValid: ({ context }) => v.is(PhoneNumberUpdateBodySchema, context.values),
    isGone,
  },
}).createMachine({
  id: 'phoneNumberUpdate',
  description: "The 'Update Phone Number' dialog of the Assigned Numbers tab.",
  context: closedContext,
  initial: 'closed',
  states: {
    closed: {
      description: 'No dialog on screen.',
      on: {
        'dialog.open': {
          target: 'editing',
          description: "'Edit' in a row's menu: the form resets from that number every time.",
          actions: { type: 'loadRow', params: ({ event }) => ({ number: event.number }) },
        },
      },
    },
    editing: {
      tags: ['open'],
      description: 'The form, with accountId and companyId shown read-only.',
      on: {
        'dialog.close': {
          target: 'closed',
          description: 'Cancel, Escape or the close button: nothing is saved.',
          actions: 'forgetDialog',
        },
        'field.change': {
          description: 'Typing in a field clears its message.',
          actions: { type: 'setField', params: ({ event }) => ({ field: event.field, value: event.value }) },
        },
        'form.submit': [
          { guard: 'isValid', target: 'saving', description: 'Every rule holds: save.', actions: 'clearErrors' },
          {
            description: "Section 5's messages appear under the fields; nothing is sent.",
            actions: 'showErrors',
          },
        ],
      },
    },
    saving: {
      tags: ['open', 'busy'],
      description: 'PUT /number/{id} with the form; Save shows a spinner, Cancel waits.',
      invoke: {
        id: 'saveNumber',
        src: 'saveNumber',
        input: ({ context }) => ({ id: context.number!._id, body: { ...context.values } }),
        onDone: {
          target: 'closed',
          description: "Saved: the dialog closes, 'Phone number updated', the table reloads.",
          actions: [
            { type: 'notify', params: ({ event }) => PHONE_UPDATE_TOASTS.updated(event.output.data.number.phone_number_pretty) },
            'forgetDialog',
          ],
        },
        onError: [
          {
            guard: { type: 'isGone', params: ({ event }) => ({ error: event.error }) },
            target: 'closed',
            description: 'The number was deleted meanwhile: the dialog closes and the table reloads without it.',
            actions: [
              {
                type: 'notify',
                params: ({ event }) => PHONE_UPDATE_TOASTS.failed(serverMessageOf(event.error)),
              },
              'refreshList',
              'forgetDialog',
            ],
          },
          {
            target: 'editing',
            description: "The dialog stays with the input as typed, and the server's per-field messages.",
            actions: [
              {
                type: 'notify',
                params: ({ event }) => PHONE_UPDATE_TOASTS.failed(serverMessageOf(event.error)),
              },
              { type: 'showServerErrors', params: ({ event }) => ({ error: event.error }) },
            ],
          },
        ],
      },
    },
  },
});
