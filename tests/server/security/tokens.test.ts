import { createHmac, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { decodeJwt, SignJWT } from 'jose';
import { expect, it } from 'vitest';
import { settled } from '../../../server/platform/jobs/later.js';
import { ACCOUNT_MESSAGES as M, type RefreshResponse } from '../../../src/api/contract/account.js';
import { logIn, type SignedUp, signUp } from '../auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from '../helpers.js';
import { ROUTES, splitRoute } from './matrix.js';

/**
 * Tokens. tests/server/auth.test.ts checks each forged access token against GET /account/me and
 * each revocation once; this suite sends every forged, expired, swapped and revoked token to EVERY route that
 * needs a session (from the route matrix), and to the refresh endpoint: all are refused with 401.
 */

const PROTECTED = Object.entries(ROUTES)
  .filter(([, c]) => c.kind !== 'public')
  .map(([key]) => splitRoute(key));

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const hmac = (alg: 'sha256' | 'sha384' | 'sha512', key: Uint8Array, input: string) =>
  createHmac(alg, key).update(input).digest('base64url');

/** A JWT with any header and payload, signed with HMAC over `key` (the real key unless said). */
function rawJwt(
  header: Record<string, unknown>,
  payload: Record<string, unknown>,
  key: Uint8Array,
  alg: 'sha256' | 'sha384' | 'sha512' = 'sha256',
) {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${hmac(alg, key, input)}`;
}

/** Sends `token` to every protected route and to the refresh endpoint; every answer must be 401. */
async function refusedEverywhere(t: TestApp, token: string, what: string, refreshToo = true) {
  for (const { method, path } of PROTECTED) {
    const url = path.replace(':id', 'ffffffffffffffffffffffff');
    const res = await t.req(method, url, { token, ...(method === 'GET' ? {} : { body: {} }) });
    expect(res.status, `${what}: ${method} ${url}`).toBe(401);
    expect(await res.json(), `${what}: ${method} ${url}`).toEqual({ success: false, msg: M.sessionExpired });
  }
  if (!refreshToo) return;
  const refreshed = await t.req('POST', '/api/v1/auth/refresh', { token });
  expect(refreshed.status, `${what}: refresh`).toBe(401);
}

const me = (t: TestApp, token: string) => t.req('GET', '/api/v1/account/me', { token });
const refresh = async (t: TestApp, token: string) => {
  const res = await t.req('POST', '/api/v1/auth/refresh', { token });
  return { status: res.status, body: (await res.json()) as RefreshResponse };
};

describeEachDb('security: tokens', (kind) => {
  const t = useTestApp(kind);

  it('refuses forged access tokens on every route: alg none, alg swap, foreign keys, tampering, missing claims, expiry', async () => {
    const s: SignedUp = await signUp(t());
    const other = await signUp(t());
    const key = t().deps.secrets.jwtKey;
    const claims = decodeJwt(s.token) as Record<string, unknown>;
    const now = Math.floor(t().clock.now().getTime() / 1000);
    const [head, , sig] = s.token.split('.') as [string, string, string];
    const hs256 = { alg: 'HS256', typ: 'JWT' };
    const without = (k: string) => Object.fromEntries(Object.entries(claims).filter(([x]) => x !== k));
    const attacker = randomBytes(32);

    // control: a token made the same way with the real key works everywhere it is sent
    expect((await me(t(), rawJwt(hs256, claims, key))).status).toBe(200);

    const forged: Record<string, string> = {
      'alg none': `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`,
      'alg None with a signature': `${b64({ alg: 'None' })}.${b64(claims)}.${sig}`,
      'alg swap HS256 -> RS256 (HMAC over the key)': rawJwt({ alg: 'RS256', typ: 'JWT' }, claims, key),
      'alg swap HS256 -> ES256': rawJwt({ alg: 'ES256' }, claims, key),
      'alg swap HS256 -> HS384 (same key)': rawJwt({ alg: 'HS384' }, claims, key, 'sha384'),
      'alg swap HS256 -> HS512 (same key)': rawJwt({ alg: 'HS512' }, claims, key, 'sha512'),
      'embedded jwk of the attacker': rawJwt(
        { alg: 'HS256', jwk: { kty: 'oct', k: Buffer.from(attacker).toString('base64url') } },
        claims,
        attacker,
      ),
      'kid pointing elsewhere, attacker key': rawJwt({ alg: 'HS256', kid: '../../../../dev/null' }, claims, attacker),
      'unknown critical header': rawJwt({ alg: 'HS256', crit: ['x-parley'], 'x-parley': 1 }, claims, key),
      'wrong key': rawJwt(hs256, claims, attacker),
      'empty key': rawJwt(hs256, claims, new Uint8Array(0)),
      'tampered cid (other company), original signature': `${head}.${b64({ ...claims, cid: other.companyId })}.${sig}`,
      'tampered sub (other account), original signature': `${head}.${b64({ ...claims, sub: other.accountId })}.${sig}`,
      'tampered exp (+1 day), original signature': `${head}.${b64({ ...claims, exp: now + 86_400 })}.${sig}`,
      'signature of another token': `${head}.${s.token.split('.')[1]}.${other.token.split('.')[2]}`,
      'missing exp': rawJwt(hs256, without('exp'), key),
      'missing sub': rawJwt(hs256, without('sub'), key),
      'missing sid': rawJwt(hs256, without('sid'), key),
      'missing cid': rawJwt(hs256, without('cid'), key),
      'sid of a session that does not exist': rawJwt(hs256, { ...claims, sid: 'ffffffffffffffffffffffff' }, key),
      'sid of another account': rawJwt(hs256, { ...claims, sid: decodeJwt(other.token).sid }, key),
      'expired a second ago': rawJwt(hs256, { ...claims, iat: now - 901, exp: now - 1 }, key),
      'not valid before tomorrow': rawJwt(hs256, { ...claims, nbf: now + 86_400 }, key),
      'numeric sub': rawJwt(hs256, { ...claims, sub: 12 }, key),
      'trailing garbage': `${s.token}x`,
      'four segments': `${s.token}.e30`,
    };
    for (const [what, token] of Object.entries(forged)) await refusedEverywhere(t(), token, what);
    // a refresh token is no access token anywhere (it stays good for the refresh endpoint)
    await refusedEverywhere(t(), s.refresh_token, 'refresh token used as access token', false);
    // the genuine tokens still work: nothing above revoked anything
    expect((await me(t(), s.token)).status).toBe(200);
    // and a correctly signed token from jose with the real key is accepted, so the refusals above are the checks
    const genuine = await new SignJWT({ sid: claims.sid, cid: claims.cid })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('parley')
      .setAudience('parley-api')
      .setSubject(s.accountId)
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .sign(key);
    expect((await me(t(), genuine)).status).toBe(200);
  });

  it('an access token is not a refresh token, and random bearer strings are refused without a 5xx', async () => {
    const s = await signUp(t());
    expect((await refresh(t(), s.token)).status).toBe(401);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ minLength: 1, maxLength: 300 }).map((x) => x.replace(/[^\x21-\x7e]/g, 'a')),
          fc.tuple(fc.base64String(), fc.base64String(), fc.base64String()).map((p) => p.join('.').replace(/[=+/]/g, '_')),
        ),
        async (token) => {
          const [a, r] = await Promise.all([me(t(), token), refresh(t(), token)]);
          expect(a.status).toBe(401);
          expect(r.status).toBe(401);
        },
      ),
      { numRuns: 150, seed: 401 },
    );
    expect((await me(t(), s.token)).status).toBe(200);
  });

  it('reuse of a rotated refresh token revokes the family: every token of it is refused on every route', async () => {
    const s = await signUp(t());
    const r1 = await refresh(t(), s.refresh_token);
    expect(r1.status).toBe(200);
    t().clock.advance(60_000);
    const r2 = await refresh(t(), r1.body.refresh_token);
    expect(r2.status).toBe(200);
    t().clock.advance(60_000);
    // the first token, rotated twice already, comes back: a thief
    expect((await refresh(t(), s.refresh_token)).status).toBe(401);
    for (const [what, token] of [
      ['first access', s.token],
      ['second access', r1.body.access_token],
      ['newest access', r2.body.access_token],
      ['newest refresh', r2.body.refresh_token],
    ] as const) {
      await refusedEverywhere(t(), token, what);
    }
    // the owner signs in again and works
    const again = await logIn(t(), s.email, s.password);
    expect(again.res.status).toBe(200);
    expect((await me(t(), again.body.token)).status).toBe(200);
  });

  it('logout revokes the session: its access token and every refresh token of its family, rotated or not', async () => {
    const s = await signUp(t());
    const rotated = await refresh(t(), s.refresh_token);
    expect(rotated.status).toBe(200);
    expect((await t().req('GET', '/api/v1/account/logout', { token: rotated.body.access_token })).status).toBe(200);
    for (const token of [s.token, rotated.body.access_token, s.refresh_token, rotated.body.refresh_token]) {
      await refusedEverywhere(t(), token, 'after logout');
    }
  });

  it('a password reset and a password change revoke the tokens they should, on every route', async () => {
    const s = await signUp(t());
    const second = (await logIn(t(), s.email, s.password)).body;
    // change: the other session dies, the changing one lives
    const changed = await t().req('PUT', '/api/v1/account/login', {
      token: s.token,
      body: { currentPassword: s.password, newPassword: 'an entirely new passphrase' },
    });
    expect(changed.status).toBe(200);
    for (const token of [second.token, second.refresh_token]) await refusedEverywhere(t(), token, 'after change');
    expect((await me(t(), s.token)).status).toBe(200);

    // reset: every session dies
    expect((await t().req('POST', '/api/v1/account/forgotpassword', { body: { email: s.email } })).status).toBe(200);
    // the link is mailed after the answer
    await settled(t().deps);
    const link = t().mailer.sent.find((m) => m.subject.startsWith('Reset'))?.text ?? '';
    const resetToken = /#token=([\w-]+)/.exec(link)?.[1] as string;
    expect(resetToken).toBeTruthy();
    const reset = await t().req('POST', '/api/v1/account/resetpassword', {
      body: { token: resetToken, password: 'the passphrase after reset' },
    });
    expect(reset.status).toBe(200);
    for (const token of [s.token, s.refresh_token]) await refusedEverywhere(t(), token, 'after reset');
  });

  it("deleting the company revokes its members' tokens on every route", async () => {
    const s = await signUp(t());
    const res = await t().req('DELETE', `/api/v1/company/${s.companyId}`, { token: s.token, body: { password: s.password } });
    expect(res.status).toBe(200);
    for (const token of [s.token, s.refresh_token]) await refusedEverywhere(t(), token, 'after company delete');
  });
});
