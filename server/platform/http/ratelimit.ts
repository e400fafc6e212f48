import { randomBytes } from 'node:crypto';
import { type Kysely, PostgresAdapter } from 'kysely';
import type { DB } from '../db/schema.js';
import { HttpError } from './http.js';
import {
  attemptsBefore,
  countLiveAttempts,
  deleteAttempt,
  deleteExpiredAttempts,
  deleteKey,
  insertAttempt,
  lockKey,
  nthLiveExpiry,
} from './ratelimit.repo.js';

/**
 * Sliding-window limits in the database, so every server instance shares them. Each attempt is one row of
 * `rate_limits` (`key`, `window_start` = the attempt's time and a random tie-break, `expires_at` = its time +
 * the window): a subject has made N attempts in the last window when N of its rows have not expired. The
 * window slides with the clock; there is no boundary at which a fresh allowance starts (a fixed window
 * allowed twice the limit across its boundary).
 *
 * An attempt is written first, then ranked among its subject's live attempts (those before it in time):
 * it goes over the limit when `max` attempts precede it. Parallel attempts are ranked consistently, so
 * exactly `max` of them pass on SQLite and PostgreSQL alike. A refused attempt deletes its row, so refused
 * attempts never extend the wait; the rows of a subject are therefore at most `max` (plus those in flight).
 */
export interface Limit {
  /** e.g. 'login', 'forgot:ip' */
  name: string;
  max: number;
  windowMs: number;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const LIMITS = {
  /** failed logins per IP + email */
  login: { name: 'login', max: 5, windowMs: 15 * MINUTE },
  /**
   * failed password checks per IP on every route that verifies a password (login, password change, company
   * deletion), whatever the account (a flood over many emails; successes are forgiven): over it, 429 before
   * any password is hashed
   */
  loginPerIp: { name: 'login:ip', max: 50, windowMs: 15 * MINUTE },
  /** sign-up attempts per IP, new and already-registered emails alike (AppConfig.signUpsPerHour overrides max) */
  signUpPerIp: { name: 'signup:ip', max: 20, windowMs: HOUR },
  forgotPerEmail: { name: 'forgot:email', max: 3, windowMs: HOUR },
  forgotPerIp: { name: 'forgot:ip', max: 10, windowMs: HOUR },
  contactPerIp: { name: 'contact:ip', max: 5, windowMs: HOUR },
  /** reports of the 404 page per IP (each may write a log line) */
  notFoundPerIp: { name: 'notfound:ip', max: 30, windowMs: HOUR },
} satisfies Record<string, Limit>;

/** The tarpit of refused logins in production (see AppConfig.refusedLoginDelayMs). */
export const REFUSED_LOGIN_DELAY_MS = 1000;

export interface Hit {
  /** attempts in the window, this one included */
  count: number;
  /** true when this attempt went over the limit (it was not counted) */
  limited: boolean;
  /** seconds until one more attempt would be allowed */
  retryAfterS: number;
  /** this attempt's row (`forgive` takes it back); undefined when limited */
  entry?: string | undefined;
}

const iso = (ms: number) => new Date(ms).toISOString();
const keyOf = (name: string, subject: string) => `${name}:${subject}`;
/** The time of an attempt's row. */
const timeOf = (entry: string) => Date.parse(entry.slice(0, entry.indexOf('~')));
const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

let sequence = 0;
/**
 * Writes one attempt. Its `window_start` (time ~ sequence number of this process ~ random) orders it after
 * every earlier attempt: in the same millisecond, after those this process made before, and among other
 * instances' at random.
 */
async function record(db: Kysely<DB>, key: string, windowMs: number, now: Date): Promise<string> {
  sequence = (sequence + 1) % 1e12;
  const entry = `${now.toISOString()}~${String(sequence).padStart(12, '0')}~${randomBytes(4).toString('hex')}`;
  await insertAttempt(db, key, entry, iso(now.getTime() + windowMs));
  return entry;
}

/**
 * Records one attempt of `key` and ranks it among the live ones, as ONE step per key: on PostgreSQL the
 * two statements run in a transaction holding an advisory lock on the key, so parallel attempts (other
 * connections, other servers) are ranked in the order they commit and none can miss one that precedes
 * it (without it, an attempt whose insert was still in flight was not counted by a later-ranked one, and
 * 6 of 10 parallel guesses got through a limit of 5). SQLite runs Kysely's one connection in call order.
 */
async function ranked(db: Kysely<DB>, key: string, windowMs: number, now: Date) {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) {
    const entry = await record(db, key, windowMs, now);
    return { entry, ...(await before(db, key, entry, now)) };
  }
  return db.transaction().execute(async (trx) => {
    await lockKey(trx, key);
    const entry = await record(trx, key, windowMs, now);
    return { entry, ...(await before(trx, key, entry, now)) };
  });
}

/** The live attempts of `key` that precede `entry`: how many, and the latest one. */
function before(db: Kysely<DB>, key: string, entry: string, now: Date) {
  return attemptsBefore(db, key, entry, now.toISOString());
}

function remove(db: Kysely<DB>, key: string, entry: string) {
  return deleteAttempt(db, key, entry);
}

/**
 * How long until `key` may make one more attempt under `max`: until enough of its live attempts have
 * expired that at most max - 1 remain (they expire in the order they were made).
 */
async function waitMs(db: Kysely<DB>, key: string, max: number, now: Date): Promise<number> {
  const n = await countLiveAttempts(db, key, now.toISOString());
  const mustExpire = n - (max - 1);
  if (mustExpire <= 0) return 0;
  const expiresAt = await nthLiveExpiry(db, key, now.toISOString(), mustExpire);
  return expiresAt ? Date.parse(expiresAt) - now.getTime() : 0;
}

/** Counts one attempt and says whether it is over the limit (an attempt over it is not counted). */
export async function hit(db: Kysely<DB>, limit: Limit, subject: string, now: Date): Promise<Hit> {
  const key = keyOf(limit.name, subject);
  const { entry, n } = await ranked(db, key, limit.windowMs, now);
  if (n < limit.max) return { count: n + 1, limited: false, retryAfterS: 0, entry };
  await remove(db, key, entry);
  return { count: n + 1, limited: true, retryAfterS: seconds(await waitMs(db, key, limit.max, now)) };
}

/** Forgets every attempt of the subject (a successful login clears its failures), here and in memory. */
export async function clear(db: Kysely<DB>, limit: Pick<Limit, 'name'>, subject: string): Promise<void> {
  const key = keyOf(limit.name, subject);
  await deleteKey(db, key);
  blockedByDb.get(db)?.delete(key);
}

/** Takes one attempt back (a successful login is not held against its IP). */
export async function forgive(db: Kysely<DB>, limit: Pick<Limit, 'name'>, subject: string, entry: string): Promise<void> {
  await remove(db, keyOf(limit.name, subject), entry);
}

/** Drops attempts whose window has ended (the sweep, every SWEEP_INTERVAL_MS). */
export async function pruneExpired(db: Kysely<DB>, now: Date): Promise<number> {
  return deleteExpiredAttempts(db, now.toISOString());
}

/** The 429 answer's sentence when a route gives none: how long to wait, in whole minutes. */
const triedTooOften = (retryAfterS: number) => {
  const minutes = Math.max(1, Math.ceil(retryAfterS / 60));
  return `Too many attempts. Please try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`;
};

/** Says why an attempt was refused, given the seconds until the next one is allowed. */
export type RefusalMessage = (retryAfterS: number) => string;

/** The 429 answer, with Retry-After. */
export function tooManyAttempts(h: Pick<Hit, 'retryAfterS'>, message: RefusalMessage = triedTooOften): HttpError {
  return new HttpError(429, message(h.retryAfterS), undefined, { 'Retry-After': String(h.retryAfterS) });
}

/**
 * Subjects known to be refused until a given time, per database (so test apps on separate databases never
 * share them). Only a success lowers a count, and a subject over its limit is refused before it can
 * succeed, so it stays refused until then: while it does, it is refused from memory, without a write per
 * attempt, which keeps a flood of refused attempts cheap. The database stays the source of truth, shared
 * by every instance.
 */
const blockedByDb = new WeakMap<Kysely<DB>, Map<string, number>>();
const BLOCKED_MAX = 10_000;

function blockedUntil(db: Kysely<DB>, key: string, now: Date): number | undefined {
  const until = blockedByDb.get(db)?.get(key);
  return until !== undefined && until > now.getTime() ? until : undefined;
}

function rememberBlocked(db: Kysely<DB>, key: string, until: number, now: Date) {
  const blocked = blockedByDb.get(db) ?? new Map<string, number>();
  blockedByDb.set(db, blocked);
  if (blocked.size >= BLOCKED_MAX) {
    for (const [k, end] of blocked) if (end <= now.getTime()) blocked.delete(k);
    if (blocked.size >= BLOCKED_MAX) blocked.clear();
  }
  blocked.set(key, until);
}

/** Throws 429 when the subject is known to be refused, without counting (nor touching the database). */
export function refuseIfBlocked(
  db: Kysely<DB>,
  limit: Pick<Limit, 'name'>,
  subject: string,
  now: Date,
  message?: RefusalMessage,
): void {
  const until = blockedUntil(db, keyOf(limit.name, subject), now);
  if (until !== undefined) throw tooManyAttempts({ retryAfterS: seconds(until - now.getTime()) }, message);
}

/** Counts the attempt and throws 429 when over the limit (with `message`, else the generic sentence). */
export async function enforce(db: Kysely<DB>, limit: Limit, subject: string, now: Date, message?: RefusalMessage): Promise<Hit> {
  refuseIfBlocked(db, limit, subject, now, message);
  const h = await hit(db, limit, subject, now);
  if (h.limited) {
    rememberBlocked(db, keyOf(limit.name, subject), now.getTime() + h.retryAfterS * 1000, now);
    throw tooManyAttempts(h, message);
  }
  return h;
}

/**
 * Exponential back-off over a sliding window: the first `free` failures of the window pass at once; after
 * that, each attempt must wait `baseMs * 2^(failures - free)` (at most `maxMs`) after the latest failure.
 * Failures leave the window `windowMs` after they were made.
 */
export interface Backoff {
  name: string;
  windowMs: number;
  free: number;
  baseMs: number;
  maxMs: number;
}

/** How long after the latest failure the next attempt must wait, given the failures in the window. */
export function backoffDelayMs(b: Backoff, failures: number): number {
  if (failures < b.free) return 0;
  return Math.min(b.maxMs, b.baseMs * 2 ** (failures - b.free));
}

/**
 * Counts one attempt under the back-off (before the password is verified, so parallel guesses cannot slip
 * through: each is ranked after those that came before it) and answers its row, or throws 429 with the
 * time left to wait (the refused attempt is not counted). A success takes its attempt back or clears.
 */
export async function enterBackoff(db: Kysely<DB>, b: Backoff, subject: string, now: Date): Promise<string> {
  const key = keyOf(b.name, subject);
  refuseIfBlocked(db, b, subject, now);
  const { entry, n, last } = await ranked(db, key, b.windowMs, now);
  const wait = last === null ? 0 : timeOf(last) + backoffDelayMs(b, n) - now.getTime();
  if (wait <= 0) return entry;
  await remove(db, key, entry);
  rememberBlocked(db, key, now.getTime() + wait, now);
  throw tooManyAttempts({ retryAfterS: seconds(wait) });
}
