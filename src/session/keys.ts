/**
 * The local-storage keys of the session (see storage.ts). A module of its own, free of imports, so the
 * landing page's boot script (src/landing/boot.ts) can tell whether a session is held without loading the app.
 */
export const AUTH_STORE_KEY = 'auth-store';
export const ACCOUNT_ID_KEY = 'accountId';
export const COMPANY_ID_KEY = 'companyId';
