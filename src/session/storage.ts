/**
 * Where the session lives in the browser:
 * - `auth-store`: `{"state":{"access_token":"…","refresh_token":"…"},"version":0}`, the shape of a
 *   zustand `persist` store, so a session written by the earlier product keeps working. Both tokens are
 *   empty strings by default; a plain `{"access_token","refresh_token"}` object is read as well.
 * - `accountId` and `companyId`: plain strings, written at login.
 * `previous_url` is never persisted (memory only, in the session machine).
 */
import type { StoredSession, TokenPair } from '../machines/session.machine';

import { ACCOUNT_ID_KEY, AUTH_STORE_KEY, COMPANY_ID_KEY, parseTokens } from './keys';

export { ACCOUNT_ID_KEY, AUTH_STORE_KEY, COMPANY_ID_KEY };
export const SESSION_KEYS = [AUTH_STORE_KEY, ACCOUNT_ID_KEY, COMPANY_ID_KEY] as const;
const STORE_VERSION = 0;

export type KeyValueStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/** Reads the tokens; missing or unreadable JSON counts as empty (the parsing is keys.ts's, shared with the boot scripts). */
export function readTokens(storage: KeyValueStorage | undefined): TokenPair {
  return parseTokens(storage?.getItem(AUTH_STORE_KEY));
}

export function readSession(storage: KeyValueStorage | undefined): StoredSession {
  return {
    ...readTokens(storage),
    accountId: storage?.getItem(ACCOUNT_ID_KEY) || null,
    companyId: storage?.getItem(COMPANY_ID_KEY) || null,
  };
}

export function writeTokens(storage: KeyValueStorage | undefined, tokens: TokenPair): void {
  storage?.setItem(
    AUTH_STORE_KEY,
    JSON.stringify({ state: { access_token: tokens.accessToken, refresh_token: tokens.refreshToken }, version: STORE_VERSION }),
  );
}

export function writeAccount(storage: KeyValueStorage | undefined, ids: { accountId: string; companyId: string }): void {
  storage?.setItem(ACCOUNT_ID_KEY, ids.accountId);
  storage?.setItem(COMPANY_ID_KEY, ids.companyId);
}

/** Removes both tokens (the store keeps its empty default shape) and the account ids. */
export function clearSession(storage: KeyValueStorage | undefined): void {
  writeTokens(storage, { accessToken: '', refreshToken: '' });
  storage?.removeItem(ACCOUNT_ID_KEY);
  storage?.removeItem(COMPANY_ID_KEY);
}

/** localStorage, or undefined where it is missing or blocked (then the session lives in memory). */
export function browserStorage(): KeyValueStorage | undefined {
  try {
    const storage = globalThis.localStorage;
    if (!storage) return undefined;
    const probe = '__parley_probe__';
    storage.setItem(probe, probe);
    storage.removeItem(probe);
    return storage;
  } catch {
    return undefined;
  }
}

/** An in-memory Storage (tests, and browsers that block localStorage). */
export function memoryStorage(initial: Record<string, string> = {}): KeyValueStorage & { dump(): Record<string, string> } {
  const items = new Map(Object.entries(initial));
  return {
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => {
      items.set(key, String(value));
    },
    removeItem: (key) => {
      items.delete(key);
    },
    dump: () => Object.fromEntries(items),
  };
}
