import { afterEach, expect, it, vi } from 'vitest';
import { afterStart } from '../../server/compose.js';
import { REVOKED_SESSION_KEPT_MS, SWEEP_BATCH, SWEEP_INTERVAL_MS, sweepExpired } from '../../server/modules/auth/sweep.js';
import { parseEnv } from '../../server/platform/env.js';
import { settled } from '../../server/platform/jobs/later.js';
import { logIn, signUp } from './auth-helpers.js';
import { countRows, describeEachDb, type TestApp, useTestApp } from './helpers.js';

/**
 * Sessions and refresh tokens were never deleted. The sweep deletes what can no longer be used
 * (expired refresh and reset tokens, expired or long-revoked sessions, ended rate-limit attempts),
 * started with the server and stopped at shutdown, on the injected clock.
 */

const DAY = 24 * 60 * 60_000;

async function counts(t: TestApp) {
  const n = (table: 'sessions' | 'refresh_tokens' | 'password_reset_tokens' | 'rate_limits') => countRows(t, table);
  return {
    sessions: await n('sessions'),
    refreshTokens: await n('refresh_tokens'),
    resetTokens: await n('password_reset_tokens'),
    rateLimits: await n('rate_limits'),
  };
}

/** A session row and `tokens` refresh tokens, all expired at `at`. */
async function expiredRows(t: TestApp, accountId: string, companyId: string, at: Date, tokens = 1) {
  const id = `s-${Math.random().toString(36).slice(2)}`;
  const past = new Date(at.getTime() - 1).toISOString();
  await t.deps.db.db
    .insertInto('sessions')
    .values({
      id,
      account_id: accountId,
      company_id: companyId,
      created_at: past,
      expires_at: past,
      revoked_at: null,
      revoked_reason: null,
      ip: null,
      user_agent: null,
    })
    .execute();
  const rows = Array.from({ length: tokens }, (_, i) => ({
    id: `${id}-r${i}`,
    session_id: id,
    token_hash: `${id}-hash-${i}`,
    parent_id: null,
    created_at: past,
    expires_at: past,
    used_at: null,
  }));
  for (let i = 0; i < rows.length; i += 500)
    await t.deps.db.db
      .insertInto('refresh_tokens')
      .values(rows.slice(i, i + 500))
      .execute();
  return id;
}

describeEachDb('expiry sweep', (kind) => {
  const t = useTestApp(kind);
  afterEach(() => {
    vi.useRealTimers();
  });

  it('deletes reset tokens, refresh tokens, revoked and expired sessions and ended attempts as each expires', async () => {
    const s = await signUp(t());
    const other = (await logIn(t(), s.email, s.password)).body;
    expect((await t().req('GET', '/api/v1/account/logout', { token: other.token })).status).toBe(200);
    const refreshed = await t().req('POST', '/api/v1/auth/refresh', { token: s.refresh_token });
    expect(refreshed.status).toBe(200);
    await t().req('POST', '/api/v1/account/forgotpassword', { body: { email: s.email } });
    await settled(t().deps);
    const start = await counts(t());
    expect(start).toMatchObject({ sessions: 2, refreshTokens: 3, resetTokens: 1 });
    expect(start.rateLimits).toBeGreaterThan(0);

    // nothing has expired yet
    expect(await sweepExpired(t().deps.db.db, t().clock.now())).toEqual({
      sessions: 0,
      refreshTokens: 0,
      resetTokens: 0,
      rateLimits: 0,
    });
    // the reset link (30 minutes) and the attempts (one hour) end first
    t().clock.advance(61 * 60_000);
    expect(await sweepExpired(t().deps.db.db, t().clock.now())).toEqual({
      sessions: 0,
      refreshTokens: 0,
      resetTokens: 1,
      rateLimits: start.rateLimits,
    });
    // the logged-out session goes a week after its revocation, with its refresh token
    t().clock.advance(REVOKED_SESSION_KEPT_MS);
    expect((await sweepExpired(t().deps.db.db, t().clock.now())).sessions).toBe(1);
    expect(await counts(t())).toEqual({ sessions: 1, refreshTokens: 2, resetTokens: 0, rateLimits: 0 });
    // the refresh tokens after 30 days (the used one and its successor)
    t().clock.advance(30 * DAY);
    expect((await sweepExpired(t().deps.db.db, t().clock.now())).refreshTokens).toBe(2);
    // the session itself after 90 days; its tokens are refused (they were already) and gone
    t().clock.advance(60 * DAY);
    expect((await sweepExpired(t().deps.db.db, t().clock.now())).sessions).toBe(1);
    expect(await counts(t())).toEqual({ sessions: 0, refreshTokens: 0, resetTokens: 0, rateLimits: 0 });
    expect((await t().req('POST', '/api/v1/auth/refresh', { token: s.refresh_token })).status).toBe(401);
    // the account is fine: a new login starts a new session
    expect((await logIn(t(), s.email, s.password)).res.status).toBe(200);
  });

  it('keeps live and recently revoked sessions, and deletes a large backlog batch by batch', async () => {
    const s = await signUp(t());
    const backlog = await expiredRows(t(), s.accountId, s.companyId, t().clock.now(), SWEEP_BATCH + 5);
    const result = await sweepExpired(t().deps.db.db, t().clock.now());
    expect(result).toMatchObject({ sessions: 1, refreshTokens: SWEEP_BATCH + 5 });
    expect(await t().deps.db.db.selectFrom('sessions').select('id').where('id', '=', backlog).execute()).toEqual([]);
    // the signed-up session is untouched and works
    expect((await counts(t())).sessions).toBe(1);
    expect((await t().req('GET', '/api/v1/account/me', { token: s.token })).status).toBe(200);
  });

  it('runs when the server starts and every 5 minutes after, on the injected clock, until shutdown', async () => {
    const s = await signUp(t());
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    await expiredRows(t(), s.accountId, s.companyId, t().clock.now());
    const background = await afterStart(t().deps, parseEnv({ DEMO: 'off' }), () => {});
    try {
      await expect.poll(async () => (await counts(t())).sessions).toBe(1);
      // an hour later on the clock, sessions that expired meanwhile go at the next run
      t().clock.advance(2 * 60 * 60_000);
      await expiredRows(t(), s.accountId, s.companyId, t().clock.now());
      expect((await counts(t())).sessions).toBe(2);
      await vi.advanceTimersByTimeAsync(SWEEP_INTERVAL_MS);
      await expect.poll(async () => (await counts(t())).sessions).toBe(1);
    } finally {
      await background.stop();
    }
    // stopped: no timer left, and a later hour deletes nothing
    expect(vi.getTimerCount()).toBe(0);
    await expiredRows(t(), s.accountId, s.companyId, t().clock.now());
    await vi.advanceTimersByTimeAsync(SWEEP_INTERVAL_MS * 2);
    expect((await counts(t())).sessions).toBe(2);
  });
});
