/**
 * authDialog: the landing page's Login / Sign Up dialog (the specification: the toasts verbatim;
 * a request is sent only for a valid form; the password is never kept once the dialog closes).
 */
import { expect } from 'vitest';
import { ApiError } from '../../../src/api/errors.js';
import { cameFrom, effectsNow, ev, expectPending, onlyRequest, paramsNow } from './lib.js';
import { defineInvariants, type Snapshot, type World } from './types.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const empty = { name: '', email: '', password: '' };

/** What the user typed is kept while the dialog is open, except on the step that typed it. */
function valuesKept(s: Snapshot, w: World) {
  if (!w.previous) return;
  if (w.event.type === 'field.change') {
    expect(s.context.values).toEqual({ ...w.previous.context.values, [ev(w).field]: ev(w).value });
    // typing in a field clears its error only
    expect(s.context.errors[ev(w).field]).toBeUndefined();
    expect(s.context.errors).toEqual({ ...w.previous.context.errors, [ev(w).field]: undefined });
  } else if (!cameFrom(w, 'closed')) expect(s.context.values).toEqual(w.previous.context.values);
}

/** The toast of a failed request, by how it failed. */
function failureToast(w: World, kind: 'login' | 'signup') {
  const [title, fallback] =
    kind === 'login'
      ? ['Login failed', 'Invalid credentials. Please try again.']
      : ['Registration failed', 'Could not create account. Please try again.'];
  if (w.event.type.startsWith('xstate.done.actor.'))
    return { title, description: ev(w).output.msg || fallback, variant: 'destructive' };
  const error = ev(w).error;
  if (error?.isRejection) return { title, description: error.serverMessage || fallback, variant: 'destructive' };
  return { title: 'Error', description: 'An error occurred. Please try again later.', variant: 'destructive' };
}

function afterRequest(s: Snapshot, w: World, kind: 'login' | 'signup') {
  const from = kind === 'login' ? 'loggingIn' : 'signingUp';
  if (!cameFrom(w, from)) return;
  // a failed request keeps the form (password included) to try again, and says why
  expect(s.context.values).toEqual(w.previous?.context.values);
  expect(effectsNow(w)).toEqual(['notify']);
  expect(paramsNow(w, 'notify')).toEqual(failureToast(w, kind));
  const error = ev(w).error;
  expect(s.context.errors).toEqual(error?.isRejection ? (error.fieldErrors ?? {}) : {});
}

export default defineInvariants({
  refused: ['dialog.open', 'dialog.close', 'password.forgot', 'field.change', 'tab.select', 'photo.pick'],
  explore: {
    events: {
      // the picker cleared, a login refused without a message, a server fault while signing up
      'photo.pick': [{ type: 'photo.pick', file: null }],
      'xstate.error.actor.login': [
        {
          type: 'xstate.error.actor.login',
          error: new ApiError({ kind: 'http', status: 400, fieldErrors: { email: 'Unknown email' } }),
        },
      ],
      'xstate.error.actor.register': [
        { type: 'xstate.error.actor.register', error: new ApiError({ kind: 'http', status: 500 }) },
      ],
      'xstate.done.actor.register': [
        {
          type: 'xstate.done.actor.register',
          output: { success: false, msg: '', token: '', refresh_token: '', account: { _id: '', companyId: '' } },
        },
      ],
    },
  },
  always: (s, w) => {
    // the dialog's tags say which tab the user sees
    expect(s.hasTag('open')).toBe(!s.matches('closed'));
    expect(s.hasTag('login') || s.hasTag('signup') || s.matches('closed')).toBe(true);
    expect(s.hasTag('login') && s.hasTag('signup')).toBe(false);
    if (!s.matches('loggingIn') && !s.matches('signingUp')) expectPending(w, 'login', 0);
    if (!s.matches('signingUp')) expectPending(w, 'register', 0);
    // only a successful answer starts a session, and it enters the dashboard with it
    const started = effectsNow(w).includes('startSession');
    expect(started).toBe(s.matches('closed') && (cameFrom(w, 'loggingIn') || cameFrom(w, 'signingUp')));
    if (w.event.type === 'tab.select' && cameFrom(w, 'open')) expect(s.matches({ open: ev(w).tab })).toBe(true);
    // the dialog closes from either tab (a request under way finishes first)
    if ((w.event.type === 'dialog.close' || w.event.type === 'password.forgot') && cameFrom(w, 'open'))
      expect(s.matches('closed')).toBe(true);
    if (w.event.type === 'dialog.open' && cameFrom(w, 'closed'))
      expect(s.matches({ open: ev(w).tab === 'signup' ? 'signup' : 'login' })).toBe(true);
  },
  states: {
    closed: (s, w) => {
      // nothing secret outlives the dialog
      expect(s.context.values.password).toBe('');
      expect(s.context.photo).toBeNull();
      expect(s.context.errors).toEqual({});
      if (cameFrom(w, 'loggingIn') || cameFrom(w, 'signingUp')) {
        const output = ev(w).output;
        expect(output.success).toBe(true);
        expect(effectsNow(w)).toEqual(['startSession', 'notify', 'enterDashboard']);
        expect(paramsNow(w, 'startSession')).toEqual(output);
        expect(paramsNow(w, 'notify')).toEqual(
          cameFrom(w, 'loggingIn')
            ? { title: 'Login successful', description: 'Welcome back to Parley!' }
            : { title: 'Account created', description: 'Welcome to Parley!' },
        );
        expect(s.context.values).toEqual(empty);
      } else if (cameFrom(w, 'open')) {
        // closing keeps the name and email typed so far (the password goes)
        expect(s.context.values).toEqual({ ...w.previous?.context.values, password: '' });
        expect(effectsNow(w)).toEqual(w.event.type === 'password.forgot' ? ['openForgotPassword'] : []);
      } else expect(effectsNow(w)).toEqual([]);
    },
    open: (s, w) => {
      valuesKept(s, w);
      expectPending(w, 'login', 0);
      expectPending(w, 'register', 0);
      if (w.event.type === 'tab.select' && !s.matches({ open: ((w.previous?.value ?? {}) as { open?: string }).open ?? '' }))
        expect(s.context.errors).toEqual({});
    },
    'open.login': (s, w) => {
      afterRequest(s, w, 'login');
      if (w.event.type === 'form.submit') {
        // an invalid form stays, naming what is wrong
        const { email, password } = s.context.values;
        expect(Boolean(s.context.errors.email)).toBe(!EMAIL.test(email));
        expect(Boolean(s.context.errors.password)).toBe(password.length < 6);
        expect(effectsNow(w)).toEqual([]);
      }
    },
    'open.signup': (s, w) => {
      afterRequest(s, w, 'signup');
      if (w.event.type === 'photo.pick') {
        expect(s.context.photo).toBe(ev(w).file);
        const type = ev(w).file?.type;
        expect(Boolean(s.context.errors.file)).toBe(Boolean(type) && !['image/jpeg', 'image/png', 'image/webp'].includes(type));
      }
      if (w.event.type === 'form.submit') {
        const { name, email, password } = s.context.values;
        expect(Boolean(s.context.errors.email)).toBe(!EMAIL.test(email));
        expect(Boolean(s.context.errors.password)).toBe(password.length < 6);
        expect(Boolean(s.context.errors.name)).toBe(name.trim() === '');
      }
    },
    loggingIn: (s, w) => {
      // one request, with exactly what the user typed, for a valid form
      expect(onlyRequest(w, 'login')).toEqual({ email: s.context.values.email, password: s.context.values.password });
      expect(EMAIL.test(s.context.values.email)).toBe(true);
      expect(s.context.errors).toEqual({});
      expect(s.hasTag('submitting')).toBe(true);
      expect(effectsNow(w)).toEqual([]);
    },
    signingUp: (s, w) => {
      const request = onlyRequest(w, 'register');
      expect(request).toMatchObject(s.context.values);
      expect(request.file).toBe(s.context.photo ?? undefined);
      expect(s.context.errors).toEqual({});
      expect(s.hasTag('submitting')).toBe(true);
      expect(effectsNow(w)).toEqual([]);
    },
  },
});
