/** listQuery: the page in context answers the query; one load at a time, of the current query. */
import { expect } from 'vitest';
import { cameFrom, ev, onlyRequest } from './lib.js';
import { defineInvariants } from './types.js';

export default defineInvariants({
  always: (s, w) => {
    if (!s.matches('loading')) expect(w.pending().length).toBe(0);
    expect(s.hasTag('loading')).toBe(s.matches('loading'));
    expect(s.hasTag('error')).toBe(s.matches('failed'));
    if (w.event.type === 'query.change') {
      expect(s.context.query).toEqual(ev(w).query);
      // the same query again changes nothing
      const same = JSON.stringify(w.previous?.context.query) === JSON.stringify(ev(w).query);
      if (same) expect(s.value).toEqual(w.previous?.value);
      else expect(s.matches('loading')).toBe(true);
    }
    if (w.event.type === 'list.reload') expect(s.matches('loading')).toBe(true);
  },
  states: {
    start: () => {
      throw new Error('start decides at once');
    },
    loading: (s, w) => {
      // the last page stays meanwhile; the request is the current query, and the one before is dropped
      expect(onlyRequest(w, 'loadPage')).toEqual(s.context.query);
      if (w.previous) expect(s.context.page).toEqual(w.previous.context.page);
    },
    ready: (s, w) => {
      expect(s.context.page).toBeDefined();
      expect(s.context.error).toBeUndefined();
      if (cameFrom(w, 'loading')) expect(s.context.page).toEqual(ev(w).output);
      if (w.step === 0) expect(w.started).toEqual([]);
    },
    failed: (s, w) => {
      if (cameFrom(w, 'loading')) {
        const e = ev(w).error;
        expect(s.context.error).toBe(e?.kind ? e.message : 'Could not load the list. Please try again.');
        expect(s.context.page).toEqual(w.previous?.context.page);
      }
    },
  },
});
