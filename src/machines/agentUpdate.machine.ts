import * as v from 'valibot';
import { assign, fromPromise, setup } from 'xstate';
import { agents } from '../api/agents';
import {
  AGENT_DIALOG_FIELDS,
  type AgentDialogForm,
  AgentDialogFormSchema,
  agentToDialogForm,
} from '../api/contract/agent/dialog';
import type { AgentListItem, AgentResponse } from '../api/contract/agent/responses';
import { type ActionKey, actionKey, newIdempotencyKey } from '../api/contract/idempotency';
import { isApiError } from '../api/errors';
import { agentEffects } from './agent-effects';
import type { ToastMessage } from './notify';

export type AgentDialogField = keyof AgentDialogForm;
export type AgentDialogErrors = Partial<Record<AgentDialogField, string>>;

/** Spec section 8, verbatim. */
export const AGENT_UPDATE_TOASTS = {
  updated: { title: 'Agent updated', description: 'The agent has been updated successfully.' } satisfies ToastMessage,
  failed: (msg?: string): ToastMessage => ({
    title: 'Error',
    description: msg || 'Failed to update agent',
    variant: 'destructive',
  }),
};

/** The record the dialog edits: a row of the agents list (id, version and the dialog's fields). */
export type AgentDialogRecord = Pick<AgentListItem, '_id' | 'version'> & Partial<AgentDialogForm>;

export interface AgentUpdateInput {
  id: string;
  body: AgentDialogForm & { version?: number };
  /** the same for every attempt of one save (a retry after a lost answer is answered, not refused as stale) */
  idempotencyKey: string;
}

export type AgentUpdateEvent =
  | { type: 'dialog.open'; agent: AgentDialogRecord }
  | { type: 'dialog.close' }
  | { [K in AgentDialogField]: { type: 'field.change'; field: K; value: AgentDialogForm[K] } }[AgentDialogField]
  | { type: 'form.submit' };

export interface AgentUpdateContext {
  agentId: string;
  version: number | undefined;
  values: AgentDialogForm;
  errors: AgentDialogErrors;
  /** the Idempotency-Key of the save being attempted */
  attempt: ActionKey | undefined;
}

const closedContext: AgentUpdateContext = {
  agentId: '',
  version: undefined,
  values: agentToDialogForm({}),
  errors: {},
  attempt: undefined,
};

/** What one Save sends (PUT /agent/{id}): the dialog's fields with the version the row was loaded at. */
const updateRequestOf = (context: AgentUpdateContext) => ({
  id: context.agentId,
  body: { ...v.parse(AgentDialogFormSchema, context.values), version: context.version },
});

/** The first message per field of the dialog form. */
export function dialogErrorsOf(values: AgentDialogForm): AgentDialogErrors {
  const issues = v.safeParse(AgentDialogFormSchema, values).issues;
  if (!issues) return {};
  const nested = v.flatten<typeof AgentDialogFormSchema>(issues).nested ?? {};
  const out: AgentDialogErrors = {};
  for (const k of AGENT_DIALOG_FIELDS) if (nested[k]?.[0]) out[k] = nested[k][0];
  return out;
}

/** Per-field messages of a 400 answer, for the fields the dialog has. */
function serverFieldErrors(error: unknown): AgentDialogErrors {
  if (!isApiError(error)) return {};
  const out: AgentDialogErrors = {};
  for (const k of AGENT_DIALOG_FIELDS) if (error.fieldErrors[k]) out[k] = error.fieldErrors[k];
  return out;
}

/** 404 (deleted meanwhile) or 409 (saved by someone else meanwhile): the row on screen is out of date. */
const isStale = (error: unknown) => isApiError(error) && (error.status === 404 || error.status === 409);

/**
 * The 'Update Agent' dialog of the Agents page. Every open starts from
 * the chosen row (dialog defaults of the specification for anything the row lacks). Save sends the dialog's fields
 * with the row's `version` (PUT /agent/{id}); success closes, toasts and the list reloads (the update
 * invalidates the cached list); a failure keeps the dialog open with the input as typed.
 */
export const agentUpdateMachine = setup({
  types: {
    context: {} as AgentUpdateContext,
    events: {} as AgentUpdateEvent,
  },
  actors: {
    saveAgent: fromPromise<AgentResponse, AgentUpdateInput>(({ input, signal }) =>
      agents.update(input.id, input.body, { notify: false, signal, idempotencyKey: input.idempotencyKey }),
    ),
  },
  actions: {
    ...agentEffects,
    loadRow: assign((_, params: { agent: AgentDialogRecord }) => ({
      agentId: params.agent._id,
      version: params.agent.version,
      values: agentToDialogForm(params.agent),
      errors: {},
      attempt: undefined,
    })),
    forgetDialog: assign(closedContext),
    setField: assign(({ context }, params: { field: AgentDialogField; value: AgentDialogForm[AgentDialogField] }) => ({
      values: { ...context.values, [params.field]: params.value },
      errors: { ...context.errors, [params.field]: undefined },
    })),
    keyAttempt: assign({ errors: {}, attempt: ({ context }) => actionKey(context.attempt, updateRequestOf(context)) }),
    showErrors: assign({ errors: ({ context }) => dialogErrorsOf(context.values) }),
    showServerErrors: assign({ errors: (_, params: { error: unknown }) => serverFieldErrors(params.error) }),
  },
  guards: {
    isValid: ({ context }) => v.is(AgentDialogFormSchema, context.values),
    isStale: (_, params: { error: unknown }) => isStale(params.error),
  },
}).createMachine({
  id: 'agentUpdate',
  description: "The 'Update Agent' dialog: edit a listed agent's voice and call settings.",
  context: closedContext,
  initial: 'closed',
  states: {
    closed: {
      on: {
        'dialog.open': {
          target: 'editing',
          description: 'The form resets from the selected row every time the dialog opens.',
          actions: { type: 'loadRow', params: ({ event }) => ({ agent: event.agent }) },
        },
      },
    },
    editing: {
      tags: ['open'],
      on: {
        'dialog.close': { target: 'closed', description: 'Cancel or Escape: nothing is saved.', actions: 'forgetDialog' },
        'field.change': {
          description: 'The user edits a field; its error goes.',
          actions: { type: 'setField', params: ({ event }) => ({ field: event.field, value: event.value }) },
        },
        'form.submit': [
          {
            guard: 'isValid',
            target: 'saving',
            description: 'A retry of the same save reuses its Idempotency-Key; changed fields get a new one.',
            actions: 'keyAttempt',
          },
          {
            description: "Shows the spec's messages under the fields; nothing is sent.",
            actions: 'showErrors',
          },
        ],
      },
    },
    saving: {
      tags: ['open', 'busy'],
      description: 'PUT /agent/{id} with the fields and the version the row was loaded at.',
      invoke: {
        id: 'saveAgent',
        src: 'saveAgent',
        input: ({ context }) => ({ ...updateRequestOf(context), idempotencyKey: context.attempt?.key ?? newIdempotencyKey() }),
        onDone: {
          target: 'closed',
          description: "Saved: 'Agent updated' toast; the dialog closes and the list reloads.",
          actions: ['forgetDialog', { type: 'notify', params: AGENT_UPDATE_TOASTS.updated }],
        },
        onError: [
          {
            guard: { type: 'isStale', params: ({ event }) => ({ error: event.error }) },
            target: 'editing',
            description:
              'Deleted or changed by someone else meanwhile: the server msg says so, the input stays and the list reloads.',
            actions: [
              {
                type: 'notify',
                params: ({ event }) =>
                  AGENT_UPDATE_TOASTS.failed(isApiError(event.error) ? event.error.serverMessage : undefined),
              },
              'refreshList',
            ],
          },
          {
            target: 'editing',
            description: 'The dialog stays open with the input as typed.',
            actions: [
              { type: 'showServerErrors', params: ({ event }) => ({ error: event.error }) },
              {
                type: 'notify',
                params: ({ event }) =>
                  AGENT_UPDATE_TOASTS.failed(isApiError(event.error) ? event.error.serverMessage : undefined),
              },
            ],
          },
        ],
      },
    },
  },
});
