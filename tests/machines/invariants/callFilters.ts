/** callFilters: the dialog's choices are a draft until Apply; Apply emits the draft, Clear emits no filters, Cancel nothing. */
import { expect } from 'vitest';
import { cameFrom, ev, expectPending } from './lib.js';
import { defineInvariants } from './types.js';

export default defineInvariants({
  always: (s, w) => {
    expectPending(w, 'loadNumbers', s.matches({ open: 'loadingNumbers' }) ? 1 : 0);
    expect(s.hasTag('open')).toBe(s.matches('open'));
    expect(s.hasTag('loading')).toBe(s.matches({ open: 'loadingNumbers' }));
    expect(s.hasTag('error')).toBe(s.matches({ open: 'failed' }));
    if (!['filters.apply', 'filters.clear'].includes(w.event.type)) expect(w.emittedNow).toEqual([]);
  },
  states: {
    closed: (_s, w) => {
      if (w.event.type === 'filters.apply')
        expect(w.emittedNow).toEqual([{ type: 'filters.applied', filters: w.previous?.context.draft }]);
      if (w.event.type === 'filters.clear')
        expect(w.emittedNow).toEqual([{ type: 'filters.applied', filters: { phoneNumber: '', type: '', status: '' } }]);
    },
    open: (s, w) => {
      if (cameFrom(w, 'closed')) {
        expect(s.context.draft).toEqual(ev(w).filters);
        expect(s.context.error).toBeUndefined();
        expect(s.matches({ open: 'loadingNumbers' })).toBe(true);
      }
      if (w.event.type === 'field.change')
        expect(s.context.draft).toEqual({ ...w.previous?.context.draft, [ev(w).field]: ev(w).value });
    },
    'open.loadingNumbers': (s, w) => {
      // the last list stays offered meanwhile
      if (w.previous) expect(s.context.numbers).toEqual(w.previous.context.numbers);
    },
    'open.ready': (s, w) => {
      expect(s.context.error).toBeUndefined();
      if (cameFrom(w, 'open.loadingNumbers')) expect(s.context.numbers).toEqual(ev(w).output);
    },
    'open.failed': (s, w) => {
      if (cameFrom(w, 'open.loadingNumbers'))
        expect(s.context.error).toBe(ev(w).error?.message || 'Could not load your numbers.');
    },
  },
});
