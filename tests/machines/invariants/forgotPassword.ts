/**
 * forgotPassword: the dialog and the /forgot-password page (the specification's messages verbatim; closing
 * keeps the content while the dialog animates out, then resets it; a request under way finishes first).
 */
import { expect } from 'vitest';
import { cameFrom, effectsNow, ev, expectPending, onlyRequest, paramsNow } from './lib.js';
import { defineInvariants } from './types.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export default defineInvariants({
  always: (s, w) => {
    if (!s.matches({ flow: 'sending' })) expectPending(w, 'sendResetLink', 0);
    expect(s.hasTag('open')).toBe(s.matches({ visibility: 'open' }));
    // a request under way finishes first: closing waits for it
    if (w.event.type === 'dialog.close' && w.previous?.matches({ flow: 'sending' }))
      expect(s.matches({ visibility: 'open' })).toBe(w.previous.matches({ visibility: 'open' }));
    if (w.event.type === 'dialog.close' && cameFrom(w, 'visibility.open') && !w.previous?.matches({ flow: 'sending' }))
      expect(s.matches({ visibility: 'closing' })).toBe(true);
    if (w.event.type === 'dialog.open') expect(s.matches({ visibility: 'open' })).toBe(true);
    // only the answer to a request toasts, once
    if (!w.event.type.includes('sendResetLink')) expect(effectsNow(w)).toEqual([]);
  },
  states: {
    'visibility.closed': (s, w) => {
      if (cameFrom(w, 'visibility.closing')) {
        // the delay ran out: the form starts over, a sent confirmation too (unless a request is under way)
        if (!s.matches({ flow: 'sending' })) {
          expect(s.context).toEqual({ email: '', error: null });
          expect(s.matches({ flow: 'editing' })).toBe(true);
        }
      }
    },
    'visibility.open': (s, w) => {
      if (cameFrom(w, 'visibility.closing') || cameFrom(w, 'visibility.closed')) expect(s.context).toEqual(w.previous?.context);
    },
    'visibility.closing': (s, w) => {
      // hidden, the content stays as it was while the dialog animates out
      if (w.previous && w.event.type === 'dialog.close') expect(s.context).toEqual(w.previous.context);
    },
    'flow.editing': (s, w) => {
      if (w.event.type === 'field.change') expect(s.context).toEqual({ email: ev(w).value, error: null });
      if (w.event.type === 'form.submit') {
        // an invalid address stays, with the spec's message
        expect(EMAIL.test(s.context.email)).toBe(false);
        expect(s.context.error).toBe(s.context.email === '' ? 'Email is required' : 'Invalid email format');
      }
      if (cameFrom(w, 'flow.sending')) {
        expect(s.context).toEqual(w.previous?.context);
        expect(effectsNow(w)).toEqual(['notify']);
        const e = ev(w);
        expect(paramsNow(w, 'notify')).toEqual(
          w.event.type.startsWith('xstate.done.')
            ? { title: 'Error', description: e.output.msg || 'Something went wrong. Please try again.', variant: 'destructive' }
            : {
                title: 'Error',
                description: e.error?.serverMessage || 'Failed to send reset link. Please try again later.',
                variant: 'destructive',
              },
        );
      }
    },
    'flow.sending': (s, w) => {
      // one request, for the valid address typed
      expect(onlyRequest(w, 'sendResetLink')).toEqual({ email: s.context.email });
      expect(EMAIL.test(s.context.email)).toBe(true);
      expect(s.context.error).toBeNull();
      expect(s.hasTag('busy')).toBe(true);
    },
    'flow.sent': (s, w) => {
      expect(s.hasTag('sent')).toBe(true);
      if (cameFrom(w, 'flow.sending')) {
        expect(ev(w).output.success).toBe(true);
        expect(effectsNow(w)).toEqual(['notify']);
        expect(paramsNow(w, 'notify')).toEqual({ title: 'Reset link sent', description: ev(w).output.msg });
        expect(s.context).toEqual(w.previous?.context);
      }
    },
  },
});
