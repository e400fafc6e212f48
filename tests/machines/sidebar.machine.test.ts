import { describe, expect, it, vi } from 'vitest';
import { createActor } from 'xstate';
import { sidebarMachine } from '../../src/machines/sidebar.machine.js';
import { describeModel } from './harness.js';

describeModel('sidebar', sidebarMachine, { inputs: [{}, { open: false }] });

describe('sidebar persistence', () => {
  it('remembers every change through the persist action', () => {
    const persist = vi.fn();
    const actor = createActor(sidebarMachine.provide({ actions: { persist: (_, params) => persist(params) } }), {
      input: {},
    }).start();
    expect(actor.getSnapshot().value).toBe('open');
    actor.send({ type: 'sidebar.toggle' });
    actor.send({ type: 'sidebar.open' });
    actor.send({ type: 'sidebar.collapse' });
    expect(persist.mock.calls).toEqual([[{ open: false }], [{ open: true }], [{ open: false }]]);
    expect(actor.getSnapshot().value).toBe('collapsed');
  });

  it('ignores events that do not apply to the current state', () => {
    const actor = createActor(sidebarMachine, { input: { open: false } }).start();
    expect(actor.getSnapshot().can({ type: 'sidebar.collapse' })).toBe(false);
    actor.send({ type: 'sidebar.collapse' });
    expect(actor.getSnapshot().value).toBe('collapsed');
  });
});
