import { describe, expect, it, vi } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { POLL_DELAY_MS, remoteListMachine } from '../../src/machines/remoteList.machine.js';
import { describeModel } from './harness.js';

describeModel('remoteList', remoteListMachine, {
  implementations: { guards: { needsPolling: ({ context }: { context: { data: unknown } }) => context.data === 'changing' } },
  serializeState: (s) => JSON.stringify([s.value, s.context.data ?? null, s.context.error !== undefined]),
  events: {
    'xstate.done.actor.load': [
      { type: 'xstate.done.actor.load', output: 'changing' },
      { type: 'xstate.done.actor.load', output: 'settled' },
    ],
    'xstate.done.actor.reload': [{ type: 'xstate.done.actor.reload', output: 'settled' }],
  },
});

describe('remoteList behaviour', () => {
  it('polls while the answer says it is changing, keeps the last answer when a refresh fails, and retries', async () => {
    vi.useFakeTimers();
    const answers: (() => Promise<string>)[] = [
      () => Promise.reject(new Error('Failed to load voices')),
      () => Promise.resolve('changing'),
      () => Promise.reject(new Error('offline')),
      () => Promise.resolve('settled'),
    ];
    let calls = 0;
    const actor = createActor(
      remoteListMachine.provide({
        actors: {
          load: fromPromise<unknown>(() => {
            calls++;
            return (answers.shift() as () => Promise<string>)();
          }),
        },
        guards: { needsPolling: ({ context }) => context.data === 'changing' },
      }),
    ).start();
    await vi.advanceTimersByTimeAsync(0);
    expect(actor.getSnapshot().hasTag('failed')).toBe(true);
    expect(actor.getSnapshot().context.error).toBe('Failed to load voices');
    actor.send({ type: 'list.retry' });
    await vi.advanceTimersByTimeAsync(0);
    expect(actor.getSnapshot().context.data).toBe('changing');
    await vi.advanceTimersByTimeAsync(POLL_DELAY_MS);
    expect(actor.getSnapshot().matches('loaded')).toBe(true);
    expect(actor.getSnapshot().context).toEqual({ data: 'changing', error: 'offline' });
    await vi.advanceTimersByTimeAsync(POLL_DELAY_MS);
    expect(actor.getSnapshot().context).toEqual({ data: 'settled', error: undefined });
    await vi.advanceTimersByTimeAsync(POLL_DELAY_MS * 5);
    expect(calls).toBe(4);
    actor.stop();
    vi.useRealTimers();
  });
});
