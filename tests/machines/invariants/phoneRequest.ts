/** phoneRequest: one request at a time, for the row pressed; a sent request marks the row 'Requested' once. */
import { expect } from 'vitest';
import { ApiError } from '../../../src/api/errors.js';
import { cameFrom, effectsNow, ev, expectPending, onlyRequest, paramsNow } from './lib.js';
import { defineInvariants } from './types.js';

export default defineInvariants({
  explore: {
    events: {
      'xstate.done.actor.requestNumber': [
        { type: 'xstate.done.actor.requestNumber', output: { success: true, data: { request: { granted: true } } } },
        { type: 'xstate.done.actor.requestNumber', output: { success: true, data: { request: { granted: false } } } },
      ],
      'xstate.error.actor.requestNumber': [
        { type: 'xstate.error.actor.requestNumber', error: new ApiError({ kind: 'http', status: 409, serverMessage: 'Taken' }) },
        { type: 'xstate.error.actor.requestNumber', error: new ApiError({ kind: 'network' }) },
      ],
    },
  },
  always: (s, w) => {
    expectPending(w, 'requestNumber', s.matches('requesting') ? 1 : 0);
    expect(s.hasTag('busy')).toBe(s.matches('requesting'));
    expect(new Set(s.context.requested).size).toBe(s.context.requested.length);
    if (!cameFrom(w, 'requesting')) expect(effectsNow(w)).toEqual([]);
  },
  states: {
    idle: (s, w) => {
      expect(s.context.phone).toBeUndefined();
      if (cameFrom(w, 'requesting')) {
        const phone = w.previous?.context.phone;
        const before = w.previous?.context.requested as string[];
        expect(effectsNow(w)).toEqual(['notify']);
        if (w.event.type.startsWith('xstate.done.')) {
          expect(s.context.requested).toEqual([...before.filter((p) => p !== phone), phone]);
          expect(paramsNow(w, 'notify')).toEqual({
            title: 'Request Sent',
            description: `Request for phone number ${phone} has been sent.${ev(w).output.data.request.granted ? ' It is now under Assigned Numbers.' : ''}`,
          });
        } else {
          expect(s.context.requested).toEqual(before);
          expect(paramsNow(w, 'notify')).toEqual({
            title: 'Failed to request phone number',
            description: ev(w).error?.serverMessage || 'Please try again.',
            variant: 'destructive',
          });
        }
      }
    },
    requesting: (s, w) => {
      expect(onlyRequest(w, 'requestNumber')).toBe(s.context.phone);
      if (cameFrom(w, 'idle')) expect(s.context.phone).toBe(ev(w).phone);
    },
  },
});
