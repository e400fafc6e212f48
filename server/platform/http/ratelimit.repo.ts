import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/schema.js';

/** The rate_limits queries of ./ratelimit.ts: one row per attempt, keyed by `name:subject`. */

export async function insertAttempt(db: Kysely<DB>, key: string, entry: string, expiresAt: string): Promise<void> {
  await db.insertInto('rate_limits').values({ key, window_start: entry, count: 1, expires_at: expiresAt }).execute();
}

/** PostgreSQL only: holds a transaction-scoped advisory lock on `key` until `trx` ends. */
export async function lockKey(trx: Kysely<DB>, key: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
}

/** The live attempts of `key` that precede `entry`: how many, and the latest one. */
export async function attemptsBefore(db: Kysely<DB>, key: string, entry: string, now: string) {
  const row = await db
    .selectFrom('rate_limits')
    .select([sql<number>`count(*)`.as('n'), sql<string | null>`max(window_start)`.as('last')])
    .where('key', '=', key)
    .where('window_start', '<', entry)
    .where('expires_at', '>', now)
    .executeTakeFirstOrThrow();
  return { n: Number(row.n), last: row.last };
}

export async function deleteAttempt(db: Kysely<DB>, key: string, entry: string): Promise<void> {
  await db.deleteFrom('rate_limits').where('key', '=', key).where('window_start', '=', entry).execute();
}

const liveAttempts = (db: Kysely<DB>, key: string, now: string) =>
  db.selectFrom('rate_limits').where('key', '=', key).where('expires_at', '>', now);

export async function countLiveAttempts(db: Kysely<DB>, key: string, now: string): Promise<number> {
  const { n } = await liveAttempts(db, key, now).select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow();
  return Number(n);
}

/** When the `nth` (1-based, oldest first) live attempt of `key` expires; undefined when there are fewer. */
export async function nthLiveExpiry(db: Kysely<DB>, key: string, now: string, nth: number): Promise<string | undefined> {
  const row = await liveAttempts(db, key, now)
    .select('expires_at')
    .orderBy('window_start')
    .limit(1)
    .offset(nth - 1)
    .executeTakeFirst();
  return row?.expires_at;
}

export async function deleteKey(db: Kysely<DB>, key: string): Promise<void> {
  await db.deleteFrom('rate_limits').where('key', '=', key).execute();
}

/** Drops attempts whose window has ended; how many. */
export async function deleteExpiredAttempts(db: Kysely<DB>, now: string): Promise<number> {
  const res = await db.deleteFrom('rate_limits').where('expires_at', '<=', now).executeTakeFirst();
  return Number(res.numDeletedRows);
}
