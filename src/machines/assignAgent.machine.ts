import { assign, fromPromise, setup } from 'xstate';
import { agents } from '../api/agents';
import {
  assignedAgentOf,
  assignModeOf,
  assignPatch,
  type CallDirection,
  PHONE_MESSAGES,
  PHONE_TEXTS,
  type PhoneNumber,
  type PhoneNumberResponse,
} from '../api/contract/phone';
import { isApiError } from '../api/errors';
import { phone } from '../api/phone';
import type { ToastMessage } from './notify';
import { isGone, phoneEffects } from './phone-effects';

/** What the dialog needs of a number: a row of the Assigned tab. */
export type AssignTarget = Pick<
  PhoneNumber,
  '_id' | 'phone' | 'inbound_agent_id' | 'outbound_agent_id' | 'inbound_agent_name' | 'outbound_agent_name'
>;

/** One agent the dialog offers. */
export interface AgentOption {
  _id: string;
  name: string;
}

/** How many agents one search shows (the company's agents matching the search text). */
export const AGENT_PICK_LIMIT = 20;

/** Spec section 8, verbatim titles. */
export const ASSIGN_TOASTS = {
  updated: (agent: string, direction: CallDirection, phoneNumber: string): ToastMessage => ({
    title: PHONE_TEXTS.agentsUpdated,
    description: `${agent} now handles ${direction} calls on ${phoneNumber}.`,
  }),
  failed: { title: 'Error', description: PHONE_TEXTS.assignFailed, variant: 'destructive' } satisfies ToastMessage,
};

export interface AssignSaveInput {
  id: string;
  body: ReturnType<typeof assignPatch>;
}

export type AssignAgentEvent =
  | { type: 'dialog.open'; number: AssignTarget }
  | { type: 'dialog.close' }
  | { type: 'agent.search'; search: string }
  | { type: 'agent.select'; agent: AgentOption }
  | { type: 'direction.select'; direction: CallDirection }
  | { type: 'agents.retry' }
  | { type: 'form.submit' };

export interface AssignAgentContext {
  number: AssignTarget | undefined;
  /** the chosen agent ('' = none yet) and its name (shown even when the search does not list it) */
  agentId: string;
  agentName: string;
  direction: CallDirection;
  /** the agent search box */
  search: string;
  /** the agents the current search found */
  agents: AgentOption[];
  /** why the agents did not load */
  agentsError: string | undefined;
  /** the message under the agent choice ('Please select an agent', or the server's) */
  error: string | undefined;
}

const closedContext: AssignAgentContext = {
  number: undefined,
  agentId: '',
  agentName: '',
  direction: 'inbound',
  search: '',
  agents: [],
  agentsError: undefined,
  error: undefined,
};

/** The number's current state: its mode, and the agent of that mode. */
function openedContext(n: AssignTarget): AssignAgentContext {
  const direction = assignModeOf(n);
  return {
    ...closedContext,
    number: n,
    direction,
    agentId: assignedAgentOf(n),
    agentName: (direction === 'outbound' ? n.outbound_agent_name : n.inbound_agent_name) ?? '',
  };
}

const messageOf = (error: unknown) => (isApiError(error) ? error.message : 'Could not load the agents. Please try again.');

/** The server's word on the agent fields of a 400 (e.g. 'Agent not found': deleted meanwhile). */
const agentFieldError = (error: unknown) =>
  isApiError(error) ? (error.fieldErrors.inbound_agent_id ?? error.fieldErrors.outbound_agent_id) : undefined;

/**
 * 'Assign Agent to Phone Number', opened from a row of the Assigned tab.
 * The dialog starts from the number: inbound when it has no outbound agent, else outbound, with that
 * direction's agent chosen. The company's agents load at once and again (debounced 300 ms) as the
 * search box changes. Save sends PUT /number/{id} with only the agent ids: the chosen direction set,
 * the other cleared. Success closes and toasts 'Phone number agents updated' (the call invalidates the
 * phone lists, so the table reloads); failure toasts 'Failed to update phone number agent.' and stays.
 */
export const assignAgentMachine = setup({
  types: {
    context: {} as AssignAgentContext,
    events: {} as AssignAgentEvent,
    tags: {} as 'open' | 'busy' | 'agentsLoading' | 'agentsFailed',
  },
  actors: {
    loadAgents: fromPromise<AgentOption[], { search: string }>(async ({ input, signal }) => {
      const r = await agents.list(
        { page: 1, limit: AGENT_PICK_LIMIT, search: input.search || undefined },
        { notify: false, signal },
      );
      return r.data.agents.map((a) => ({ _id: a._id, name: a.agent_name }));
    }),
    saveAssignment: fromPromise<PhoneNumberResponse, AssignSaveInput>(({ input, signal }) =>
      phone.update(input.id, input.body, { notify: false, signal }),
    ),
  },
  actions: {
    ...phoneEffects,
    openFor: assign((_, params: { number: AssignTarget }) => openedContext(params.number)),
    setSearch: assign({ search: (_, params: { search: string }) => params.search }),
    showAgents: assign({ agents: (_, params: { agents: AgentOption[] }) => params.agents, agentsError: undefined }),
    showAgentsFailure: assign({ agentsError: (_, params: { error: unknown }) => messageOf(params.error) }),
    chooseAgent: assign({
      agentId: (_, params: { agent: AgentOption }) => params.agent._id,
      agentName: (_, params: { agent: AgentOption }) => params.agent.name,
      error: undefined,
    }),
    chooseDirection: assign({ direction: (_, params: { direction: CallDirection }) => params.direction }),
    requireAgent: assign({ error: PHONE_MESSAGES.agentRequired }),
    forgetDialog: assign(closedContext),
    showSaveFailure: assign({ error: (_, params: { error: unknown }) => agentFieldError(params.error) }),
  },
  guards: {
    hasAgent: ({ context }) => context.agentId !== '',
    isGone,
  },
  // the pause after the last keystroke before the agents are searched: the route supplies the data table's
  // search debounce with `.provide({ delays: { searchDelay } })`, so the picker waits like every search box
  delays: { searchDelay: 0 },
}).createMachine({
  id: 'assignAgent',
  description: "The 'Assign Agent to Phone Number' dialog of the Assigned Numbers tab.",
  context: closedContext,
  initial: 'closed',
  states: {
    closed: {
      description: 'No dialog on screen.',
      on: {
        'dialog.open': {
          target: 'open',
          description:
            "'Assign Agent' in a row's menu: the form starts from the number (inbound unless it has an outbound agent).",
          actions: { type: 'openFor', params: ({ event }) => ({ number: event.number }) },
        },
      },
    },
    open: {
      type: 'parallel',
      tags: ['open'],
      description: 'The dialog: the agent list (searchable) and the form (agent and direction) side by side.',
      states: {
        agents: {
          description: "The company's agents matching the search box.",
          initial: 'loading',
          on: {
            // no `reenter` here: from the region it would re-enter the whole dialog (the form too, and
            // stop a save under way); `debouncing` restarts its own wait
            'agent.search': {
              target: '.debouncing',
              description: 'Typing in the search box: wait 300 ms for the next key before asking.',
              actions: { type: 'setSearch', params: ({ event }) => ({ search: event.search }) },
            },
          },
          states: {
            debouncing: {
              description: 'Waits for typing to pause.',
              on: {
                'agent.search': {
                  target: 'debouncing',
                  reenter: true,
                  description: 'Another key before the pause: the wait starts over.',
                  actions: { type: 'setSearch', params: ({ event }) => ({ search: event.search }) },
                },
              },
              after: {
                searchDelay: { target: 'loading', description: 'Typing paused: search the agents.' },
              },
            },
            loading: {
              tags: ['agentsLoading'],
              description: 'GET /agent with the search text (first 20 matches).',
              invoke: {
                id: 'loadAgents',
                src: 'loadAgents',
                input: ({ context }) => ({ search: context.search }),
                onDone: {
                  target: 'ready',
                  description: 'The matching agents are listed.',
                  actions: { type: 'showAgents', params: ({ event }) => ({ agents: event.output }) },
                },
                onError: {
                  target: 'failed',
                  description: 'The list shows why, with Retry.',
                  actions: { type: 'showAgentsFailure', params: ({ event }) => ({ error: event.error }) },
                },
              },
            },
            ready: { description: 'The agents are listed (or none matched).' },
            failed: {
              tags: ['agentsFailed'],
              description: 'The agents did not load: the message and a Retry button.',
              on: { 'agents.retry': { target: 'loading', description: 'Retry: ask again.' } },
            },
          },
        },
        form: {
          description: 'The chosen agent and direction, and saving them.',
          initial: 'editing',
          states: {
            editing: {
              description: 'Choosing an agent and a direction.',
              on: {
                'agent.select': {
                  description: 'Picks an agent; its message goes away.',
                  actions: { type: 'chooseAgent', params: ({ event }) => ({ agent: event.agent }) },
                },
                'direction.select': {
                  description: 'Inbound or outbound: the direction the agent will handle.',
                  actions: { type: 'chooseDirection', params: ({ event }) => ({ direction: event.direction }) },
                },
                'form.submit': [
                  { guard: 'hasAgent', target: 'saving', description: 'An agent is chosen: save.' },
                  {
                    description: "No agent chosen: 'Please select an agent'; nothing is sent.",
                    actions: 'requireAgent',
                  },
                ],
                'dialog.close': {
                  target: '#assignAgent.closed',
                  description: 'Cancel, Escape or the close button: nothing is saved.',
                  actions: 'forgetDialog',
                },
              },
            },
            saving: {
              tags: ['busy'],
              description:
                'PUT /number/{id} with the chosen direction set and the other cleared; Save shows a spinner, Cancel waits.',
              invoke: {
                id: 'saveAssignment',
                src: 'saveAssignment',
                input: ({ context }) => ({
                  id: context.number!._id,
                  body: assignPatch({ agent_id: context.agentId, call_type: context.direction }),
                }),
                onDone: {
                  target: '#assignAgent.closed',
                  description: "Saved: the dialog closes, 'Phone number agents updated', the table reloads.",
                  actions: [
                    {
                      type: 'notify',
                      params: ({ context }) => ASSIGN_TOASTS.updated(context.agentName, context.direction, context.number!.phone),
                    },
                    'forgetDialog',
                  ],
                },
                onError: [
                  {
                    guard: { type: 'isGone', params: ({ event }) => ({ error: event.error }) },
                    target: '#assignAgent.closed',
                    description: 'The number was deleted meanwhile: the dialog closes and the table reloads without it.',
                    actions: [{ type: 'notify', params: ASSIGN_TOASTS.failed }, 'refreshList', 'forgetDialog'],
                  },
                  {
                    target: 'editing',
                    description:
                      "'Failed to update phone number agent.'; the dialog stays with the choice (and the server's reason under the agent).",
                    actions: [
                      { type: 'notify', params: ASSIGN_TOASTS.failed },
                      { type: 'showSaveFailure', params: ({ event }) => ({ error: event.error }) },
                    ],
                  },
                ],
              },
            },
          },
        },
      },
    },
  },
});
