/** phoneNumberUpdate: 'Update Phone Number'; the form resets from the row; one PUT of the valid form; 404 closes and reloads. */
import { expect } from 'vitest';
import { cameFrom, effectsNow, ev, expectPending, onlyRequest, paramsNow } from './lib.js';
import { defineInvariants, type Snapshot } from './types.js';

const failed = (msg?: string) => ({
  title: 'Error',
  description: msg || 'Failed to update phone number',
  variant: 'destructive',
});

export default defineInvariants({
  always: (s, w) => {
    expectPending(w, 'saveNumber', s.matches('saving') ? 1 : 0);
    expect(s.hasTag('open')).toBe(!s.matches('closed'));
    expect(s.hasTag('busy')).toBe(s.matches('saving'));
    if (!cameFrom(w, 'saving')) expect(effectsNow(w)).toEqual([]);
    if (w.event.type === 'field.change') {
      expect(s.context.values[ev(w).field]).toBe(ev(w).value);
      expect(s.context.errors[ev(w).field]).toBeUndefined();
    }
  },
  states: {
    closed: (s, w) => {
      expect(s.context.number).toBeUndefined();
      expect(s.context.errors).toEqual({});
      expect(Object.values(s.context.values).every((v) => v === '')).toBe(true);
      if (cameFrom(w, 'saving')) {
        if (w.event.type.startsWith('xstate.done.')) {
          expect(effectsNow(w)).toEqual(['notify']);
          expect(paramsNow(w, 'notify')).toEqual({
            title: 'Phone number updated',
            description: `${ev(w).output.data.number.phone_number_pretty} has been saved.`,
          });
        } else {
          expect(ev(w).error.status).toBe(404);
          expect(effectsNow(w)).toEqual(['notify', 'refreshList']);
          expect(paramsNow(w, 'notify')).toEqual(failed(ev(w).error.serverMessage));
        }
      }
    },
    editing: (s, w) => {
      expect(s.context.number).toBeDefined();
      if (cameFrom(w, 'closed')) {
        const n = ev(w).number;
        expect(s.context.number).toEqual(n);
        expect(s.context.values).toEqual({
          phone_number: n.phone_number,
          phone_number_type: n.phone_number_type,
          phone_number_pretty: n.phone_number_pretty,
          termination_uri: n.termination_uri,
          nickname: n.nickname,
          assistantId: n.assistantId,
          area_code: n.area_code === null ? '' : String(n.area_code),
        });
        expect(s.context.errors).toEqual({});
      }
      if (w.event.type === 'form.submit') expect(Object.values(s.context.errors).filter(Boolean).length).toBeGreaterThan(0);
      if (cameFrom(w, 'saving')) {
        const prev = w.previous as Snapshot;
        expect(s.context.values).toEqual(prev.context.values);
        expect(effectsNow(w)).toEqual(['notify']);
        expect(paramsNow(w, 'notify')).toEqual(failed(ev(w).error?.serverMessage));
        expect(s.context.errors).toEqual(ev(w).error?.fieldErrors ?? {});
      }
    },
    saving: (s, w) => {
      expect(onlyRequest(w, 'saveNumber')).toEqual({ id: s.context.number._id, body: s.context.values });
      expect(s.context.errors).toEqual({});
    },
  },
});
