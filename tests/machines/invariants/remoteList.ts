/** remoteList: one request at a time; a failed refresh keeps the last answer; Retry only after a failure. */
import { expect } from 'vitest';
import { cameFrom, ev, expectPending } from './lib.js';
import { defineInvariants } from './types.js';

const requests = (w: Parameters<NonNullable<Parameters<typeof defineInvariants>[0]['always']>>[1]) =>
  w.pending().filter((r) => r.src === 'load').length;

export default defineInvariants({
  always: (s, w) => {
    expect(requests(w)).toBe(s.matches('loading') || s.matches('refreshing') ? 1 : 0);
    expect(s.hasTag('loading')).toBe(s.matches('loading'));
    expect(s.hasTag('refreshing')).toBe(s.matches('refreshing'));
    expect(s.hasTag('failed')).toBe(s.matches('failed'));
  },
  states: {
    loading: (s, w) => {
      expectPending(w, 'load', 1);
      if (w.step === 0) expect(s.context).toEqual({ data: undefined, error: undefined });
    },
    failed: (s, w) => {
      expect(typeof s.context.error).toBe('string');
      if (cameFrom(w, 'loading')) expect(s.context.error).toBe(ev(w).error?.message ?? String(ev(w).error));
    },
    loaded: (s, w) => {
      if (w.event.type.startsWith('xstate.done.')) {
        expect(s.context.data).toEqual(ev(w).output);
        expect(s.context.error).toBeUndefined();
      }
      if (w.event.type.startsWith('xstate.error.')) {
        // the last answer stays, with why the refresh failed
        expect(s.context.data).toEqual(w.previous?.context.data);
        expect(s.context.error).toBe(ev(w).error?.message ?? String(ev(w).error));
      }
      if (w.event.type.startsWith('xstate.after.')) throw new Error('a timer fired without moving on');
    },
    refreshing: (s, w) => {
      // the last answer stays on screen while asking again
      if (w.previous) expect(s.context.data).toEqual(w.previous.context.data);
      if (w.event.type.startsWith('xstate.after.')) expect(s.context.data).toBe('changing');
      if (w.event.type === 'list.reload' && cameFrom(w, 'refreshing')) expect(w.startedNow.length).toBe(1);
    },
  },
});
