/** phoneNumberDelete: 'Confirm Deletion'; one DELETE of the number confirmed; 404 reloads the table. */
import { expect } from 'vitest';
import { cameFrom, effectsNow, ev, expectPending, onlyRequest, paramsNow } from './lib.js';
import { defineInvariants } from './types.js';

const failed = { title: 'Error', description: 'An error occurred while deleting the phone number', variant: 'destructive' };

export default defineInvariants({
  explore: {
    events: {
      'xstate.done.actor.deleteNumber': [
        { type: 'xstate.done.actor.deleteNumber', output: { success: true, data: { released: true } } },
        { type: 'xstate.done.actor.deleteNumber', output: { success: true, data: { released: false } } },
      ],
    },
  },
  always: (s, w) => {
    expectPending(w, 'deleteNumber', s.matches('deleting') ? 1 : 0);
    expect(s.hasTag('open')).toBe(!s.matches('closed'));
    expect(s.hasTag('busy')).toBe(s.matches('deleting'));
    if (!cameFrom(w, 'deleting')) expect(effectsNow(w)).toEqual([]);
  },
  states: {
    closed: (s, w) => {
      expect(s.context.number).toBeUndefined();
      if (cameFrom(w, 'deleting')) {
        const n = w.previous?.context.number;
        if (w.event.type.startsWith('xstate.done.')) {
          expect(effectsNow(w)).toEqual(['notify']);
          expect(paramsNow(w, 'notify')).toEqual({
            title: 'Phone number deleted',
            description: ev(w).output.data.released
              ? `${n.phone} went back to the available numbers.`
              : `${n.phone} has been removed from your account.`,
          });
        } else {
          expect(ev(w).error.status).toBe(404);
          expect(effectsNow(w)).toEqual(['notify', 'refreshList']);
          expect(paramsNow(w, 'notify')).toEqual(failed);
        }
      }
    },
    confirming: (s, w) => {
      expect(s.context.number).toBeDefined();
      if (cameFrom(w, 'closed')) expect(s.context.number).toEqual(ev(w).number);
      if (cameFrom(w, 'deleting')) {
        expect(s.context.number).toEqual(w.previous?.context.number);
        expect(effectsNow(w)).toEqual(['notify']);
        expect(paramsNow(w, 'notify')).toEqual(failed);
      }
    },
    deleting: (s, w) => {
      expect(onlyRequest(w, 'deleteNumber')).toEqual(s.context.number);
    },
  },
});
