/**
 * settingsForm: load, edit, validate with the contract, save. A page form never closes; a dialog closes
 * on success; a failure keeps what was typed; one request at a time.
 */
import * as v from 'valibot';
import { expect } from 'vitest';
import { cameFrom, effectsNow, ev, expectPending, onlyRequest, paramsNow } from './lib.js';
import { defineInvariants, type Snapshot } from './types.js';

const messageOf = (e: { serverMessage?: string } | undefined, fallback: string) => e?.serverMessage || fallback;

export default defineInvariants({
  always: (s, w) => {
    expectPending(w, 'load', s.matches('loading') ? 1 : 0);
    expectPending(w, 'save', s.matches('saving') ? 1 : 0);
    expect(s.hasTag('open')).toBe(!s.matches('closed'));
    expect(s.hasTag('loading')).toBe(s.matches('loading'));
    expect(s.hasTag('busy')).toBe(s.matches('saving'));
    if (!cameFrom(w, 'saving')) expect(effectsNow(w)).toEqual([]);
    if (w.event.type === 'field.change') {
      expect(s.context.values[ev(w).field]).toBe(ev(w).value);
      expect(s.context.errors[ev(w).field]).toBeFalsy();
    }
    if (w.event.type === 'dialog.close' && w.previous && !w.previous.matches('saving'))
      expect(s.matches('closed')).toBe(Boolean(s.context.dialog));
  },
  states: {
    starting: () => {
      throw new Error('starting decides at once');
    },
    closed: (s, w) => {
      // only a dialog closes
      expect(s.context.dialog).toBe(true);
      if (cameFrom(w, 'saving')) {
        expect(effectsNow(w)).toEqual(['notify']);
        expect(paramsNow(w, 'notify')).toEqual({ title: s.context.savedTitle, description: ev(w).output.msg });
      }
    },
    loading: (_s, w) => {
      expectPending(w, 'load', 1);
    },
    failed: (s, w) => {
      if (cameFrom(w, 'loading'))
        expect(s.context.failure).toBe(messageOf(ev(w).error, 'Could not load these settings. Please try again.'));
    },
    editing: (s, w) => {
      if (cameFrom(w, 'loading')) {
        expect(s.context.values).toEqual(ev(w).output.values);
        expect(s.context.initial).toEqual(ev(w).output.values);
        expect(s.context.note).toBe(ev(w).output.note ?? null);
        expect(s.context.errors).toEqual({});
        expect(s.context.failure).toBeNull();
      }
      if (w.event.type === 'form.reset') {
        expect(s.context.values).toEqual(s.context.initial);
        expect(s.context.errors).toEqual({});
        expect(s.context.failure).toBeNull();
      }
      if (w.event.type === 'form.submit') {
        expect(v.is(s.context.schema, s.context.values)).toBe(false);
        expect(Object.keys(s.context.errors).length).toBeGreaterThan(0);
      }
      if (cameFrom(w, 'saving')) {
        const prev = w.previous as Snapshot;
        expect(effectsNow(w)).toEqual(['notify']);
        if (w.event.type.startsWith('xstate.done.')) {
          expect(s.context.dialog).toBe(false);
          expect(s.context.values).toEqual(ev(w).output.values);
          expect(s.context.initial).toEqual(ev(w).output.values);
          expect(paramsNow(w, 'notify')).toEqual({ title: s.context.savedTitle, description: ev(w).output.msg });
        } else {
          const message = messageOf(ev(w).error, 'Could not save. Please try again.');
          expect(s.context.values).toEqual(prev.context.values);
          expect(s.context.failure).toBe(message);
          expect(s.context.errors).toEqual(ev(w).error?.fieldErrors ?? {});
          expect(paramsNow(w, 'notify')).toEqual({ title: 'Error', description: message, variant: 'destructive' });
        }
      }
    },
    saving: (s, w) => {
      // only a valid form is sent, as the contract parses it
      expect(v.is(s.context.schema, s.context.values)).toBe(true);
      expect(onlyRequest(w, 'save')).toEqual(v.parse(s.context.schema, s.context.values));
      expect(s.context.errors).toEqual({});
      expect(s.context.failure).toBeNull();
    },
  },
});
