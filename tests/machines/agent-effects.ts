import { type Actor, type AnyStateMachine, createActor, fromPromise } from 'xstate';
import type { ToastMessage } from '../../src/api/toast.js';

/**
 * A started actor of one of the Agents page's machines whose promise actor `actorName` answers with
 * `answer`, with its effects recorded: the inputs the actor was called with, the toasts and the list
 * reloads (src/machines/agent-effects.ts).
 */
export function recordingActor<M extends AnyStateMachine, TInput, TOutput>(
  machine: M,
  actorName: string,
  answer: (input: TInput) => Promise<TOutput>,
) {
  const toasts: ToastMessage[] = [];
  const calls: TInput[] = [];
  let refreshes = 0;
  const logic = machine.provide({
    actors: {
      [actorName]: fromPromise<TOutput, TInput>(({ input }) => {
        calls.push(input);
        return answer(input);
      }),
    },
    actions: {
      notify: (_: unknown, t: ToastMessage) => {
        toasts.push(t);
      },
      refreshList: () => {
        refreshes += 1;
      },
    },
  } as Parameters<M['provide']>[0]) as M;
  const actor: Actor<M> = createActor(logic).start();
  return { actor, toasts, calls, refreshes: () => refreshes };
}
