import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.js';
import { HttpError } from '../lib/http.js';

/**
 * Fixed-window counters in the database, so every server instance shares them. One atomic upsert
 * (INSERT ... ON CONFLICT DO UPDATE ... RETURNING) per hit works the same on SQLite and PostgreSQL.
 */
export interface Limit {
  /** e.g. 'login', 'forgot:ip' */
  name: string;
  max: number;
  windowMs: number;
}

export const LIMITS = {
  /** failed logins per IP + email */
  login: { name: 'login', max: 5, windowMs: 15 * 60_000 },
  /**
   * failed logins per IP, whatever the email (a flood over many emails; successes are forgiven): over
   * it, 429 before any password is hashed
   */
  loginPerIp: { name: 'login:ip', max: 50, windowMs: 15 * 60_000 },
  /** wrong current password on change-password, per account */
  changePassword: { name: 'chpw', max: 5, windowMs: 15 * 60_000 },
  forgotPerEmail: { name: 'forgot:email', max: 3, windowMs: 60 * 60_000 },
  forgotPerIp: { name: 'forgot:ip', max: 10, windowMs: 60 * 60_000 },
  contactPerIp: { name: 'contact:ip', max: 5, windowMs: 60 * 60_000 },
} satisfies Record<string, Limit>;

/** The tarpit of refused logins in production (see AppConfig.refusedLoginDelayMs). */
export const REFUSED_LOGIN_DELAY_MS = 1000;

export interface Hit {
  count: number;
  /** true when this hit went over the limit */
  limited: boolean;
  /** seconds until the window ends */
  retryAfterS: number;
}

function windowOf(limit: Limit, now: Date) {
  const start = Math.floor(now.getTime() / limit.windowMs) * limit.windowMs;
  const end = start + limit.windowMs;
  return {
    start: new Date(start).toISOString(),
    end: new Date(end).toISOString(),
    retryAfterS: Math.max(1, Math.ceil((end - now.getTime()) / 1000)),
  };
}

/** Counts one attempt and says whether it is over the limit. */
export async function hit(db: Kysely<DB>, limit: Limit, subject: string, now: Date): Promise<Hit> {
  const w = windowOf(limit, now);
  const key = `${limit.name}:${subject}`;
  const row = await db
    .insertInto('rate_limits')
    .values({ key, window_start: w.start, count: 1, expires_at: w.end })
    .onConflict((oc) => oc.columns(['key', 'window_start']).doUpdateSet({ count: sql<number>`rate_limits.count + 1` }))
    .returning('count')
    .executeTakeFirstOrThrow();
  // ended windows are dropped now and then, so the table stays small without a scheduler
  if (Math.random() < 0.01) await pruneExpired(db, now);
  const count = Number(row.count);
  return { count, limited: count > limit.max, retryAfterS: w.retryAfterS };
}

/** Forgets the attempts of the current window (a successful login clears its failures). */
export async function clear(db: Kysely<DB>, limit: Limit, subject: string, now: Date): Promise<void> {
  await db
    .deleteFrom('rate_limits')
    .where('key', '=', `${limit.name}:${subject}`)
    .where('window_start', '=', windowOf(limit, now).start)
    .execute();
}

/** Takes one attempt back (a successful login is not held against its IP). */
export async function forgive(db: Kysely<DB>, limit: Limit, subject: string, now: Date): Promise<void> {
  await db
    .updateTable('rate_limits')
    .set({ count: sql<number>`rate_limits.count - 1` })
    .where('key', '=', `${limit.name}:${subject}`)
    .where('window_start', '=', windowOf(limit, now).start)
    .where('count', '>', 0)
    .execute();
}

/** Drops counters whose window has ended (called opportunistically; cheap thanks to the index). */
export async function pruneExpired(db: Kysely<DB>, now: Date): Promise<void> {
  await db.deleteFrom('rate_limits').where('expires_at', '<=', now.toISOString()).execute();
}

/** The 429 answer, with Retry-After. */
export function tooManyAttempts(h: Hit): HttpError {
  const minutes = Math.max(1, Math.ceil(h.retryAfterS / 60));
  return new HttpError(
    429,
    `Too many attempts. Please try again in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}.`,
    undefined,
    { 'Retry-After': String(h.retryAfterS) },
  );
}

/**
 * Subjects known to be over their limit, with the end of their window, per database (so test apps on
 * separate databases never share them). Only a success lowers a count, and a subject over its limit is
 * refused before it can succeed, so it stays over until its window ends: while it does, it is refused
 * from memory, without a write per attempt, which keeps a flood of refused attempts cheap. The database
 * stays the source of truth, shared by every instance.
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

/** Throws 429 when the subject is known to be over the limit, without counting (nor touching the database). */
export function refuseIfBlocked(db: Kysely<DB>, limit: Limit, subject: string, now: Date): void {
  const until = blockedUntil(db, `${limit.name}:${subject}`, now);
  if (until !== undefined)
    throw tooManyAttempts({
      count: limit.max + 1,
      limited: true,
      retryAfterS: Math.max(1, Math.ceil((until - now.getTime()) / 1000)),
    });
}

/** Counts the attempt and throws 429 when over the limit. */
export async function enforce(db: Kysely<DB>, limit: Limit, subject: string, now: Date): Promise<Hit> {
  refuseIfBlocked(db, limit, subject, now);
  const h = await hit(db, limit, subject, now);
  if (h.limited) {
    rememberBlocked(db, `${limit.name}:${subject}`, now.getTime() + h.retryAfterS * 1000, now);
    throw tooManyAttempts(h);
  }
  return h;
}
