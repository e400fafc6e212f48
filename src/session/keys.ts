/**
 * The local-storage keys of the session (see storage.ts). A module of its own, free of imports, so the
 * prerendered pages' scripts (src/landing/boot.ts, src/landing/early.ts) can read the held session without
 * loading the app.
 */
export const AUTH_STORE_KEY = 'auth-store';
export const ACCOUNT_ID_KEY = 'accountId';
export const COMPANY_ID_KEY = 'companyId';

/** The access token of the persisted session ('' when none), read without loading the app. */
export function heldAccessToken(storage: Pick<Storage, 'getItem'> | undefined = globalThis.localStorage): string {
  try {
    const stored = JSON.parse(storage?.getItem(AUTH_STORE_KEY) ?? 'null') as {
      state?: { access_token?: unknown };
      access_token?: unknown;
    } | null;
    const token = stored?.state?.access_token ?? stored?.access_token;
    return typeof token === 'string' ? token : '';
  } catch {
    return '';
  }
}
