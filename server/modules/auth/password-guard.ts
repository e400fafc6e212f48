import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { AppDeps } from '../../platform/deps.js';
import { HttpError } from '../../platform/http/http.js';
import { type Backoff, clear, enforce, enterBackoff, forgive, LIMITS } from '../../platform/http/ratelimit.js';
import { clientIp } from './middleware.js';
import { verifyPassword } from './passwords.js';

/**
 * The one throttle of every route that verifies a password (POST /account/login, PUT /account/login,
 * DELETE /company/{id}): every check counts
 * - per IP (LIMITS.loginPerIp: 50 failures in a sliding 15 minutes, successes forgiven), and
 * - per account (PASSWORD_BACKOFF: 10 failures in a sliding 24 hours pass at once; after that each attempt
 *   waits 30 s after the latest failure, doubling with each failure up to an hour), or, for a login from a
 *   known device of that account, per device instead (the same back-off, keyed by the device).
 * Counted before the password is verified (parallel guesses are ranked, none slips through); a success
 * takes its IP attempt back and clears its account's (or device's) failures. A 429 waits
 * `refusedLoginDelayMs` first (the tarpit). See docs/auth.md.
 */
export const PASSWORD_BACKOFF: Backoff = {
  name: 'pw',
  windowMs: 24 * 60 * 60_000,
  free: 10,
  baseMs: 30_000,
  maxMs: 60 * 60_000,
};

/** Runs limit checks; a 429 waits `refusedLoginDelayMs` first (the tarpit of refused password checks). */
export async function tarpit<T>(deps: AppDeps, checks: () => Promise<T> | T): Promise<T> {
  try {
    return await checks();
  } catch (e) {
    const delay = deps.config.refusedLoginDelayMs ?? 0;
    if (e instanceof HttpError && e.status === 429 && delay > 0) await new Promise((r) => setTimeout(r, delay));
    throw e;
  }
}

export interface PasswordCheck {
  ip: string;
  /** the account the password belongs to: its id, or for an unknown email the email (same treatment) */
  account: { id: string } | { email: string };
  /** a known device of that account (see knownDevice): its own back-off replaces the account's */
  device?: string | undefined;
}

/** The back-off subject of a check. */
const subjectOf = (who: PasswordCheck) =>
  who.device ? `d:${who.device}` : 'id' in who.account ? `a:${who.account.id}` : `e:${who.account.email}`;

/**
 * Counts the check under the shared throttle (429 when over it), verifies `password` against `phc`, and
 * answers whether it matched.
 */
export async function guardedVerify(deps: AppDeps, who: PasswordCheck, phc: string, password: string): Promise<boolean> {
  const db = deps.db.db;
  const now = deps.clock.now();
  const subject = subjectOf(who);
  const ipAttempt = await tarpit(deps, async () => {
    const ip = await enforce(db, LIMITS.loginPerIp, who.ip, now);
    await enterBackoff(db, PASSWORD_BACKOFF, subject, now);
    return ip.entry as string;
  });
  const valid = await verifyPassword(phc, password);
  if (valid) {
    await forgive(db, LIMITS.loginPerIp, who.ip, ipAttempt);
    await clear(db, PASSWORD_BACKOFF, subject);
  }
  return valid;
}

/** guardedVerify for a signed-in caller: its account, the request's IP. */
export const verifyCallerPassword = (deps: AppDeps, c: Context, accountId: string, phc: string, password: string) =>
  guardedVerify(deps, { ip: clientIp(c, deps), account: { id: accountId } }, phc, password);

// ---------------------------------------------------------------------------------------------
// Known devices

/**
 * A device cookie marks a browser where the account's owner logged in with the right password. It is
 * `<nonce>.<mac>`: 16 random bytes and HMAC-SHA256 over the account id, the nonce and a digest of the
 * account's current password hash, keyed by a key derived from the JWT key. It holds no account id;
 * it is valid only for the account it was issued to, and only until that account's password changes.
 * HttpOnly, SameSite=Strict, sent only to /api/v1/account/login, 180 days.
 */
export const DEVICE_COOKIE = 'parley_device';
export const DEVICE_COOKIE_PATH = '/api/v1/account/login';
export const DEVICE_COOKIE_MAX_AGE_S = 180 * 24 * 3600;

const deviceKey = (jwtKey: Uint8Array) => createHmac('sha256', jwtKey).update('parley-device-cookie-v1').digest();

function deviceMac(deps: AppDeps, account: { id: string; password_hash: string }, nonce: string): Buffer {
  const pw = createHash('sha256').update(account.password_hash).digest('hex');
  return createHmac('sha256', deviceKey(deps.secrets.jwtKey)).update(`${account.id}.${nonce}.${pw}`).digest();
}

/** The nonce of the request's device cookie when it was issued to `account` (with its current password). */
export function knownDevice(deps: AppDeps, c: Context, account: { id: string; password_hash: string } | undefined) {
  const value = getCookie(c, DEVICE_COOKIE);
  if (!account || !value) return undefined;
  const [nonce, mac, extra] = value.split('.');
  if (!nonce || !mac || extra !== undefined || !/^[\w-]{22}$/.test(nonce)) return undefined;
  const given = Buffer.from(mac, 'base64url');
  const expected = deviceMac(deps, account, nonce);
  return given.length === expected.length && timingSafeEqual(given, expected) ? nonce : undefined;
}

/** Sets a fresh device cookie for `account` (after a successful login or password change). */
export function rememberDevice(deps: AppDeps, c: Context, account: { id: string; password_hash: string }): void {
  const nonce = randomBytes(16).toString('base64url');
  setCookie(c, DEVICE_COOKIE, `${nonce}.${deviceMac(deps, account, nonce).toString('base64url')}`, {
    httpOnly: true,
    sameSite: 'Strict',
    secure: deps.config.publicUrl.startsWith('https:'),
    path: DEVICE_COOKIE_PATH,
    maxAge: DEVICE_COOKIE_MAX_AGE_S,
  });
}
