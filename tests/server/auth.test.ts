import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import { decodeJwt, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { requireAuth } from '../../server/modules/auth/middleware.js';
import { sha256 } from '../../server/modules/auth/tokens.js';
import type { AppEnv } from '../../server/platform/http/types.js';
import { ACCOUNT_MESSAGES as M, type RefreshResponse } from '../../src/api/contract/account.js';
import { logIn, signUp } from './auth-helpers.js';
import { describeEachDb, LOG_LINES, type TestApp, useTestApp } from './helpers.js';

const refresh = (t: TestApp, token: string) => t.req('POST', '/api/v1/auth/refresh', { token });
const me = (t: TestApp, token: string) => t.req('GET', '/api/v1/account/me', { token });
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

async function familySize(t: TestApp, refreshToken: string) {
  const db = t.deps.db.db;
  const row = await db
    .selectFrom('refresh_tokens')
    .select('session_id')
    .where('token_hash', '=', sha256(refreshToken))
    .executeTakeFirstOrThrow();
  const all = await db.selectFrom('refresh_tokens').select('id').where('session_id', '=', row.session_id).execute();
  return all.length;
}

describeEachDb('auth: tokens and refresh', (kind) => {
  const t = useTestApp(kind);

  describe('access tokens', () => {
    it('are HS256 JWTs with issuer, audience, sub, sid, cid and a 15-minute life', async () => {
      const s = await signUp(t());
      const header = JSON.parse(Buffer.from(s.token.split('.')[0] as string, 'base64url').toString());
      expect(header.alg).toBe('HS256');
      const claims = decodeJwt(s.token);
      expect(claims).toMatchObject({
        iss: 'parley',
        aud: 'parley-api',
        sub: s.accountId,
        cid: s.companyId,
        sid: expect.any(String),
      });
      expect((claims.exp as number) - (claims.iat as number)).toBe(15 * 60);
      expect(claims.iat).toBe(Math.floor(t().clock.now().getTime() / 1000));
    });

    it('are refused when expired, by the injected clock', async () => {
      const s = await signUp(t());
      t().clock.advance(15 * 60 * 1000 - 1000);
      expect((await me(t(), s.token)).status).toBe(200);
      t().clock.advance(2000);
      const res = await me(t(), s.token);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ success: false, msg: M.sessionExpired });
      // the refresh token still gets a new access token
      const r = await refresh(t(), s.refresh_token);
      expect(r.status).toBe(200);
      expect((await me(t(), ((await r.json()) as RefreshResponse).access_token)).status).toBe(200);
    });

    it('refuses alg none, a wrong key, a foreign algorithm, missing exp or sid, wrong issuer or audience', async () => {
      const s = await signUp(t());
      const claims = decodeJwt(s.token);
      const key = t().deps.secrets.jwtKey;
      const now = Math.floor(t().clock.now().getTime() / 1000);
      const build = (opts: { key?: Uint8Array; alg?: string; exp?: boolean; drop?: string; iss?: string; aud?: string }) => {
        const payload: Record<string, unknown> = { sid: claims.sid, cid: claims.cid };
        if (opts.drop) delete payload[opts.drop];
        let jwt = new SignJWT(payload)
          .setProtectedHeader({ alg: opts.alg ?? 'HS256' })
          .setIssuer(opts.iss ?? 'parley')
          .setAudience(opts.aud ?? 'parley-api')
          .setIssuedAt(now);
        if (opts.drop !== 'sub') jwt = jwt.setSubject(claims.sub as string);
        if (opts.exp !== false) jwt = jwt.setExpirationTime(now + 600);
        return jwt.sign(opts.key ?? key);
      };
      // control: the same construction with the right key is accepted
      expect((await me(t(), await build({}))).status).toBe(200);

      const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...claims })}.`;
      const forged = {
        'alg none': none,
        'wrong key': await build({ key: randomBytes(32) }),
        HS512: await build({ alg: 'HS512', key: new Uint8Array(Buffer.concat([key, key])) }),
        'missing exp': await build({ exp: false }),
        'missing sid': await build({ drop: 'sid' }),
        'missing sub': await build({ drop: 'sub' }),
        'wrong issuer': await build({ iss: 'someone-else' }),
        'wrong audience': await build({ aud: 'other-api' }),
        'tampered payload': `${s.token.split('.')[0]}.${b64({ ...claims, sub: 'ffffffffffffffffffffffff' })}.${s.token.split('.')[2]}`,
        garbage: 'not.a.jwt',
      };
      for (const [what, token] of Object.entries(forged)) {
        const res = await me(t(), token);
        expect(res.status, what).toBe(401);
        expect(await res.json(), what).toEqual({ success: false, msg: M.sessionExpired });
      }
    });

    it('a refresh token is not an access token, and an access token is not a refresh token', async () => {
      const s = await signUp(t());
      expect((await me(t(), s.refresh_token)).status).toBe(401);
      const r = await refresh(t(), s.token);
      expect(r.status).toBe(401);
      expect(await r.json()).toEqual({ success: false, msg: M.sessionExpired });
      expect((await t().req('POST', '/api/v1/auth/refresh')).status).toBe(401);
    });

    it('requireAuth(deps) puts the verified identity on the context', async () => {
      const s = await signUp(t());
      const app = new Hono<AppEnv>();
      app.use('/x/*', requireAuth(t().deps));
      app.get('/x/who', (c) => c.json(c.get('auth')));
      app.onError((e, c) => c.json({ status: (e as { status?: number }).status }, 500));
      const ok = await app.request('/x/who', { headers: { Authorization: `Bearer ${s.token}` } });
      expect(await ok.json()).toEqual({ accountId: s.accountId, companyId: s.companyId, sessionId: decodeJwt(s.token).sid });
      const no = await app.request('/x/who');
      expect(await no.json()).toEqual({ status: 401 });
    });
  });

  describe('refresh rotation', () => {
    it('rotates: each refresh token works once and yields a new one', async () => {
      const s = await signUp(t());
      const r1 = await refresh(t(), s.refresh_token);
      expect(r1.status).toBe(200);
      const b1 = (await r1.json()) as RefreshResponse;
      expect(Object.keys(b1).sort()).toEqual(['access_token', 'refresh_token']);
      expect(b1.refresh_token).not.toBe(s.refresh_token);
      expect(b1.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect((await me(t(), b1.access_token)).status).toBe(200);
      t().clock.advance(60_000);
      const r2 = await refresh(t(), b1.refresh_token);
      expect(r2.status).toBe(200);
      const b2 = (await r2.json()) as RefreshResponse;
      expect(b2.refresh_token).not.toBe(b1.refresh_token);
      expect(await familySize(t(), b2.refresh_token)).toBe(3);
      // only hashes are stored
      const stored = await t().deps.db.db.selectFrom('refresh_tokens').select('token_hash').execute();
      for (const row of stored) {
        expect([s.refresh_token, b1.refresh_token, b2.refresh_token]).not.toContain(row.token_hash);
      }
      expect(stored.map((r) => r.token_hash)).toContain(sha256(b2.refresh_token));
      for (const line of LOG_LINES) expect(line).not.toContain(b2.refresh_token);
    });

    it('reuse of a rotated token after the 10 s grace revokes the whole family', async () => {
      const s = await signUp(t());
      const other = (await logIn(t(), s.email, s.password)).body;
      const b1 = (await (await refresh(t(), s.refresh_token)).json()) as RefreshResponse;
      t().clock.advance(10_001);
      const reuse = await refresh(t(), s.refresh_token);
      expect(reuse.status).toBe(401);
      expect(await reuse.json()).toEqual({ success: false, msg: M.sessionExpired });
      // the successor and its access token are dead too
      expect((await refresh(t(), b1.refresh_token)).status).toBe(401);
      expect((await me(t(), b1.access_token)).status).toBe(401);
      expect((await me(t(), s.token)).status).toBe(401);
      // another session of the same account is untouched
      expect((await me(t(), other.token)).status).toBe(200);
      const session = await t()
        .deps.db.db.selectFrom('sessions')
        .select('revoked_reason')
        .where('id', '=', decodeJwt(s.token).sid as string)
        .executeTakeFirstOrThrow();
      expect(session.revoked_reason).toBe('refresh_token_reuse');
    });

    it('within the grace, a reused token gets the SAME successor and no new family member', async () => {
      const s = await signUp(t());
      const b1 = (await (await refresh(t(), s.refresh_token)).json()) as RefreshResponse;
      t().clock.advance(9_000);
      const again = await refresh(t(), s.refresh_token);
      expect(again.status).toBe(200);
      const b2 = (await again.json()) as RefreshResponse;
      expect(b2.refresh_token).toBe(b1.refresh_token);
      expect(await familySize(t(), s.refresh_token)).toBe(2);
      expect((await me(t(), b2.access_token)).status).toBe(200);
      // the successor still rotates normally
      expect((await refresh(t(), b1.refresh_token)).status).toBe(200);
      expect(await familySize(t(), s.refresh_token)).toBe(3);
    });

    it('20 parallel refreshes with one token create exactly one new family member', async () => {
      const s = await signUp(t());
      const answers = await Promise.all(Array.from({ length: 20 }, () => refresh(t(), s.refresh_token)));
      const bodies = (await Promise.all(answers.map((r) => r.json()))) as RefreshResponse[];
      expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
      expect(new Set(bodies.map((b) => b.refresh_token)).size).toBe(1);
      expect(await familySize(t(), s.refresh_token)).toBe(2);
      const rows = await t().deps.db.db.selectFrom('refresh_tokens').select(['parent_id', 'used_at']).execute();
      expect(rows.filter((r) => r.used_at !== null)).toHaveLength(1);
      expect(rows.filter((r) => r.parent_id !== null)).toHaveLength(1);
      expect((await refresh(t(), bodies[0]?.refresh_token as string)).status).toBe(200);
    });

    it('refresh tokens expire after 30 days', async () => {
      const s = await signUp(t());
      t().clock.advance(30 * 24 * 3600 * 1000 + 1000);
      expect((await refresh(t(), s.refresh_token)).status).toBe(401);
    });
  });
});
