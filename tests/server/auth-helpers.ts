import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { LoginResponse } from '../../src/api/contract/account.js';
import type { TestApp } from './helpers.js';

/**
 * The password test accounts sign up with unless a test chooses another: strong enough for the server's
 * strength check (zxcvbn score 4). Derive others from it (`${STRONG_PASSWORD} again`) when a test needs a
 * second good one.
 */
export const STRONG_PASSWORD = 'correct horse battery staple';

export interface SignUpOverrides {
  name?: string;
  email?: string;
  password?: string;
  /** optional profile photo */
  file?: Blob;
  fileName?: string;
}

export interface SignedUp {
  token: string;
  refresh_token: string;
  accountId: string;
  companyId: string;
  email: string;
  password: string;
}

/** A fresh company and its first account, registered through the real endpoint. */
export async function signUp(t: TestApp, overrides: SignUpOverrides = {}): Promise<SignedUp> {
  const email = overrides.email ?? `user-${randomBytes(5).toString('hex')}@example.com`;
  const password = overrides.password ?? STRONG_PASSWORD;
  const form = new FormData();
  form.set('name', overrides.name ?? 'Test User');
  form.set('email', email);
  form.set('password', password);
  if (overrides.file) form.set('file', overrides.file, overrides.fileName ?? 'photo.png');
  const res = await t.req('POST', '/api/v1/account/register', { body: form });
  const body = (await res.json()) as LoginResponse;
  expect(res.status, JSON.stringify(body)).toBe(201);
  return {
    token: body.token,
    refresh_token: body.refresh_token,
    accountId: body.account._id,
    companyId: body.account.companyId,
    email: email.toLowerCase(),
    password,
  };
}

/** POST /account/login; returns the response and its parsed body. */
export async function logIn(t: TestApp, email: string, password: string, headers?: Record<string, string>) {
  const res = await t.req('POST', '/api/v1/account/login', { body: { email, password }, ...(headers ? { headers } : {}) });
  return { res, body: (await res.json()) as LoginResponse & { msg: string } };
}

/** A valid 1x1 PNG. */
export const TINY_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
