import { afterEach, describe, expect, it, vi } from 'vitest';
import { type AnyMachineSnapshot, createActor } from 'xstate';
import { TOAST_DEFAULT_DURATION, TOAST_REMOVE_DELAY, toasterMachine } from '../../src/machines/toaster.machine.js';
import { describeModel, stableStringify } from './harness.js';

/** The graph abstracts the id counter away: what matters is which toasts exist and whether they are open. */
const serializeState = (s: AnyMachineSnapshot) =>
  stableStringify({ value: s.value, toasts: s.context.toasts.map((t: { id: string; open: boolean }) => [t.id, t.open]) });

describeModel('toaster', toasterMachine, {
  serializeState,
  events: {
    'toast.show': [
      { type: 'toast.show', toast: { id: 'saved', title: 'Agent saved' } },
      { type: 'toast.show', toast: { id: 'failed', title: 'Could not save', variant: 'destructive', duration: 0 } },
    ],
    'toast.dismiss': [{ type: 'toast.dismiss', id: 'saved' }, { type: 'toast.dismiss' }],
    'toast.remove': [{ type: 'toast.remove', id: 'saved' }, { type: 'toast.remove' }],
  },
});

describe('toaster timers', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('dismisses after 5000 ms by default and removes the dismissed toast after 1,000,000 ms', () => {
    vi.useFakeTimers();
    const actor = createActor(toasterMachine).start();
    actor.send({ type: 'toast.show', toast: { title: 'Saved' } });
    const open = () => actor.getSnapshot().context.toasts.map((t) => t.open);
    expect(open()).toEqual([true]);
    vi.advanceTimersByTime(TOAST_DEFAULT_DURATION - 1);
    expect(open()).toEqual([true]);
    vi.advanceTimersByTime(1);
    expect(open()).toEqual([false]);
    expect(actor.getSnapshot().matches('idle')).toBe(true);
    vi.advanceTimersByTime(TOAST_REMOVE_DELAY - 1);
    expect(open()).toEqual([false]);
    vi.advanceTimersByTime(1);
    expect(open()).toEqual([]);
    actor.stop();
  });

  it('shows at most one toast: a new one replaces the current', () => {
    const actor = createActor(toasterMachine).start();
    actor.send({ type: 'toast.show', toast: { title: 'First' } });
    actor.send({ type: 'toast.show', toast: { title: 'Second', variant: 'destructive' } });
    expect(actor.getSnapshot().context.toasts.map((t) => [t.title, t.variant])).toEqual([['Second', 'destructive']]);
    actor.stop();
  });
});
