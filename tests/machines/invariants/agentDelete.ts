/** agentDelete: the confirmation; one DELETE of the agent confirmed; success toasts; 404 reloads the list. */
import { expect } from 'vitest';
import { cameFrom, effectsNow, ev, expectPending, onlyRequest, paramsNow } from './lib.js';
import { defineInvariants } from './types.js';

const failed = { title: 'Error', description: 'An error occurred while deleting the agent', variant: 'destructive' };

export default defineInvariants({
  always: (s, w) => {
    expectPending(w, 'deleteAgent', s.matches('deleting') ? 1 : 0);
    expect(s.hasTag('open')).toBe(!s.matches('closed'));
    expect(s.hasTag('busy')).toBe(s.matches('deleting'));
    if (!cameFrom(w, 'deleting')) expect(effectsNow(w)).toEqual([]);
  },
  states: {
    closed: (s, w) => {
      expect(s.context.agent).toBeUndefined();
      if (cameFrom(w, 'deleting')) {
        if (w.event.type.startsWith('xstate.done.')) {
          expect(effectsNow(w)).toEqual(['notify']);
          expect(paramsNow(w, 'notify')).toEqual({
            title: 'Agent deleted',
            description: 'The agent has been deleted successfully.',
          });
        } else {
          expect(ev(w).error.status).toBe(404);
          expect(effectsNow(w)).toEqual(['notify', 'refreshList']);
          expect(paramsNow(w, 'notify')).toEqual(failed);
        }
      }
    },
    confirming: (s, w) => {
      expect(s.context.agent).toBeDefined();
      if (cameFrom(w, 'closed')) expect(s.context.agent).toEqual(ev(w).agent);
      if (cameFrom(w, 'deleting')) {
        expect(s.context.agent).toEqual(w.previous?.context.agent);
        expect(effectsNow(w)).toEqual(['notify']);
        expect(paramsNow(w, 'notify')).toEqual(failed);
      }
    },
    deleting: (s, w) => {
      expect(onlyRequest(w, 'deleteAgent')).toEqual(s.context.agent);
    },
  },
});
