import type { LoginResponse, RefreshResponse } from '@contract/account.js';
import type { Kysely } from 'kysely';
import { newId } from '../../platform/crypto/ids.js';
import type { DB } from '../../platform/db/schema.js';
import type { AppDeps } from '../../platform/deps.js';
import { sessionExpired } from '../../platform/http/http.js';
import {
  claimRefreshToken,
  insertRefreshToken,
  insertSession,
  refreshTokenByHash,
  refreshTokenUse,
  revokeSession,
} from './session.repo.js';
import { newOpaqueToken, sha256, signAccessToken, successorToken } from './tokens.js';

/** A refresh token lives 30 days from its issue (sliding with each rotation). */
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3600 * 1000;
/** A session (one login) lasts at most 90 days, however often it is refreshed. */
export const SESSION_MAX_AGE_MS = 90 * 24 * 3600 * 1000;
/** A rotated refresh token presented again within this grace gets the same successor (concurrent tabs). */
export const REUSE_GRACE_MS = 10_000;

const iso = (d: Date) => d.toISOString();
const plus = (d: Date, ms: number) => new Date(d.getTime() + ms);

export { sessionExpired };

export interface SessionOwner {
  accountId: string;
  companyId: string;
}

/** Starts a session (a refresh-token family) and answers the login/register body. */
export async function startSession(
  deps: AppDeps,
  owner: SessionOwner,
  meta: { ip?: string | undefined; userAgent?: string | undefined },
  db: Kysely<DB> = deps.db.db,
): Promise<Omit<LoginResponse, 'success' | 'msg'>> {
  const now = deps.clock.now();
  const sessionId = newId(now);
  const refresh = newOpaqueToken();
  await insertSession(db, {
    id: sessionId,
    account_id: owner.accountId,
    company_id: owner.companyId,
    created_at: iso(now),
    expires_at: iso(plus(now, SESSION_MAX_AGE_MS)),
    revoked_at: null,
    revoked_reason: null,
    ip: meta.ip ?? null,
    user_agent: meta.userAgent?.slice(0, 512) ?? null,
  });
  await insertRefreshToken(db, {
    id: newId(now),
    session_id: sessionId,
    token_hash: sha256(refresh),
    parent_id: null,
    created_at: iso(now),
    expires_at: iso(plus(now, REFRESH_TOKEN_TTL_MS)),
    used_at: null,
  });
  const token = await signAccessToken(deps.secrets.jwtKey, { ...owner, sessionId }, now);
  return { token, refresh_token: refresh, account: { _id: owner.accountId, companyId: owner.companyId } };
}

/**
 * Rotates a refresh token.
 * - unused and valid: atomically marks it used (UPDATE ... WHERE used_at IS NULL, one winner) and
 *   inserts its successor, the next member of the family;
 * - already used, within REUSE_GRACE_MS of its rotation: answers the SAME successor (derived, not
 *   stored) with a fresh access token, creating nothing — concurrent tabs/requests stay signed in;
 * - already used after the grace: reuse of a stolen token is assumed, the whole family is revoked.
 */
export async function rotateRefreshToken(deps: AppDeps, presented: string): Promise<RefreshResponse> {
  const db = deps.db.db;
  const now = deps.clock.now();
  const row = await refreshTokenByHash(db, sha256(presented));
  if (!row || row.revoked_at !== null || row.session_expires_at <= iso(now) || row.expires_at <= iso(now)) {
    throw sessionExpired();
  }
  const owner = { accountId: row.account_id, companyId: row.company_id, sessionId: row.session_id };
  const successor = successorToken(deps.secrets.jwtKey, presented);

  const won = await db.transaction().execute(async (trx) => {
    if (!(await claimRefreshToken(trx, row.id, now))) return false;
    await insertRefreshToken(trx, {
      id: newId(now),
      session_id: row.session_id,
      token_hash: sha256(successor),
      parent_id: row.id,
      created_at: iso(now),
      expires_at: iso(plus(now, REFRESH_TOKEN_TTL_MS)),
      used_at: null,
    });
    return true;
  });

  if (!won) {
    const used = await refreshTokenUse(db, row.id);
    const usedAt = used?.used_at ? new Date(used.used_at).getTime() : 0;
    const withinGrace = used && used.revoked_at === null && now.getTime() - usedAt <= REUSE_GRACE_MS;
    if (!withinGrace) {
      await revokeSession(db, row.session_id, 'refresh_token_reuse', now);
      deps.logger.warn('refresh token reused after rotation; session revoked', {
        sessionId: row.session_id,
        accountId: row.account_id,
      });
      throw sessionExpired();
    }
  }
  const access = await signAccessToken(deps.secrets.jwtKey, owner, now);
  return { access_token: access, refresh_token: successor };
}
