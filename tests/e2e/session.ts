/**
 * Signing in for e2e tests that are about something else than signing in: registers a fresh company
 * through the real API (POST /account/register) and hands the page the tokens the way the app keeps
 * them (localStorage `auth-store`, `accountId`, `companyId`) before any script of the app runs.
 *
 *   const user = await signUpViaApi(b.baseUrl);
 *   const page = await signedInPage(b, user);
 *   await page.goto(b.url('/dashboard'));
 */
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import type { TestBrowser } from './browser.js';

export interface ApiUser {
  email: string;
  password: string;
  name: string;
  token: string;
  refreshToken: string;
  accountId: string;
  companyId: string;
}

export async function signUpViaApi(baseUrl: string, name = 'Erin Test'): Promise<ApiUser> {
  const email = `e2e-${randomBytes(5).toString('hex')}@example.com`;
  const password = 'quiet meadow 8841';
  const form = new FormData();
  form.set('name', name);
  form.set('email', email);
  form.set('password', password);
  const res = await fetch(new URL('/api/v1/account/register', baseUrl), { method: 'POST', body: form });
  const body = (await res.json()) as {
    token: string;
    refresh_token: string;
    account: { _id: string; companyId: string };
    msg?: string;
  };
  if (res.status !== 201) throw new Error(`register answered ${res.status}: ${body.msg}`);
  return {
    email,
    password,
    name,
    token: body.token,
    refreshToken: body.refresh_token,
    accountId: body.account._id,
    companyId: body.account.companyId,
  };
}

/** A JSON call to the API as `user` (seeding data for a browser test). */
export async function apiCall<T = unknown>(
  baseUrl: string,
  user: ApiUser,
  method: string,
  pathname: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(new URL(`/api/v1${pathname}`, baseUrl), {
    method,
    headers: { Authorization: `Bearer ${user.token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** A new page of `b` that starts signed in as `user`. */
export async function signedInPage(b: TestBrowser, user: ApiUser): Promise<Page> {
  const page = await b.newPage();
  await page.addInitScript(
    ({ token, refreshToken, accountId, companyId }) => {
      // only once per page: a later sign-out in the test must stick across reloads
      if (sessionStorage.getItem('e2e-seeded')) return;
      sessionStorage.setItem('e2e-seeded', '1');
      localStorage.setItem(
        'auth-store',
        JSON.stringify({ state: { access_token: token, refresh_token: refreshToken }, version: 0 }),
      );
      localStorage.setItem('accountId', accountId);
      localStorage.setItem('companyId', companyId);
    },
    { token: user.token, refreshToken: user.refreshToken, accountId: user.accountId, companyId: user.companyId },
  );
  return page;
}

/** Adds a number the company brings itself (POST /number/create): an assigned number of `user`'s company. */
export async function createNumberViaApi(baseUrl: string, user: ApiUser, phone: string): Promise<void> {
  const res = await apiCall<{ msg?: string }>(baseUrl, user, 'POST', '/number/create', {
    phone_number: phone,
    phone_number_type: 'local',
    phone_number_pretty: phone,
    termination_uri: 'parley-e2e.pstn.twilio.com',
  });
  if (res.status !== 201) throw new Error(`POST /number/create answered ${res.status}: ${res.body.msg}`);
}
