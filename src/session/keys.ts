/**
 * The local-storage keys of the session (see storage.ts). A module of its own, free of imports, so the
 * prerendered pages' scripts (src/landing/boot.ts, src/landing/early.ts) can read the held session without
 * loading the app.
 */
export const AUTH_STORE_KEY = 'auth-store';
export const ACCOUNT_ID_KEY = 'accountId';
export const COMPANY_ID_KEY = 'companyId';

/**
 * The tokens of an `auth-store` value (see storage.ts): `{"state":{...}}` or a plain `{access_token,
 * refresh_token}` object; a token that is missing or not a string, and JSON that does not parse, read as ''.
 */
export function parseTokens(raw: string | null | undefined): { accessToken: string; refreshToken: string } {
  let json: unknown;
  try {
    json = JSON.parse(raw ?? 'null');
  } catch {
    json = null;
  }
  const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
  const store = isObject(json) ? (isObject(json.state) ? json.state : json) : {};
  const text = (x: unknown) => (typeof x === 'string' ? x : '');
  return { accessToken: text(store.access_token), refreshToken: text(store.refresh_token) };
}

/** The access token of the persisted session ('' when none), read without loading the app. */
export function heldAccessToken(storage: Pick<Storage, 'getItem'> | undefined = globalThis.localStorage): string {
  try {
    return parseTokens(storage?.getItem(AUTH_STORE_KEY)).accessToken;
  } catch {
    // storage that throws on access (blocked): no session to read
    return '';
  }
}
