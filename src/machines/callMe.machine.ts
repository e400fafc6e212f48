import { assign, fromPromise, not, setup } from 'xstate';
import { calls } from '../api/calls';
import { CALL_ME_MESSAGES, E164_PATTERN } from '../api/contract/telephony';
import { isApiError } from '../api/errors';
import { phone } from '../api/phone';

export interface CallMeInput {
  /** the agent being edited; undefined until it is saved */
  agentId: string | undefined;
}

export interface CallMeContext {
  agentId: string | undefined;
  phone: string;
  error: string | null;
  /** the call placed (its detail view) */
  callId: string | null;
}

export type CallMeEvent =
  | { type: 'phone.change'; value: string }
  | { type: 'agent.change'; agentId: string | undefined }
  | { type: 'call.start' };

export interface PlaceCallInput {
  agentId: string;
  to: string;
}

/**
 * The number the call comes from: one of the company's numbers whose agent this is (outbound first),
 * else the company's first number.
 */
async function placeCall({ agentId, to }: PlaceCallInput, signal: AbortSignal): Promise<string> {
  const { data } = await phone.numbers({}, { notify: false, signal });
  const from =
    data.numbers.find((n) => n.outbound_agent_id === agentId) ??
    data.numbers.find((n) => n.inbound_agent_id === agentId) ??
    data.numbers[0];
  if (!from) throw new Error(CALL_ME_MESSAGES.noNumber);
  const res = await calls.create({ from_number: from.phone_number, to_number: to, agent_id: agentId }, { notify: false, signal });
  return res.data.call_id;
}

/**
 * The editor's Call me: a phone number and a button that has the agent being edited call it
 * through the company's phone number (POST /call/create).
 */
export const callMeMachine = setup({
  types: {
    context: {} as CallMeContext,
    events: {} as CallMeEvent,
    input: {} as CallMeInput,
  },
  actors: {
    placeCall: fromPromise<string, PlaceCallInput>(({ input, signal }) => placeCall(input, signal)),
  },
  actions: {
    /** Tell the user (a toast where the machine is created). */
    notify: (_, _params: { title: string; description: string; variant?: 'default' | 'destructive' }) => {},
    editNumber: assign((_, params: { value: string }) => ({ phone: params.value, error: null })),
    switchAgent: assign((_, params: { agentId: string | undefined }) => ({ agentId: params.agentId })),
    askToSaveFirst: assign({ error: CALL_ME_MESSAGES.saveFirst }),
    explainNumberFormat: assign({ error: CALL_ME_MESSAGES.phoneInvalid }),
    rememberCall: assign((_, params: { callId: string }) => ({ callId: params.callId, error: null })),
    showCallError: assign((_, params: { error: unknown }) => ({
      error:
        isApiError(params.error) && params.error.serverMessage
          ? params.error.serverMessage
          : params.error instanceof Error && params.error.message
            ? params.error.message
            : CALL_ME_MESSAGES.failed,
    })),
  },
  guards: {
    isSaved: ({ context }) => context.agentId !== undefined,
    isPhone: ({ context }) => E164_PATTERN.test(context.phone.trim()),
  },
}).createMachine({
  id: 'callMe',
  description: "The agent editor's Call me: a phone number, and a button that has the agent call it.",
  context: ({ input }) => ({ agentId: input.agentId, phone: '', error: null, callId: null }),
  on: {
    'phone.change': {
      description: 'The number is edited: any earlier message goes.',
      actions: { type: 'editNumber', params: ({ event }) => ({ value: event.value }) },
    },
    'agent.change': {
      description: 'The agent was saved (or another one opened).',
      actions: { type: 'switchAgent', params: ({ event }) => ({ agentId: event.agentId }) },
    },
  },
  initial: 'idle',
  states: {
    idle: {
      description: 'Waiting for a number and a click.',
      on: {
        'call.start': [
          {
            guard: not('isSaved'),
            description: 'An unsaved agent cannot place calls.',
            actions: 'askToSaveFirst',
          },
          {
            guard: not('isPhone'),
            description: 'Not a phone number: say how to write it.',
            actions: 'explainNumberFormat',
          },
          { target: 'placing', description: 'Place the call.' },
        ],
      },
    },
    placing: {
      description: 'The call is being placed through the carrier.',
      tags: ['busy'],
      on: {
        // the call in flight is for the number and agent it was placed with: its toast names that number
        'phone.change': { description: 'The number cannot change while its call is being placed.' },
        'agent.change': { description: 'The agent cannot change while its call is being placed.' },
      },
      invoke: {
        src: 'placeCall',
        input: ({ context }) => ({ agentId: context.agentId as string, to: context.phone.trim() }),
        onDone: {
          target: 'idle',
          description: 'The carrier is dialling: the phone will ring.',
          actions: [
            { type: 'rememberCall', params: ({ event }) => ({ callId: event.output }) },
            {
              type: 'notify',
              params: ({ context }) => ({ title: 'Call placed', description: CALL_ME_MESSAGES.calling(context.phone.trim()) }),
            },
          ],
        },
        onError: {
          target: 'idle',
          description: 'The call could not be placed: the reason is shown under the field.',
          actions: { type: 'showCallError', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
  },
});
