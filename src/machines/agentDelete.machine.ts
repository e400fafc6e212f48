import { assign, fromPromise, setup } from 'xstate';
import { agents } from '../api/agents';
import type { AgentDeleteResponse } from '../api/contract/agent/responses';
import { isApiError } from '../api/errors';
import { agentEffects } from './agent-effects';
import type { ToastMessage } from './notify';

/** Spec section 8, verbatim. */
export const AGENT_DELETE_TOASTS = {
  deleted: { title: 'Agent deleted', description: 'The agent has been deleted successfully.' } satisfies ToastMessage,
  failed: {
    title: 'Error',
    description: 'An error occurred while deleting the agent',
    variant: 'destructive',
  } satisfies ToastMessage,
};

export interface AgentDeleteTarget {
  _id: string;
  name: string;
}

export type AgentDeleteEvent =
  | { type: 'dialog.open'; agent: AgentDeleteTarget }
  | { type: 'dialog.close' }
  | { type: 'delete.confirm' };

export interface AgentDeleteContext {
  agent: AgentDeleteTarget | undefined;
}

/**
 * Deleting an agent: Delete in a row's menu asks for confirmation in an
 * alert dialog that an outside click does not close. Confirm reads 'Deleting...' while DELETE
 * /agent/{id} runs; success closes, toasts and the list reloads (the delete invalidates the cached
 * list); a failure toasts and keeps the dialog open to try again or cancel.
 */
export const agentDeleteMachine = setup({
  types: {
    context: {} as AgentDeleteContext,
    events: {} as AgentDeleteEvent,
  },
  actors: {
    deleteAgent: fromPromise<AgentDeleteResponse, AgentDeleteTarget>(({ input, signal }) =>
      agents.remove(input._id, { notify: false, signal }),
    ),
  },
  actions: {
    ...agentEffects,
    choose: assign({ agent: (_, params: { agent: AgentDeleteTarget }) => params.agent }),
    forget: assign({ agent: undefined }),
  },
  guards: {
    isGone: (_, params: { error: unknown }) => isApiError(params.error) && params.error.status === 404,
  },
}).createMachine({
  id: 'agentDelete',
  description: "The delete confirmation of the Agents page's row menu.",
  context: { agent: undefined },
  initial: 'closed',
  states: {
    closed: {
      on: {
        'dialog.open': {
          target: 'confirming',
          description: "'Delete' in a row's menu: asks to confirm, naming the agent.",
          actions: { type: 'choose', params: ({ event }) => ({ agent: event.agent }) },
        },
      },
    },
    confirming: {
      tags: ['open'],
      on: {
        'dialog.close': { target: 'closed', description: 'Cancel or Escape: nothing is deleted.', actions: 'forget' },
        'delete.confirm': { target: 'deleting', description: 'Confirm: delete the agent.' },
      },
    },
    deleting: {
      tags: ['open', 'busy'],
      description: "DELETE /agent/{id}; Confirm reads 'Deleting...' and Cancel is disabled.",
      invoke: {
        id: 'deleteAgent',
        src: 'deleteAgent',
        input: ({ context }) => context.agent!,
        onDone: {
          target: 'closed',
          description: "Deleted: 'Agent deleted' toast; the list reloads without it.",
          actions: ['forget', { type: 'notify', params: AGENT_DELETE_TOASTS.deleted }],
        },
        onError: [
          {
            guard: { type: 'isGone', params: ({ event }) => ({ error: event.error }) },
            target: 'closed',
            description: 'Someone else deleted it already: nothing left to confirm; the list reloads without it.',
            actions: ['forget', { type: 'notify', params: AGENT_DELETE_TOASTS.failed }, 'refreshList'],
          },
          {
            target: 'confirming',
            description: 'The dialog stays open to try again or cancel.',
            actions: { type: 'notify', params: AGENT_DELETE_TOASTS.failed },
          },
        ],
      },
    },
  },
});
