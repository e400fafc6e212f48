import type { Kysely } from 'kysely';
import type { DB, RefreshTokensTable, SessionsTable } from '../../platform/db/schema.js';

/**
 * The sessions and refresh_tokens queries of ./sessions.ts (one login = one session = one family of
 * refresh tokens). A session belongs to an account of a company; tokens are looked up by their hash only.
 */

const iso = (d: Date) => d.toISOString();

export async function insertSession(db: Kysely<DB>, row: SessionsTable): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

export async function insertRefreshToken(db: Kysely<DB>, row: RefreshTokensTable): Promise<void> {
  await db.insertInto('refresh_tokens').values(row).execute();
}

/** The refresh token with this hash and its session (owner, revocation, expiry); undefined when unknown. */
export function refreshTokenByHash(db: Kysely<DB>, tokenHash: string) {
  return db
    .selectFrom('refresh_tokens as r')
    .innerJoin('sessions as s', 's.id', 'r.session_id')
    .select([
      'r.id',
      'r.session_id',
      'r.expires_at',
      's.account_id',
      's.company_id',
      's.revoked_at',
      's.expires_at as session_expires_at',
    ])
    .where('r.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Marks an unused refresh token used (one winner among concurrent rotations); true for the winner. */
export async function claimRefreshToken(db: Kysely<DB>, id: string, now: Date): Promise<boolean> {
  const claimed = await db
    .updateTable('refresh_tokens')
    .set({ used_at: iso(now) })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}

/** When a refresh token was used, and whether its session is revoked. */
export function refreshTokenUse(db: Kysely<DB>, id: string) {
  return db
    .selectFrom('refresh_tokens as r')
    .innerJoin('sessions as s', 's.id', 'r.session_id')
    .select(['r.used_at', 's.revoked_at'])
    .where('r.id', '=', id)
    .executeTakeFirst();
}

export async function revokeSession(db: Kysely<DB>, sessionId: string, reason: string, now: Date): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ revoked_at: iso(now), revoked_reason: reason })
    .where('id', '=', sessionId)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Revokes every live session of an account, except `keep` (the caller's own, on password change). */
export async function revokeAccountSessions(
  db: Kysely<DB>,
  accountId: string,
  reason: string,
  now: Date,
  keep?: string,
): Promise<void> {
  let q = db
    .updateTable('sessions')
    .set({ revoked_at: iso(now), revoked_reason: reason })
    .where('account_id', '=', accountId)
    .where('revoked_at', 'is', null);
  if (keep) q = q.where('id', '!=', keep);
  await q.execute();
}

/** True when the session exists, belongs to the account, is not revoked and has not expired. */
export async function isSessionLive(db: Kysely<DB>, sessionId: string, accountId: string, now: Date): Promise<boolean> {
  const s = await db
    .selectFrom('sessions')
    .select(['account_id', 'revoked_at', 'expires_at'])
    .where('id', '=', sessionId)
    .executeTakeFirst();
  return !!s && s.account_id === accountId && s.revoked_at === null && s.expires_at > iso(now);
}
