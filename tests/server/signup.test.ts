import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { passwordScore, STRENGTH_MIN_SCORE, STRENGTH_QUEUE_MAX } from '../../server/modules/auth/password-strength.js';
import { HttpError } from '../../server/platform/http/http.js';
import { LIMITS } from '../../server/platform/http/ratelimit.js';
import { settled } from '../../server/platform/jobs/later.js';
import { ACCOUNT_MESSAGES as M } from '../../src/api/contract/account.js';
import { logIn, STRONG_PASSWORD, signUp, TINY_PNG } from './auth-helpers.js';
import { countRows, describeEachDb, type TestApp, useTestApp } from './helpers.js';

/**
 * Sign-up is throttled per client address (new and taken emails alike), a taken email answers
 * the spec's 409 and nothing else, and new passwords must be hard to guess (zxcvbn), on sign-up, password
 * change and reset alike.
 */

function registerFrom(t: TestApp, ip: string, fields: Record<string, string>, photo = false) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  if (photo) form.set('file', new Blob([new Uint8Array(TINY_PNG)]), 'me.png');
  return t.app.request(
    '/api/v1/account/register',
    { method: 'POST', body: form },
    { incoming: { socket: { remoteAddress: ip } } },
  );
}

const fields = (email: string, password = STRONG_PASSWORD) => ({ name: 'Grace Hopper', email, password });

/** Every row count and stored file that a sign-up could change. */
async function snapshot(t: TestApp) {
  const db = t.deps.db.db;
  const count = (table: 'companies' | 'sessions' | 'refresh_tokens' | 'files' | 'agents') => countRows(t, table);
  const uploads = path.join(t.dataDir, 'uploads');
  return {
    accounts: await db.selectFrom('accounts').selectAll().orderBy('id').execute(),
    companies: await count('companies'),
    sessions: await count('sessions'),
    refreshTokens: await count('refresh_tokens'),
    files: await count('files'),
    agents: await count('agents'),
    uploads: fs.existsSync(uploads) ? fs.readdirSync(uploads).sort() : [],
    mails: t.mailer.sent.length,
  };
}

describe('password strength checks', () => {
  it('wait in a bounded queue: past STRENGTH_QUEUE_MAX at once, 503 instead of more waiting', async () => {
    const checks = Array.from({ length: STRENGTH_QUEUE_MAX + 5 }, (_, i) =>
      passwordScore(`${STRONG_PASSWORD} ${i}`, []).then(
        (score) => ({ score }),
        (e: unknown) => ({ status: e instanceof HttpError ? e.status : 0 }),
      ),
    );
    const outcomes = await Promise.all(checks);
    expect(outcomes.filter((o) => 'status' in o)).toEqual(Array(5).fill({ status: 503 }));
    expect(outcomes.filter((o) => 'score' in o && o.score >= STRENGTH_MIN_SCORE)).toHaveLength(STRENGTH_QUEUE_MAX);
    // the queue drained: the next check runs
    expect(await passwordScore(STRONG_PASSWORD, [])).toBeGreaterThanOrEqual(STRENGTH_MIN_SCORE);
  });
});

describeEachDb('sign-up', (kind) => {
  const t = useTestApp(kind);

  it('is throttled per client address, for new and taken emails alike', async () => {
    const max = LIMITS.signUpPerIp.max;
    const taken = await signUp(t(), { email: 'taken@example.com' });
    const statuses: number[] = [];
    for (let i = 0; i < max; i++) {
      // every other attempt probes the taken email
      const email = i % 2 ? taken.email : `new-${i}@example.com`;
      statuses.push((await registerFrom(t(), '192.0.2.10', fields(email))).status);
    }
    expect(statuses).toEqual(Array.from({ length: max }, (_, i) => (i % 2 ? 409 : 201)));
    for (const email of ['another@example.com', taken.email]) {
      const refused = await registerFrom(t(), '192.0.2.10', fields(email));
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBe(3600);
      expect(((await refused.json()) as { msg: string }).msg).toBe('Too many attempts. Please try again in 60 minutes.');
    }
    // another address is not held back; the first one is again an hour later
    expect((await registerFrom(t(), '192.0.2.11', fields('late@example.com'))).status).toBe(201);
    t().clock.advance(60 * 60_000);
    expect((await registerFrom(t(), '192.0.2.10', fields('later@example.com'))).status).toBe(201);
  });

  it('the limit can be raised by configuration (SIGNUPS_PER_HOUR)', async () => {
    t().deps.config.signUpsPerHour = LIMITS.signUpPerIp.max + 2;
    for (let i = 0; i < LIMITS.signUpPerIp.max + 2; i++)
      expect((await registerFrom(t(), '192.0.2.12', fields(`n-${i}@example.com`))).status).toBe(201);
    expect((await registerFrom(t(), '192.0.2.12', fields('one-more@example.com'))).status).toBe(429);
  });

  it('a taken email answers 409 with the spec message only, and changes nothing', async () => {
    const owner = await signUp(t(), {
      email: 'owner@example.com',
      name: 'Owner Person',
      file: new Blob([new Uint8Array(TINY_PNG)]),
    });
    const before = await snapshot(t());
    const res = await registerFrom(t(), '192.0.2.20', fields('OWNER@example.com', `${STRONG_PASSWORD} other`), true);
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ success: false, msg: M.emailTaken, errors: { email: M.emailTaken } });
    expect(res.headers.getSetCookie()).toEqual([]);
    await settled(t().deps);
    expect(await snapshot(t())).toEqual(before);
    // the owner's password and sessions are untouched
    expect((await logIn(t(), owner.email, owner.password)).res.status).toBe(200);
    expect((await t().req('GET', '/api/v1/account/me', { token: owner.token })).status).toBe(200);
  });

  it('refuses passwords that are easy to guess, after the spec minimum', async () => {
    const weak = [
      'parley1',
      'Summer2026',
      'Grace Hopper 1',
      'gracehopper',
      'Grace1906!',
      'asdfghjkl;',
      'zaq12wsxcde3',
      'aaaaaaaaaaaa',
      '2026-11-22',
    ];
    for (const password of weak) {
      const res = await registerFrom(t(), `192.0.2.${30 + weak.indexOf(password)}`, fields('grace@example.com', password));
      expect(res.status, password).toBe(400);
      expect(await res.json(), password).toEqual({
        success: false,
        msg: M.passwordTooWeak,
        errors: { password: M.passwordTooWeak },
      });
    }
    // the spec's minimum comes first, then the list of common passwords
    const short = await registerFrom(t(), '192.0.2.40', fields('grace@example.com', 'ab1'));
    expect(((await short.json()) as { errors: unknown }).errors).toEqual({ password: M.passwordTooShort });
    const common = await registerFrom(t(), '192.0.2.41', fields('grace@example.com', 'password1'));
    expect(((await common.json()) as { errors: unknown }).errors).toEqual({ password: M.passwordTooCommon });
    expect(await t().deps.db.db.selectFrom('accounts').select('id').execute()).toEqual([]);
    // a few unrelated words pass
    expect((await registerFrom(t(), '192.0.2.42', fields('grace@example.com', 'violet harbour 42'))).status).toBe(201);
  });

  it('password change and reset refuse easy passwords too, with the user’s name and email in mind', async () => {
    const s = await signUp(t(), { name: 'Katherine Johnson', email: 'katherine.johnson@example.com' });
    for (const newPassword of ['Summer2026', 'katherine.johnson', 'Johnson1918']) {
      const res = await t().req('PUT', '/api/v1/account/login', {
        token: s.token,
        body: { currentPassword: s.password, newPassword },
      });
      expect(res.status, newPassword).toBe(400);
      expect(((await res.json()) as { errors: unknown }).errors).toEqual({ newPassword: M.passwordTooWeak });
    }
    await t().req('POST', '/api/v1/account/forgotpassword', { body: { email: s.email } });
    await settled(t().deps);
    const token = /#token=([\w-]+)/.exec(t().mailer.sent.at(-1)?.text ?? '')?.[1];
    const weak = await t().req('POST', '/api/v1/account/resetpassword', { body: { token, password: 'parley1' } });
    expect(((await weak.json()) as { errors: unknown }).errors).toEqual({ password: M.passwordTooWeak });
    // the link still works for a good password
    const good = await t().req('POST', '/api/v1/account/resetpassword', { body: { token, password: 'orbital mechanics 1962' } });
    expect(good.status).toBe(200);
  });
});
