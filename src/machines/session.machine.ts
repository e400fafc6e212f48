import { assign, fromPromise, setup } from 'xstate';
import { isApiError } from '../api/errors';

/** The persisted part of the session (localStorage `auth-store`, plus `accountId` / `companyId`). */
export interface StoredSession {
  accessToken: string;
  refreshToken: string;
  accountId: string | null;
  companyId: string | null;
}

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
}

export type SessionEvent =
  | { type: 'session.login'; accessToken: string; refreshToken: string; accountId: string; companyId: string }
  | { type: 'session.logout' }
  | { type: 'token.expired'; token: string }
  | ({ type: 'storage.changed' } & StoredSession)
  | { type: 'url.remember'; url: string };

export interface SessionContext extends StoredSession {
  /** the persisted state has been read (spec: the flag for whether the persisted state has loaded) */
  hydrated: boolean;
  /** where a signed-out visitor was going when the guard sent them to `/` (memory only) */
  previousUrl: string | null;
}

const signedOutContext = {
  accessToken: '',
  refreshToken: '',
  accountId: null,
  companyId: null,
  previousUrl: null,
} satisfies Partial<SessionContext>;

const notProvided = (name: string) => () => Promise.reject(new Error(`session: the ${name} actor must be provided`));

/**
 * The browser's session: tokens persisted under `auth-store`, hydration, single-flight token refresh
 * and logout. Effects are named here and implemented in src/session (storage, navigator.locks, HTTP,
 * navigation); tests `.provide()` fakes.
 */
export const sessionMachine = setup({
  types: {
    context: {} as SessionContext,
    events: {} as SessionEvent,
  },
  actors: {
    loadSession: fromPromise<StoredSession>(notProvided('loadSession')),
    refreshTokens: fromPromise<TokenPair, TokenPair>(notProvided('refreshTokens')),
    logout: fromPromise<unknown>(notProvided('logout')),
  },
  actions: {
    persistTokens: (_, _params: TokenPair) => {},
    persistAccount: (_, _params: { accountId: string; companyId: string }) => {},
    forgetStoredSession: () => {},
    goHome: (_, _params: { keepQuery: boolean }) => {},
    reportLogoutFailure: (_, _params: { error: unknown }) => {},
    restoreSession: assign((_, params: StoredSession) => ({ ...params, hydrated: true })),
    markHydrated: assign({ hydrated: true }),
    holdSession: assign((_, params: StoredSession) => ({
      accessToken: params.accessToken,
      refreshToken: params.refreshToken,
      accountId: params.accountId,
      companyId: params.companyId,
    })),
    rememberUrl: assign({ previousUrl: (_, params: { url: string }) => params.url }),
    holdTokens: assign((_, params: TokenPair) => ({ accessToken: params.accessToken, refreshToken: params.refreshToken })),
    signOut: assign(signedOutContext),
  },
  guards: {
    holdsAccessToken: (_, params: { accessToken: string }) => params.accessToken !== '',
    isCurrentToken: ({ context, event }) => event.type === 'token.expired' && event.token === context.accessToken,
    carriesNoToken: ({ event }) => event.type === 'storage.changed' && event.accessToken === '',
    carriesOtherSession: ({ context, event }) =>
      event.type === 'storage.changed' &&
      (event.accessToken !== context.accessToken ||
        event.refreshToken !== context.refreshToken ||
        event.accountId !== context.accountId ||
        event.companyId !== context.companyId),
    /** No answer, or the server failed (5xx): the refresh token may still be good. */
    isTransientFailure: (_, params: { error: unknown }) =>
      isApiError(params.error) &&
      (params.error.kind === 'network' || params.error.kind === 'timeout' || (params.error.status ?? 0) >= 500),
  },
}).createMachine({
  id: 'session',
  description: 'The browser session: persisted tokens, hydration, single-flight refresh, logout.',
  context: { ...signedOutContext, hydrated: false },
  initial: 'hydrating',
  states: {
    hydrating: {
      description: 'Reads `auth-store`, `accountId` and `companyId` from local storage.',
      tags: ['loading'],
      invoke: {
        id: 'loadSession',
        src: 'loadSession',
        onDone: [
          {
            guard: { type: 'holdsAccessToken', params: ({ event }) => ({ accessToken: event.output.accessToken }) },
            target: 'signedIn',
            description: 'A stored token: signed in, as before the reload.',
            actions: { type: 'restoreSession', params: ({ event }) => event.output },
          },
          { target: 'signedOut', description: 'Nothing stored: signed out.', actions: 'markHydrated' },
        ],
        onError: {
          description: 'Unreadable storage counts as signed out and is cleared.',
          target: 'signedOut',
          actions: ['markHydrated', 'forgetStoredSession'],
        },
      },
    },
    signedOut: {
      description: 'No token: only the landing page and the password pages are open.',
      on: {
        'session.login': {
          target: 'signedIn',
          description: 'Logged in or registered: hold the tokens and store them with the account.',
          actions: [
            { type: 'holdSession', params: ({ event }) => event },
            { type: 'persistAccount', params: ({ event }) => event },
            { type: 'persistTokens', params: ({ event }) => event },
          ],
        },
        'storage.changed': {
          description: 'Another tab signed in: share its session.',
          guard: { type: 'holdsAccessToken', params: ({ event }) => ({ accessToken: event.accessToken }) },
          target: 'signedIn',
          actions: { type: 'holdSession', params: ({ event }) => event },
        },
        'url.remember': {
          description: 'The route guard remembers where the visitor was going (memory only).',
          actions: { type: 'rememberUrl', params: ({ event }) => ({ url: event.url }) },
        },
      },
    },
    signedIn: {
      description: "A token is held: the dashboard is open. Two regions: the access token's freshness and the logout request.",
      tags: ['authenticated'],
      type: 'parallel',
      on: {
        'session.login': {
          description: 'A new login replaces the held session (e.g. the dialog of a second tab).',
          actions: [
            { type: 'holdSession', params: ({ event }) => event },
            { type: 'persistAccount', params: ({ event }) => event },
            { type: 'persistTokens', params: ({ event }) => event },
          ],
        },
        'storage.changed': [
          {
            description: 'Another tab logged out or its refresh failed: sign out here too.',
            guard: 'carriesNoToken',
            target: 'signedOut',
            actions: ['signOut', { type: 'goHome', params: { keepQuery: true } }],
          },
          {
            description: 'Another tab rotated the tokens (or signed in again): use its session, never a used token.',
            guard: 'carriesOtherSession',
            actions: { type: 'holdSession', params: ({ event }) => event },
          },
        ],
      },
      states: {
        token: {
          initial: 'valid',
          states: {
            valid: {
              on: {
                'token.expired': {
                  description: 'A call was refused with the token held now: refresh it once for everybody.',
                  guard: 'isCurrentToken',
                  target: 'refreshing',
                },
              },
            },
            refreshing: {
              description:
                'Single flight: one refresh (coordinated across tabs with navigator.locks); every call refused meanwhile waits for its outcome.',
              tags: ['refreshing'],
              invoke: {
                id: 'refreshTokens',
                src: 'refreshTokens',
                input: ({ context }) => ({ accessToken: context.accessToken, refreshToken: context.refreshToken }),
                onDone: {
                  target: 'valid',
                  description: 'New tokens: hold and store them; the waiting calls retry with the new access token.',
                  actions: [
                    { type: 'holdTokens', params: ({ event }) => event.output },
                    { type: 'persistTokens', params: ({ event }) => event.output },
                  ],
                },
                onError: [
                  {
                    description: 'No answer or a server fault: keep the tokens; the waiting calls fail this time.',
                    guard: { type: 'isTransientFailure', params: ({ event }) => ({ error: event.error }) },
                    target: 'valid',
                  },
                  {
                    description: 'Refresh refused: both tokens are removed and the browser goes to / keeping the query string.',
                    target: '#session.signedOut',
                    actions: ['signOut', 'forgetStoredSession', { type: 'goHome', params: { keepQuery: true } }],
                  },
                ],
              },
              on: {
                'token.expired': {
                  description: 'Absorbed: the caller waits for the refresh already under way.',
                },
              },
            },
          },
        },
        logout: {
          initial: 'idle',
          states: {
            idle: {
              on: { 'session.logout': { target: 'loggingOut', description: "'Log out' in the user menu." } },
            },
            loggingOut: {
              description: 'GET /account/logout revokes the session on the server (a 401 meanwhile refreshes and retries).',
              tags: ['loggingOut'],
              invoke: {
                id: 'logout',
                src: 'logout',
                onDone: {
                  target: '#session.signedOut',
                  description: 'Logged out: the tokens and everything cached are forgotten; the browser goes to /.',
                  actions: ['signOut', 'forgetStoredSession', { type: 'goHome', params: { keepQuery: false } }],
                },
                onError: {
                  description: 'The server did not confirm: stay signed in and say so.',
                  target: 'idle',
                  actions: { type: 'reportLogoutFailure', params: ({ event }) => ({ error: event.error }) },
                },
              },
            },
          },
        },
      },
    },
  },
});
