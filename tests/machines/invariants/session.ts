/**
 * session: the rules of the browser session (spec: tokens under `auth-store`, single-flight refresh,
 * logout; a refused refresh removes both tokens and goes to `/` keeping the query string).
 */
import { expect } from 'vitest';
import { ApiError } from '../../../src/api/errors.js';
import { cameFrom, effectsNow, ev, expectPending, onlyRequest, paramsNow } from './lib.js';
import { defineInvariants, type Snapshot } from './types.js';

const noSession = (s: Snapshot) =>
  expect({
    accessToken: s.context.accessToken,
    refreshToken: s.context.refreshToken,
    accountId: s.context.accountId,
    companyId: s.context.companyId,
  }).toEqual({ accessToken: '', refreshToken: '', accountId: null, companyId: null });

const sessionOf = (e: Record<string, unknown>) => ({
  accessToken: e.accessToken,
  refreshToken: e.refreshToken,
  accountId: e.accountId,
  companyId: e.companyId,
});
const held = (s: Snapshot) => sessionOf(s.context);

const transient = (error: unknown) => {
  const e = error as { kind?: string; status?: number } | undefined;
  return error instanceof ApiError && (e?.kind === 'network' || e?.kind === 'timeout' || (e?.status ?? 0) >= 500);
};

export default defineInvariants({
  refused: ['storage.changed', 'session.login', 'xstate.error.actor.loadSession'],
  explore: {
    events: {
      'xstate.error.actor.loadSession': [{ type: 'xstate.error.actor.loadSession', error: new Error('unreadable storage') }],
      // a second login while signed in (another account), and other tabs changing one field at a time
      'session.login': [{ type: 'session.login', accessToken: 'a5', refreshToken: 'r5', accountId: 'acc5', companyId: 'co5' }],
      'storage.changed': [
        { type: 'storage.changed', accessToken: 'a1', refreshToken: 'r7', accountId: 'acc', companyId: 'co' },
        { type: 'storage.changed', accessToken: 'a1', refreshToken: 'r1', accountId: 'acc7', companyId: 'co' },
        { type: 'storage.changed', accessToken: 'a1', refreshToken: 'r1', accountId: 'acc', companyId: 'co7' },
      ],
      'xstate.error.actor.refreshTokens': [
        { type: 'xstate.error.actor.refreshTokens', error: new ApiError({ kind: 'timeout' }) },
        { type: 'xstate.error.actor.refreshTokens', error: new ApiError({ kind: 'http', status: 500 }) },
        { type: 'xstate.error.actor.refreshTokens', error: new ApiError({ kind: 'http', status: 499 }) },
        { type: 'xstate.error.actor.refreshTokens', error: new Error('not an API error') },
      ],
    },
  },
  always: (s, w) => {
    // the tags the app reads
    expect(s.hasTag('loading')).toBe(s.matches('hydrating'));
    expect(s.hasTag('authenticated')).toBe(s.matches('signedIn'));
    expect(s.hasTag('refreshing')).toBe(s.matches({ signedIn: { token: 'refreshing' } }));
    expect(s.hasTag('loggingOut')).toBe(s.matches({ signedIn: { logout: 'loggingOut' } }));
    // a refresh that got no answer or a server fault keeps the session; any other failure ends it
    if (w.event.type === 'xstate.error.actor.refreshTokens') expect(s.matches('signedIn')).toBe(transient(ev(w).error));
    // another tab's empty storage signs out here too
    if (w.event.type === 'storage.changed' && cameFrom(w, 'signedIn'))
      expect(s.matches('signedOut')).toBe(ev(w).accessToken === '');
    // hydration happens once: the flag is set from the first answer of storage on
    expect(s.context.hydrated).toBe(!s.matches('hydrating'));
    // the effects never run outside their transitions
    if (w.step === 0) expect(effectsNow(w)).toEqual([]);
    // a refusal reported with the token held now starts a refresh; one about another token does not
    if (w.event.type === 'token.expired' && w.previous?.matches({ signedIn: { token: 'valid' } }))
      expect(s.matches({ signedIn: { token: 'refreshing' } })).toBe(ev(w).token === w.previous.context.accessToken);
    if (w.event.type === 'session.logout' && cameFrom(w, 'signedIn.logout.idle'))
      expect(s.matches({ signedIn: { logout: 'loggingOut' } })).toBe(true);
  },
  states: {
    hydrating: (s, w) => {
      // the storage's answer, readable or not, always ends hydration
      expect(w.event.type.includes('.actor.loadSession')).toBe(false);
      noSession(s);
      expect(s.context.previousUrl).toBeNull();
      expectPending(w, 'loadSession', 1);
      expect(effectsNow(w)).toEqual([]);
    },
    signedOut: (s, w) => {
      noSession(s);
      expectPending(w, 'refreshTokens', 0);
      expectPending(w, 'logout', 0);
      expect(effectsNow(w)).not.toContain('persistTokens');
      if (cameFrom(w, 'hydrating')) {
        // unreadable storage is cleared; an empty one is simply signed out
        expect(effectsNow(w)).toEqual(w.event.type.startsWith('xstate.error.') ? ['forgetStoredSession'] : []);
      }
      if (cameFrom(w, 'signedIn')) {
        expect(s.context.previousUrl).toBeNull();
        const refused = w.event.type === 'xstate.error.actor.refreshTokens';
        const loggedOut = w.event.type === 'xstate.done.actor.logout';
        // another tab already cleared the storage: only this tab's own sign-out forgets it
        expect(effectsNow(w)).toEqual([...(refused || loggedOut ? ['forgetStoredSession'] : []), 'goHome']);
        // `/` keeps the query string unless the user logged out
        expect(paramsNow(w, 'goHome')).toEqual({ keepQuery: !loggedOut });
      }
      if (cameFrom(w, 'signedOut')) {
        if (w.event.type === 'url.remember') expect(s.context.previousUrl).toBe(ev(w).url);
        else expect(s.context.previousUrl).toBe(w.previous?.context.previousUrl);
        expect(effectsNow(w)).toEqual([]);
      }
    },
    signedIn: (s, w) => {
      expect(s.context.accessToken).not.toBe('');
      if (w.event.type === 'session.login') {
        expect(held(s)).toEqual(sessionOf(ev(w)));
        expect(effectsNow(w)).toEqual(['persistAccount', 'persistTokens']);
        expect(paramsNow(w, 'persistTokens')).toMatchObject({ accessToken: ev(w).accessToken, refreshToken: ev(w).refreshToken });
        expect(paramsNow(w, 'persistAccount')).toMatchObject({ accountId: ev(w).accountId, companyId: ev(w).companyId });
      }
      if (w.event.type === 'storage.changed') {
        // another tab's session is adopted as it is, and not written back
        expect(held(s)).toEqual(sessionOf(ev(w)));
        expect(effectsNow(w)).toEqual([]);
      }
      if (cameFrom(w, 'hydrating')) {
        expect(effectsNow(w)).toEqual([]);
        expect(held(s)).toEqual(sessionOf(ev(w).output));
      }
      if (cameFrom(w, 'signedOut') && !['session.login', 'storage.changed'].includes(w.event.type))
        throw new Error(`signed in by ${w.event.type}`);
    },
    'signedIn.token.valid': (s, w) => {
      expectPending(w, 'refreshTokens', 0);
      if (w.event.type === 'xstate.done.actor.refreshTokens') {
        expect({ accessToken: s.context.accessToken, refreshToken: s.context.refreshToken }).toEqual(ev(w).output);
        expect(effectsNow(w)).toEqual(['persistTokens']);
        expect(paramsNow(w, 'persistTokens')).toEqual(ev(w).output);
      }
      if (w.event.type === 'xstate.error.actor.refreshTokens') {
        // a transient failure keeps the tokens and the storage
        expect(held(s)).toEqual(held(w.previous as Snapshot));
        expect(effectsNow(w)).toEqual([]);
      }
      if (w.event.type === 'token.expired') expect(effectsNow(w)).toEqual([]);
    },
    'signedIn.token.refreshing': (s, w) => {
      // single flight: one refresh, of the tokens held when it started
      const request = onlyRequest(w, 'refreshTokens');
      if (cameFrom(w, 'signedIn.token.valid'))
        expect(request).toEqual({ accessToken: s.context.accessToken, refreshToken: s.context.refreshToken });
      if (w.event.type === 'token.expired') {
        if (cameFrom(w, 'signedIn.token.refreshing')) expect(w.startedNow).toEqual([]);
        expect(effectsNow(w)).toEqual([]);
      }
    },
    'signedIn.logout.idle': (s, w) => {
      expectPending(w, 'logout', 0);
      if (w.event.type === 'xstate.error.actor.logout') {
        expect(effectsNow(w)).toEqual(['reportLogoutFailure']);
        expect(paramsNow(w, 'reportLogoutFailure')).toEqual({ error: ev(w).error });
        expect(held(s)).toEqual(held(w.previous as Snapshot));
      }
    },
    'signedIn.logout.loggingOut': (_s, w) => {
      expectPending(w, 'logout', 1);
    },
  },
});
