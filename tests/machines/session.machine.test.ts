import { describe, expect, it, vi } from 'vitest';
import { type AnyMachineSnapshot, createActor, fromPromise } from 'xstate';
import { ApiError } from '../../src/api/errors.js';
import { type StoredSession, sessionMachine, type TokenPair } from '../../src/machines/session.machine.js';
import { describeModel } from './harness.js';

const stored: StoredSession = { accessToken: 'a1', refreshToken: 'r1', accountId: 'acc', companyId: 'co' };
const empty: StoredSession = { accessToken: '', refreshToken: '', accountId: null, companyId: null };

describeModel('session', sessionMachine, {
  events: {
    'xstate.done.actor.loadSession': [
      { type: 'xstate.done.actor.loadSession', output: stored },
      { type: 'xstate.done.actor.loadSession', output: empty },
    ],
    'session.login': [{ type: 'session.login', accessToken: 'a1', refreshToken: 'r1', accountId: 'acc', companyId: 'co' }],
    'storage.changed': [
      { type: 'storage.changed', ...empty },
      { type: 'storage.changed', accessToken: 'a9', refreshToken: 'r9', accountId: 'acc', companyId: 'co' },
    ],
    'token.expired': (snapshot: AnyMachineSnapshot) => [
      { type: 'token.expired', token: snapshot.context.accessToken },
      { type: 'token.expired', token: 'an-old-token' },
    ],
    'xstate.done.actor.refreshTokens': [
      { type: 'xstate.done.actor.refreshTokens', output: { accessToken: 'a2', refreshToken: 'r2' } },
    ],
    'xstate.error.actor.refreshTokens': [
      { type: 'xstate.error.actor.refreshTokens', error: new ApiError({ kind: 'network' }) },
      {
        type: 'xstate.error.actor.refreshTokens',
        error: new ApiError({ kind: 'http', status: 401, serverMessage: 'Session expired' }),
      },
    ],
    'url.remember': [{ type: 'url.remember', url: '/dashboard/billing' }],
  },
});

/** The machine with recording actions and controllable actors. */
function harnessed(load: StoredSession = stored) {
  const effects: unknown[][] = [];
  let settleRefresh: { resolve: (t: TokenPair) => void; reject: (e: unknown) => void } | undefined;
  let refreshCalls = 0;
  let settleLogout: { resolve: () => void; reject: (e: unknown) => void } | undefined;
  const machine = sessionMachine.provide({
    actors: {
      loadSession: fromPromise(async () => load),
      refreshTokens: fromPromise<TokenPair, TokenPair>(
        () =>
          new Promise((resolve, reject) => {
            refreshCalls += 1;
            settleRefresh = { resolve, reject };
          }),
      ),
      logout: fromPromise<unknown>(
        () =>
          new Promise<void>((resolve, reject) => {
            settleLogout = { resolve, reject };
          }),
      ),
    },
    actions: {
      persistTokens: (_, p) => effects.push(['persistTokens', p.accessToken, p.refreshToken]),
      persistAccount: (_, p) => effects.push(['persistAccount', p.accountId, p.companyId]),
      forgetStoredSession: () => effects.push(['forgetStoredSession']),
      goHome: (_, p) => effects.push(['goHome', p.keepQuery]),
      reportLogoutFailure: (_, p) => effects.push(['reportLogoutFailure', (p.error as Error).message]),
    },
  });
  const actor = createActor(machine).start();
  return {
    actor,
    effects,
    refreshCalls: () => refreshCalls,
    refresh: () => settleRefresh!,
    logout: () => settleLogout!,
    settled: () => vi.waitFor(() => expect(actor.getSnapshot().hasTag('loading')).toBe(false)),
  };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('session effects', () => {
  it('hydrates from storage and marks the session hydrated', async () => {
    const h = harnessed();
    expect(h.actor.getSnapshot().context.hydrated).toBe(false);
    await h.settled();
    const snap = h.actor.getSnapshot();
    expect(snap.context).toMatchObject({ ...stored, hydrated: true, previousUrl: null });
    expect(snap.hasTag('authenticated')).toBe(true);
  });

  it('stores the account ids and the tokens at login', async () => {
    const h = harnessed(empty);
    await h.settled();
    h.actor.send({ type: 'url.remember', url: '/dashboard/billing' });
    h.actor.send({ type: 'session.login', accessToken: 'a1', refreshToken: 'r1', accountId: 'acc', companyId: 'co' });
    expect(h.effects).toEqual([
      ['persistAccount', 'acc', 'co'],
      ['persistTokens', 'a1', 'r1'],
    ]);
    expect(h.actor.getSnapshot().context.previousUrl).toBe('/dashboard/billing');
  });

  it('refreshes once for many expired-token reports, then persists the new pair', async () => {
    const h = harnessed();
    await h.settled();
    for (let i = 0; i < 5; i += 1) h.actor.send({ type: 'token.expired', token: 'a1' });
    expect(h.actor.getSnapshot().hasTag('refreshing')).toBe(true);
    expect(h.refreshCalls()).toBe(1);
    h.refresh().resolve({ accessToken: 'a2', refreshToken: 'r2' });
    await flush();
    expect(h.actor.getSnapshot().hasTag('refreshing')).toBe(false);
    expect(h.actor.getSnapshot().context).toMatchObject({ accessToken: 'a2', refreshToken: 'r2' });
    expect(h.effects).toEqual([['persistTokens', 'a2', 'r2']]);
    // A late report about the replaced token does not refresh again.
    h.actor.send({ type: 'token.expired', token: 'a1' });
    expect(h.refreshCalls()).toBe(1);
  });

  it('a refused refresh forgets the session and goes home keeping the query', async () => {
    const h = harnessed();
    await h.settled();
    h.actor.send({ type: 'url.remember', url: '/x' });
    h.actor.send({ type: 'token.expired', token: 'a1' });
    h.refresh().reject(new ApiError({ kind: 'http', status: 401 }));
    await flush();
    expect(h.actor.getSnapshot().matches('signedOut')).toBe(true);
    expect(h.actor.getSnapshot().context).toMatchObject({ ...empty, previousUrl: null, hydrated: true });
    expect(h.effects).toEqual([['forgetStoredSession'], ['goHome', true]]);
  });

  it('logout: success forgets the session and goes to /; failure stays signed in and reports', async () => {
    const h = harnessed();
    await h.settled();
    h.actor.send({ type: 'session.logout' });
    expect(h.actor.getSnapshot().hasTag('loggingOut')).toBe(true);
    h.logout().reject(new Error('offline'));
    await flush();
    expect(h.actor.getSnapshot().hasTag('authenticated')).toBe(true);
    expect(h.effects).toEqual([['reportLogoutFailure', 'offline']]);
    h.actor.send({ type: 'session.logout' });
    h.logout().resolve();
    await flush();
    expect(h.actor.getSnapshot().matches('signedOut')).toBe(true);
    expect(h.effects.slice(1)).toEqual([['forgetStoredSession'], ['goHome', false]]);
  });

  it('follows other tabs: a rotation is adopted, a logout signs out without touching storage', async () => {
    const h = harnessed();
    await h.settled();
    h.actor.send({ type: 'storage.changed', accessToken: 'a9', refreshToken: 'r9', accountId: 'acc', companyId: 'co' });
    expect(h.actor.getSnapshot().context).toMatchObject({ accessToken: 'a9', refreshToken: 'r9' });
    h.actor.send({ type: 'storage.changed', ...empty });
    expect(h.actor.getSnapshot().matches('signedOut')).toBe(true);
    expect(h.effects).toEqual([['goHome', true]]);
    h.actor.send({ type: 'storage.changed', ...stored });
    expect(h.actor.getSnapshot().hasTag('authenticated')).toBe(true);
    expect(h.effects).toHaveLength(1);
  });
});
