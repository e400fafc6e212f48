import * as v from 'valibot';
import { assign, fromPromise, setup } from 'xstate';
import { account } from '../api/account';
import { type ContactBody, ContactBodySchema, type ContactResponse } from '../api/contract/account';
import { notify } from './notify';

export type ContactField = keyof ContactBody;

export type ContactEvent =
  | { type: 'dialog.open' }
  | { type: 'dialog.close' }
  | { type: 'field.change'; field: ContactField; value: string }
  | { type: 'form.submit' };

export interface ContactContext {
  values: ContactBody;
  errors: Partial<Record<ContactField, string>>;
}

const emptyForm: ContactContext = { values: { name: '', email: '', message: '' }, errors: {} };

function errorsOf(context: ContactContext): ContactContext['errors'] {
  const issues = v.safeParse(ContactBodySchema, context.values).issues;
  const nested = issues ? (v.flatten<typeof ContactBodySchema>(issues).nested ?? {}) : {};
  return { name: nested.name?.[0], email: nested.email?.[0], message: nested.message?.[0] };
}

/**
 * The landing page's 'Get in Touch' dialog. Submitting sends the message (POST /contact, where the
 * earlier product only logged it) and closes the dialog once the server has it.
 */
export const contactMachine = setup({
  types: {
    context: {} as ContactContext,
    events: {} as ContactEvent,
  },
  actors: {
    sendMessage: fromPromise<ContactResponse, ContactBody>(({ input, signal }) =>
      account.contact(input, { notify: false, signal }),
    ),
  },
  actions: {
    notify,
    setField: assign(({ context }, params: { field: ContactField; value: string }) => ({
      values: { ...context.values, [params.field]: params.value },
      errors: { ...context.errors, [params.field]: undefined },
    })),
    clearErrors: assign({ errors: {} }),
    showErrors: assign({ errors: ({ context }) => errorsOf(context) }),
    clearForm: assign(emptyForm),
  },
  guards: {
    isValid: ({ context }) => v.is(ContactBodySchema, context.values),
  },
}).createMachine({
  id: 'contact',
  description: "The 'Get in Touch' dialog.",
  context: emptyForm,
  initial: 'closed',
  states: {
    closed: {
      on: { 'dialog.open': { target: 'open', description: "'Contact' on the landing page opens the dialog." } },
    },
    open: {
      tags: ['open'],
      on: {
        'dialog.close': { target: 'closed', description: 'Closed: what was typed stays for next time.' },
        'field.change': {
          description: "The user types; that field's error goes.",
          actions: { type: 'setField', params: ({ event }) => ({ field: event.field, value: event.value }) },
        },
        'form.submit': [
          {
            guard: 'isValid',
            target: 'sending',
            description: "'Send Message' with every field valid: send it.",
            actions: 'clearErrors',
          },
          {
            description: 'The browser checks required fields and the email type first; this is the second line.',
            actions: 'showErrors',
          },
        ],
      },
    },
    sending: {
      description: "POST /contact; 'Send Message' shows progress.",
      tags: ['open', 'busy'],
      invoke: {
        id: 'sendMessage',
        src: 'sendMessage',
        input: ({ context }) => v.parse(ContactBodySchema, context.values),
        onDone: {
          target: 'closed',
          description: "Sent: 'Message sent' toast; the dialog closes with an empty form.",
          actions: [
            'clearForm',
            { type: 'notify', params: ({ event }) => ({ title: 'Message sent', description: event.output.msg }) },
          ],
        },
        onError: {
          description: 'The dialog stays open with what was typed.',
          target: 'open',
          actions: {
            type: 'notify',
            params: ({ event }) => ({
              title: 'Error',
              description: event.error instanceof Error ? event.error.message : 'Could not send your message. Please try again.',
              variant: 'destructive' as const,
            }),
          },
        },
      },
    },
  },
});
