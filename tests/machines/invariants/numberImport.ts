/** numberImport: one listing per open, ticks only on importable numbers, one import of exactly the ticked ones. */
import { expect } from 'vitest';
import { ApiError } from '../../../src/api/errors.js';
import { cameFrom, effectsNow, ev, expectPending, onlyRequest, paramsNow } from './lib.js';
import { defineInvariants } from './types.js';

const numbers = [
  { phone_number: '+14155550101', friendly_name: 'Front desk', voice: true, in_parley: false },
  { phone_number: '+14155550102', friendly_name: 'Fax', voice: false, in_parley: false },
  { phone_number: '+14155550103', friendly_name: 'Old line', voice: true, in_parley: true },
];

export default defineInvariants({
  explore: {
    events: {
      'dialog.open': [
        { type: 'dialog.open', provider: 'twilio' },
        { type: 'dialog.open', provider: 'plivo' },
      ],
      'number.toggle': numbers.map((n) => ({ type: 'number.toggle', phone: n.phone_number })),
      'xstate.done.actor.listNumbers': [
        { type: 'xstate.done.actor.listNumbers', output: numbers },
        { type: 'xstate.done.actor.listNumbers', output: [] },
      ],
      'xstate.error.actor.listNumbers': [
        {
          type: 'xstate.error.actor.listNumbers',
          error: new ApiError({
            kind: 'http',
            status: 400,
            serverMessage: 'Connect Twilio on the Providers page to import its numbers.',
            link: '/dashboard/providers',
          }),
        },
        { type: 'xstate.error.actor.listNumbers', error: new ApiError({ kind: 'network' }) },
      ],
      'xstate.done.actor.importNumbers': [
        {
          type: 'xstate.done.actor.importNumbers',
          output: { success: true, msg: '1 number imported', data: { numbers: [{ _id: 'n1' }] } },
        },
      ],
      'xstate.error.actor.importNumbers': [
        {
          type: 'xstate.error.actor.importNumbers',
          error: new ApiError({ kind: 'http', status: 502, serverMessage: 'Twilio answered 500.' }),
        },
      ],
    },
  },
  always: (s, w) => {
    expectPending(w, 'listNumbers', s.matches('loading') ? 1 : 0);
    expectPending(w, 'importNumbers', s.matches('importing') ? 1 : 0);
    expect(s.hasTag('open')).toBe(!s.matches('closed'));
    expect(s.hasTag('busy')).toBe(s.matches('loading') || s.matches('importing'));
    // only importable numbers are ever ticked, in the listing's order
    const ctx = s.context as { numbers: typeof numbers; selected: string[] };
    const importable = ctx.numbers.filter((n) => n.voice && !n.in_parley).map((n) => n.phone_number);
    expect(ctx.selected.every((p) => importable.includes(p))).toBe(true);
    expect(ctx.selected).toEqual(importable.filter((p) => ctx.selected.includes(p)));
    if (!cameFrom(w, 'importing')) expect(effectsNow(w).filter((e) => e === 'notify')).toEqual([]);
  },
  states: {
    closed: (_s, w) => {
      if (cameFrom(w, 'importing')) {
        expect(paramsNow(w, 'notify')).toEqual({ title: 'Numbers imported', description: '1 number imported.' });
      }
    },
    loading: (s, w) => {
      expect(onlyRequest(w, 'listNumbers')).toBe(s.context.provider);
      expect(s.context.error).toBeNull();
      if (w.event.type === 'dialog.open') {
        expect(s.context.provider).toBe(ev(w).provider);
        expect(s.context.selected).toEqual([]);
        expect(s.context.numbers).toEqual([]);
      }
    },
    loadFailed: (s, w) => {
      expect(s.context.error).toBeTruthy();
      if (cameFrom(w, 'loading')) {
        const e = ev(w).error as ApiError;
        expect(s.context.error).toBe(e.serverMessage || e.message);
        expect(s.context.errorLink).toBe(e.link ?? null);
      }
    },
    choosing: (s, w) => {
      if (cameFrom(w, 'loading')) expect(s.context.numbers).toEqual(ev(w).output);
      if (cameFrom(w, 'importing')) {
        // the ticks are kept, and the reason said
        expect(s.context.selected).toEqual(w.previous?.context.selected);
        expect(s.context.error).toBe(ev(w).error.serverMessage);
      }
    },
    importing: (s, w) => {
      expect(s.context.selected.length).toBeGreaterThan(0);
      expect(onlyRequest(w, 'importNumbers')).toEqual({
        provider: s.context.provider,
        selected: s.context.selected,
      });
    },
  },
});
