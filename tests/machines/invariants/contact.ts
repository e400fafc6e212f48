/** contact: 'Get in Touch'; a valid form is sent once; success closes, empties and thanks; a failure keeps it. */
import { expect } from 'vitest';
import { cameFrom, effectsNow, ev, expectPending, onlyRequest, paramsNow } from './lib.js';
import { defineInvariants } from './types.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export default defineInvariants({
  always: (s, w) => {
    expectPending(w, 'sendMessage', s.matches('sending') ? 1 : 0);
    expect(s.hasTag('open')).toBe(!s.matches('closed'));
    if (!cameFrom(w, 'sending')) expect(effectsNow(w)).toEqual([]);
    if (w.event.type === 'field.change') {
      expect(s.context.values[ev(w).field]).toBe(ev(w).value);
      expect(s.context.errors[ev(w).field]).toBeUndefined();
    }
  },
  states: {
    closed: (s, w) => {
      if (cameFrom(w, 'sending')) {
        expect(s.context).toEqual({ values: { name: '', email: '', message: '' }, errors: {} });
        expect(effectsNow(w)).toEqual(['notify']);
        expect(paramsNow(w, 'notify')).toEqual({ title: 'Message sent', description: ev(w).output.msg });
      } else if (w.previous) expect(s.context.values).toEqual(w.previous.context.values);
    },
    open: (s, w) => {
      if (w.event.type === 'form.submit') {
        const { name, email, message } = s.context.values;
        expect(Boolean(s.context.errors.email)).toBe(!EMAIL.test(email));
        expect(Boolean(s.context.errors.name)).toBe(name.trim() === '');
        expect(Boolean(s.context.errors.message)).toBe(message.trim() === '');
      }
      if (cameFrom(w, 'sending')) {
        expect(s.context.values).toEqual(w.previous?.context.values);
        expect(effectsNow(w)).toEqual(['notify']);
        expect(paramsNow(w, 'notify')).toEqual({
          title: 'Error',
          description: ev(w).error?.message ?? 'Could not send your message. Please try again.',
          variant: 'destructive',
        });
      }
    },
    sending: (s, w) => {
      expect(onlyRequest(w, 'sendMessage')).toEqual(s.context.values);
      expect(s.context.errors).toEqual({});
      expect(s.hasTag('busy')).toBe(true);
    },
  },
});
