/**
 * Creates the app's session actor: the session machine with its real effects (local storage, the
 * refresh and logout calls, cross-tab coordination, navigation) and the bridge the HTTP client uses.
 *
 * Two tabs share one session:
 * - every write lands in local storage, and the other tabs follow through `storage` events
 *   (`storage.changed`): a login, a rotation or a logout in one tab is seen by all;
 * - a refresh runs inside the Web Lock `parley-session-refresh` where navigator.locks exists. Inside the
 *   lock the tab re-reads storage: if another tab already rotated the refresh token it takes those
 *   tokens instead of presenting the used one again (which the server would treat as reuse and answer
 *   by revoking the whole family). Without Web Locks the server's 10 s grace covers the race.
 */

import { type ActorRefFrom, createActor, fromPromise, type SnapshotFrom, waitFor } from 'xstate';
import { type AccountApi, account as defaultAccount } from '../api/account';
import { queryCache } from '../api/cache';
import type { ApiClient, SessionBridge } from '../api/client';
import { isApiError } from '../api/errors';
import type { Notify } from '../api/toast';
import { type StoredSession, sessionMachine, type TokenPair } from '../machines/session.machine';
import {
  browserStorage,
  clearSession,
  type KeyValueStorage,
  readSession,
  readTokens,
  SESSION_KEYS,
  writeAccount,
  writeTokens,
} from './storage';

export type SessionActor = ActorRefFrom<typeof sessionMachine>;
export type SessionSnapshot = SnapshotFrom<typeof sessionMachine>;

export const REFRESH_LOCK = 'parley-session-refresh';

export interface LockManagerLike {
  request<T>(name: string, callback: () => Promise<T>): Promise<T>;
}

interface StorageEventTarget {
  addEventListener(type: 'storage', listener: (event: { key: string | null }) => void): void;
  removeEventListener(type: 'storage', listener: (event: { key: string | null }) => void): void;
}

export interface SessionDeps {
  storage?: KeyValueStorage;
  /** navigator.locks (undefined: no cross-tab lock) */
  locks?: LockManagerLike;
  /** where `storage` events arrive (window) */
  events?: StorageEventTarget;
  account?: AccountApi;
  /** the client to bind to this session (its bearer token and 401 flow) */
  client?: ApiClient;
  /** current location, to keep the query string and to skip navigating when already at `/` */
  location?: () => { pathname: string; search: string };
  /** goes to an app URL; main.tsx binds the router (default: a full page load) */
  navigate?: (href: string) => void;
  /** shows an error toast (logout failures the client did not already report); main.tsx passes the toaster */
  notify?: Notify;
}

export class SessionEndedError extends Error {
  override readonly name = 'SessionEndedError';
  constructor() {
    super('The session ended in another tab.');
  }
}

/** Resolves once the persisted session has been read. */
export const waitForHydration = (actor: SessionActor): Promise<SessionSnapshot> => waitFor(actor, (s) => s.context.hydrated);

export const isSignedIn = (snapshot: SessionSnapshot): boolean => snapshot.hasTag('authenticated');

function defaultLocks(): LockManagerLike | undefined {
  const locks = (globalThis.navigator as Navigator | undefined)?.locks;
  return locks
    ? { request: <T>(name: string, callback: () => Promise<T>) => locks.request(name, callback) as Promise<T> }
    : undefined;
}

export function createSession(deps: SessionDeps = {}) {
  const storage = 'storage' in deps ? deps.storage : browserStorage();
  const locks = 'locks' in deps ? deps.locks : defaultLocks();
  const events = 'events' in deps ? deps.events : (globalThis.window as StorageEventTarget | undefined);
  const account = deps.account ?? defaultAccount;
  const location = deps.location ?? (() => globalThis.location ?? { pathname: '/', search: '' });
  let navigate =
    deps.navigate ??
    ((href: string) => {
      globalThis.location?.assign(href);
    });
  const notify = deps.notify;

  const withRefreshLock = <T>(task: () => Promise<T>): Promise<T> => (locks ? locks.request(REFRESH_LOCK, task) : task());

  const machine = sessionMachine.provide({
    actors: {
      loadSession: fromPromise<StoredSession>(async () => readSession(storage)),
      refreshTokens: fromPromise<TokenPair, TokenPair>(({ input }) =>
        withRefreshLock(async () => {
          const stored = readTokens(storage);
          if (storage && !stored.refreshToken) throw new SessionEndedError();
          if (storage && stored.refreshToken !== input.refreshToken) return stored;
          const answer = await account.refresh(input.refreshToken);
          const tokens = { accessToken: answer.access_token, refreshToken: answer.refresh_token };
          // Written while the lock is held, so the next tab to take it sees the rotation.
          writeTokens(storage, tokens);
          return tokens;
        }),
      ),
      logout: fromPromise<unknown>(() => account.logout()),
    },
    actions: {
      persistTokens: (_, tokens) => writeTokens(storage, tokens),
      persistAccount: (_, ids) => writeAccount(storage, ids),
      forgetStoredSession: () => {
        clearSession(storage);
        // nothing of the previous account may show to the next one
        queryCache.clear();
        // the editor's unsaved drafts (IndexedDB) go too; loaded on demand to keep it out of the first load
        void import('../drafts/drafts').then(({ drafts }) => drafts.clear());
      },
      goHome: (_, { keepQuery }) => {
        const here = location();
        if (keepQuery) {
          if (here.pathname !== '/') navigate(`/${here.search}`);
        } else {
          navigate('/');
        }
      },
      reportLogoutFailure: (_, { error }) => {
        if (isApiError(error) && error.notified) return;
        notify?.({ title: 'Error', description: error instanceof Error ? error.message : String(error), variant: 'destructive' });
      },
    },
  });

  const actor = createActor(machine);

  const onStorage = (event: { key: string | null }) => {
    if (event.key !== null && !(SESSION_KEYS as readonly string[]).includes(event.key)) return;
    actor.send({ type: 'storage.changed', ...readSession(storage) });
  };

  const bridge: SessionBridge = {
    accessToken: () => actor.getSnapshot().context.accessToken,
    hydrated: () => actor.getSnapshot().context.hydrated,
    async renew(refused) {
      let snapshot = await waitForHydration(actor);
      if (!isSignedIn(snapshot)) return null;
      if (snapshot.context.accessToken !== refused) return snapshot.context.accessToken;
      actor.send({ type: 'token.expired', token: refused });
      snapshot = await waitFor(actor, (s) => !s.hasTag('refreshing'));
      const token = isSignedIn(snapshot) ? snapshot.context.accessToken : '';
      return token && token !== refused ? token : null;
    },
  };

  return {
    actor,
    bridge,
    /** Starts the actor, follows other tabs and binds the client. Returns a stop function. */
    start() {
      actor.start();
      events?.addEventListener('storage', onStorage);
      deps.client?.bindSession(bridge);
      return () => {
        events?.removeEventListener('storage', onStorage);
        deps.client?.bindSession(undefined);
        actor.stop();
      };
    },
    /** The router is created after the session: main.tsx binds its navigation here. */
    bindNavigate(to: (href: string) => void) {
      navigate = to;
    },
  };
}

export type Session = ReturnType<typeof createSession>;
