/** resetPassword: no token, no form; a request only for a valid, confirmed password, with the link's token. */
import { expect } from 'vitest';
import { cameFrom, effectsNow, ev, expectPending, onlyRequest, paramsNow } from './lib.js';
import { defineInvariants } from './types.js';

export default defineInvariants({
  always: (s, w) => {
    expectPending(w, 'resetPassword', s.matches('saving') ? 1 : 0);
    expect(s.hasTag('busy')).toBe(s.matches('saving'));
    if (!cameFrom(w, 'saving')) expect(effectsNow(w)).toEqual([]);
    if (w.event.type === 'field.change') {
      expect(s.context[ev(w).field]).toBe(ev(w).value);
      expect(s.context.errors[ev(w).field]).toBeUndefined();
    }
  },
  states: {
    checking: () => {
      throw new Error('checking decides at once');
    },
    linkInvalid: (s) => expect(s.context.token).toBe(''),
    editing: (s, w) => {
      expect(s.context.token).not.toBe('');
      if (w.event.type === 'form.submit') {
        const { password, confirm, errors } = s.context;
        expect(Boolean(errors.password) || Boolean(errors.confirm)).toBe(true);
        if (password === confirm && password.length >= 8) expect(errors.confirm).toBeUndefined();
        if (password !== confirm && !errors.password) expect(errors.confirm).toBe('Passwords do not match');
      }
      if (cameFrom(w, 'saving')) {
        expect(effectsNow(w)).toEqual(['notify']);
        const description = w.event.type.startsWith('xstate.done.')
          ? ev(w).output.msg
          : (ev(w).error?.message ?? 'Could not reset the password. Please try again.');
        expect(paramsNow(w, 'notify')).toEqual({ title: 'Error', description, variant: 'destructive' });
      }
    },
    saving: (s, w) => {
      expect(onlyRequest(w, 'resetPassword')).toEqual({ token: s.context.token, password: s.context.password });
      expect(s.context.password).toBe(s.context.confirm);
      expect(s.context.errors).toEqual({});
    },
    done: (s, w) => {
      expect(s.status).toBe('done');
      if (cameFrom(w, 'saving')) {
        expect(ev(w).output.success).toBe(true);
        expect(effectsNow(w)).toEqual(['notify', 'openLogin']);
        expect(paramsNow(w, 'notify')).toEqual({ title: 'Password reset', description: ev(w).output.msg });
      }
    },
  },
});
