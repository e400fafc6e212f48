import { assign, fromPromise, setup } from 'xstate';
import { batches } from '../api/batches';
import { BATCH_MESSAGES, type BatchResponse } from '../api/contract/batch';
import { isApiError } from '../api/errors';
import { localToIso } from './batchCall.machine';
import { notify } from './notify';

export type BatchAction = 'send' | 'schedule' | 'cancel' | 'pause' | 'resume';

export interface BatchDetailContext {
  batchId: string;
  /** the datetime-local value of the schedule being edited */
  scheduledAt: string;
  /** the action asked or running */
  action: BatchAction | null;
  error: string | null;
}

export type BatchDetailEvent =
  | { type: 'action.ask'; action: 'send' | 'cancel' }
  | { type: 'action.run'; action: 'pause' | 'resume' }
  | { type: 'action.confirm' }
  | { type: 'action.dismiss' }
  | { type: 'schedule.open'; current: string }
  | { type: 'schedule.change'; value: string }
  | { type: 'schedule.submit' }
  | { type: 'schedule.close' };

export interface BatchActInput {
  batchId: string;
  action: BatchAction;
  /** ISO instant, for 'schedule' */
  scheduledAt: string | null;
}

export const BATCH_DETAIL_MESSAGES = {
  failed: 'The batch call could not be changed. Please try again.',
} as const;

/** Why a schedule cannot be used (null = fine): required, a valid date and time, in the future. */
export function scheduleError(local: string, now: number): string | null {
  if (local.trim() === '') return BATCH_MESSAGES.scheduledAtRequired;
  const iso = localToIso(local);
  if (!iso) return BATCH_MESSAGES.scheduledAtInvalid;
  return Date.parse(iso) <= now ? BATCH_MESSAGES.scheduledAtPast : null;
}

/**
 * The detail view's actions on one batch: send a draft now, schedule or reschedule it (a date and time
 * in the future), pause a sending batch and resume a paused one, cancel it. Sending and cancelling ask
 * first; pausing and resuming act at once (both can be undone); a failure comes back to where it started
 * with the server's message.
 */
export const batchDetailMachine = setup({
  types: {
    context: {} as BatchDetailContext,
    events: {} as BatchDetailEvent,
    input: {} as { batchId: string },
    tags: {} as 'busy',
  },
  actors: {
    act: fromPromise<BatchResponse, BatchActInput>(({ input, signal }) => {
      const options = { notify: false, signal };
      if (input.action === 'send') return batches.send(input.batchId, options);
      if (input.action === 'cancel') return batches.cancel(input.batchId, options);
      if (input.action === 'pause') return batches.pause(input.batchId, options);
      if (input.action === 'resume') return batches.resume(input.batchId, options);
      return batches.schedule(input.batchId, input.scheduledAt ?? '', options);
    }),
  },
  actions: {
    notify,
    ask: assign({ action: (_, params: { action: BatchDetailContext['action'] }) => params.action, error: null }),
    openSchedule: assign({
      scheduledAt: (_, params: { current: string }) => params.current,
      action: 'schedule' as const,
      error: null,
    }),
    forgetAction: assign({ action: null, error: null }),
    setSchedule: assign({ scheduledAt: (_, params: { value: string }) => params.value, error: null }),
    showScheduleError: assign({ error: ({ context }) => scheduleError(context.scheduledAt, Date.now()) }),
    showFailure: assign({ error: (_, params: { error: unknown }) => messageOf(params.error) }),
  },
  guards: {
    isScheduleUsable: ({ context }) => scheduleError(context.scheduledAt, Date.now()) === null,
    wasScheduling: ({ context }) => context.action === 'schedule',
  },
}).createMachine({
  id: 'batchDetail',
  description: 'Send, schedule, pause, resume or cancel one batch call from its detail view.',
  context: ({ input }) => ({ batchId: input.batchId, scheduledAt: '', action: null, error: null }),
  initial: 'idle',
  states: {
    idle: {
      description: 'The detail view with its buttons.',
      on: {
        'action.ask': {
          target: 'confirming',
          description: "'Send now' or 'Cancel batch call' pressed: ask first.",
          actions: { type: 'ask', params: ({ event }) => ({ action: event.action }) },
        },
        'action.run': {
          target: 'working',
          description: "'Pause' (a sending batch: calls in progress finish) or 'Resume' (a paused one): at once, no question.",
          actions: { type: 'ask', params: ({ event }) => ({ action: event.action }) },
        },
        'schedule.open': {
          target: 'scheduling',
          description: "'Schedule' or 'Reschedule': the date and time dialog opens with the current schedule.",
          actions: { type: 'openSchedule', params: ({ event }) => ({ current: event.current }) },
        },
      },
    },
    confirming: {
      description: "'Send now' or 'Cancel batch call' asks before it acts.",
      on: {
        'action.confirm': { target: 'working', description: 'Confirmed: do it.' },
        'action.dismiss': { target: 'idle', description: 'Not now: nothing changes.', actions: 'forgetAction' },
      },
    },
    scheduling: {
      description: "A date and time in the future, in the user's time zone.",
      on: {
        'schedule.change': {
          description: 'The user picks another date or time; the error shown goes.',
          actions: { type: 'setSchedule', params: ({ event }) => ({ value: event.value }) },
        },
        'schedule.submit': [
          { guard: 'isScheduleUsable', target: 'working', description: 'A time in the future: schedule.' },
          { description: 'Empty, invalid or past: the dialog says why.', actions: 'showScheduleError' },
        ],
        'schedule.close': { target: 'idle', description: 'Closed: nothing changes.', actions: 'forgetAction' },
      },
    },
    working: {
      description: 'Send, schedule, pause, resume or cancel is asked of the server.',
      tags: ['busy'],
      invoke: {
        id: 'act',
        src: 'act',
        input: ({ context }) => ({
          batchId: context.batchId,
          action: context.action ?? 'send',
          scheduledAt: context.action === 'schedule' ? localToIso(context.scheduledAt) : null,
        }),
        onDone: {
          target: 'idle',
          description: "Done: 'Batch call updated' with the server's message; the view reloads.",
          actions: [
            'forgetAction',
            { type: 'notify', params: ({ event }) => ({ title: 'Batch call updated', description: event.output.msg ?? '' }) },
          ],
        },
        onError: [
          {
            guard: 'wasScheduling',
            description: 'The schedule stays open with its value and the reason.',
            target: 'scheduling',
            actions: { type: 'showFailure', params: ({ event }) => ({ error: event.error }) },
          },
          {
            target: 'idle',
            description: "Send, pause, resume or cancel failed: the server's message in a toast.",
            actions: [
              'forgetAction',
              {
                type: 'notify',
                params: ({ event }) => ({ title: 'Error', description: messageOf(event.error), variant: 'destructive' as const }),
              },
            ],
          },
        ],
      },
    },
  },
});

function messageOf(error: unknown): string {
  return (isApiError(error) && error.serverMessage) || BATCH_DETAIL_MESSAGES.failed;
}
