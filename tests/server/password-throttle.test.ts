import { expect, it } from 'vitest';
import { DEVICE_COOKIE, PASSWORD_BACKOFF } from '../../server/modules/auth/password-guard.js';
import { LIMITS } from '../../server/platform/http/ratelimit.js';
import { logIn, type SignedUp, STRONG_PASSWORD, signUp } from './auth-helpers.js';
import { describeEachDb, type TestApp, useTestApp } from './helpers.js';

/**
 * Every route that verifies a password shares one throttle, per account and per IP; the
 * per-account limit backs off exponentially over a sliding window and never locks the owner out of a
 * known device.
 */

const from = (ip: string, cookie?: string) => ({ 'X-Forwarded-For': ip, ...(cookie ? { Cookie: cookie } : {}) });
/** A fresh address for each attempt, as an attacker with many addresses would use. */
let nextIp = 0;
const freshIp = () => `198.18.${Math.floor(++nextIp / 250)}.${(nextIp % 250) + 1}`;

const deleteCompany = (t: TestApp, s: SignedUp, password: string, ip = '203.0.113.50') =>
  t.req('DELETE', `/api/v1/company/${s.companyId}`, { token: s.token, body: { password }, headers: from(ip) });
const changePassword = (t: TestApp, s: SignedUp, currentPassword: string, ip = '203.0.113.51') =>
  t.req('PUT', '/api/v1/account/login', {
    token: s.token,
    body: { currentPassword, newPassword: `${STRONG_PASSWORD} again` },
    headers: from(ip),
  });

/** The `name=value` of the device cookie a response sets. */
function deviceCookieOf(res: Response): string {
  const set = res.headers.getSetCookie().find((c) => c.startsWith(`${DEVICE_COOKIE}=`));
  if (!set) throw new Error('no device cookie set');
  return set.split(';')[0] as string;
}

/** `n` wrong passwords for the account, each from a new address (so no per-IP limit is reached). */
async function guessFromManyIps(t: TestApp, email: string, n: number) {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await logIn(t, email, 'a wrong guess 123', from(freshIp()))).res.status);
  return statuses;
}

describeEachDb('password throttle', (kind) => {
  const t = useTestApp(kind);
  const setUp = () => {
    // client addresses come from X-Forwarded-For, as behind one trusted proxy
    t().deps.config.trustProxy = 1;
  };

  it('DELETE /company/{id} is throttled: wrong passwords end in 429, even the right one then waits, nothing is deleted', async () => {
    setUp();
    const s = await signUp(t());
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await deleteCompany(t(), s, `not it ${i}`)).status);
    expect(statuses.slice(0, PASSWORD_BACKOFF.free)).toEqual(Array(PASSWORD_BACKOFF.free).fill(403));
    expect(statuses.slice(PASSWORD_BACKOFF.free)).toEqual(Array(30 - PASSWORD_BACKOFF.free).fill(429));
    const held = await deleteCompany(t(), s, s.password);
    expect(held.status).toBe(429);
    expect((await held.json()).msg).toMatch(/^Too many attempts\. Please try again in \d+ minutes?\.$/);
    expect((await t().req('GET', '/api/v1/company/', { token: s.token })).status).toBe(200);
    // the wait ends: the right password deletes
    t().clock.advance(Number(held.headers.get('retry-after')) * 1000);
    expect((await deleteCompany(t(), s, s.password)).status).toBe(200);
  });

  it('login, password change and company deletion count against one per-account throttle', async () => {
    setUp();
    const s = await signUp(t());
    // failures spread over the three routes and many addresses
    for (let i = 0; i < PASSWORD_BACKOFF.free; i++) {
      const res =
        i % 3 === 0
          ? await deleteCompany(t(), s, `wrong ${i}`, freshIp())
          : i % 3 === 1
            ? await changePassword(t(), s, `wrong ${i}`, freshIp())
            : (await logIn(t(), s.email, `wrong ${i}`, from(freshIp()))).res;
      expect(res.status).toBeLessThan(429);
    }
    // the next check of any of them, from yet another address, waits
    expect((await logIn(t(), s.email, s.password, from(freshIp()))).res.status).toBe(429);
    expect((await changePassword(t(), s, s.password, freshIp())).status).toBe(429);
    expect((await deleteCompany(t(), s, s.password, freshIp())).status).toBe(429);
  });

  it('login, password change and company deletion count against one per-IP throttle', async () => {
    setUp();
    const s = await signUp(t());
    const ip = '203.0.113.77';
    // a flood of failed logins over many emails from one address
    for (let i = 0; i < LIMITS.loginPerIp.max; i++)
      expect((await logIn(t(), `nobody-${i}@example.com`, 'a wrong guess 123', from(ip))).res.status).toBe(401);
    // the same address is refused on every password route, even with the right password
    expect((await deleteCompany(t(), s, s.password, ip)).status).toBe(429);
    expect((await changePassword(t(), s, s.password, ip)).status).toBe(429);
    // another address is not
    expect((await changePassword(t(), s, s.password, '203.0.113.78')).status).toBe(200);
  });

  it('a new address per guess does not give more guesses at one account: exponential back-off, then the wait ends', async () => {
    setUp();
    const s = await signUp(t());
    const statuses = await guessFromManyIps(t(), s.email, PASSWORD_BACKOFF.free + 5);
    expect(statuses).toEqual([...Array(PASSWORD_BACKOFF.free).fill(401), ...Array(5).fill(429)]);

    // each failure past the free ones doubles the wait after it
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      const refused = await logIn(t(), s.email, 'a wrong guess 123', from(freshIp()));
      expect(refused.res.status).toBe(429);
      const wait = Number(refused.res.headers.get('retry-after'));
      waits.push(wait);
      t().clock.advance(wait * 1000);
      expect((await logIn(t(), s.email, 'a wrong guess 123', from(freshIp()))).res.status).toBe(401);
    }
    const base = PASSWORD_BACKOFF.baseMs / 1000;
    expect(waits).toEqual([base, 2 * base, 4 * base, 8 * base]);
    // the owner from a new device waits too, then gets in
    const owner = await logIn(t(), s.email, s.password, from(freshIp()));
    expect(owner.res.status).toBe(429);
    t().clock.advance(Number(owner.res.headers.get('retry-after')) * 1000);
    expect((await logIn(t(), s.email, s.password, from(freshIp()))).res.status).toBe(200);
  });

  it('the back-off caps its wait, and failures leave the window after 24 hours', async () => {
    setUp();
    const s = await signUp(t());
    await guessFromManyIps(t(), s.email, PASSWORD_BACKOFF.free);
    for (let i = 0; i < 10; i++) {
      const refused = await logIn(t(), s.email, 'a wrong guess 123', from(freshIp()));
      expect(Number(refused.res.headers.get('retry-after'))).toBeLessThanOrEqual(PASSWORD_BACKOFF.maxMs / 1000);
      t().clock.advance(Number(refused.res.headers.get('retry-after')) * 1000);
      expect((await logIn(t(), s.email, 'a wrong guess 123', from(freshIp()))).res.status).toBe(401);
    }
    const capped = await logIn(t(), s.email, 'a wrong guess 123', from(freshIp()));
    expect(Number(capped.res.headers.get('retry-after'))).toBe(PASSWORD_BACKOFF.maxMs / 1000);
    // a day after the last failure every failure has left the sliding window: the free attempts are back
    t().clock.advance(PASSWORD_BACKOFF.windowMs);
    expect(await guessFromManyIps(t(), s.email, PASSWORD_BACKOFF.free)).toEqual(Array(PASSWORD_BACKOFF.free).fill(401));
  });

  it('the per-account limit is the same for unknown emails (no account oracle)', async () => {
    setUp();
    const s = await signUp(t());
    const known = await guessFromManyIps(t(), s.email, PASSWORD_BACKOFF.free + 2);
    const unknown = await guessFromManyIps(t(), 'nobody-here@example.com', PASSWORD_BACKOFF.free + 2);
    expect(unknown).toEqual(known);
  });

  it('the owner logs in from a known device while strangers are held back', async () => {
    setUp();
    const s = await signUp(t());
    // the owner's browser: a successful login leaves a device cookie (HttpOnly, SameSite=Strict, login path only)
    const first = await logIn(t(), s.email, s.password, from('203.0.113.5'));
    expect(first.res.status).toBe(200);
    const set = first.res.headers.getSetCookie().find((c) => c.startsWith(`${DEVICE_COOKIE}=`)) ?? '';
    expect(set).toMatch(/; HttpOnly/);
    expect(set).toMatch(/; SameSite=Strict/);
    expect(set).toMatch(/; Path=\/api\/v1\/account\/login/);
    const cookie = deviceCookieOf(first.res);

    await guessFromManyIps(t(), s.email, PASSWORD_BACKOFF.free + 3);
    expect((await logIn(t(), s.email, s.password, from('203.0.113.6'))).res.status).toBe(429);
    // the owner's browser, even from an address the attacker used, gets in with the right password
    const owner = await logIn(t(), s.email, s.password, from('203.0.113.6', cookie));
    expect(owner.res.status).toBe(200);
    expect(owner.body.msg).toBe('Login successful');
    // a wrong password from it is still a plain 401 with the spec's message
    const typo = await logIn(t(), s.email, 'a typo in it', from('203.0.113.6', cookie));
    expect(typo.res.status).toBe(401);
    expect(typo.body.msg).toBe('Invalid email or password');

    // a tampered cookie, or a device of another account, is a stranger
    const [name, value] = cookie.split('=') as [string, string];
    const tampered = `${name}=${value.slice(0, -2)}${value.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await logIn(t(), s.email, s.password, from('203.0.113.7', tampered))).res.status).toBe(429);
    const other = await signUp(t());
    const otherCookie = deviceCookieOf((await logIn(t(), other.email, other.password, from('203.0.113.8'))).res);
    expect((await logIn(t(), s.email, s.password, from('203.0.113.8', otherCookie))).res.status).toBe(429);
  });

  it('a known device has a back-off of its own, and a password change voids the old device cookies', async () => {
    setUp();
    const s = await signUp(t());
    const cookie = deviceCookieOf((await logIn(t(), s.email, s.password, from('203.0.113.9'))).res);
    const statuses: number[] = [];
    for (let i = 0; i < PASSWORD_BACKOFF.free + 2; i++)
      statuses.push((await logIn(t(), s.email, `wrong ${i} guess`, from(freshIp(), cookie))).res.status);
    expect(statuses).toEqual([...Array(PASSWORD_BACKOFF.free).fill(401), 429, 429]);
    // strangers were not held back by the device's failures
    expect((await logIn(t(), s.email, s.password, from(freshIp()))).res.status).toBe(200);

    // a new password: the old cookie is a stranger's, the browser that changed it gets a new one
    const newPassword = `${STRONG_PASSWORD} renewed`;
    const changed = await t().req('PUT', '/api/v1/account/login', {
      token: s.token,
      body: { currentPassword: s.password, newPassword },
      headers: from('203.0.113.9'),
    });
    expect(changed.status).toBe(200);
    const renewed = deviceCookieOf(changed);
    await guessFromManyIps(t(), s.email, PASSWORD_BACKOFF.free + 1);
    expect((await logIn(t(), s.email, newPassword, from('203.0.113.9', cookie))).res.status).toBe(429);
    expect((await logIn(t(), s.email, newPassword, from('203.0.113.9', renewed))).res.status).toBe(200);
  });

  it('the per IP and email limit slides: failures near the end of a quarter hour still count after it', async () => {
    const s = await signUp(t());
    // 14 minutes into a quarter hour (the test clock starts on one)
    t().clock.advance(14 * 60_000);
    for (let i = 0; i < LIMITS.login.max; i++) expect((await logIn(t(), s.email, 'a wrong guess 123')).res.status).toBe(401);
    // 90 s later a fixed window would have started afresh; the sliding one still holds the five failures
    t().clock.advance(90_000);
    const refused = await logIn(t(), s.email, s.password);
    expect(refused.res.status).toBe(429);
    expect(Number(refused.res.headers.get('retry-after'))).toBe(15 * 60 - 90);
    t().clock.advance((15 * 60 - 90) * 1000);
    expect((await logIn(t(), s.email, s.password)).res.status).toBe(200);
  });

  it('a password reset lifts the back-off of its account', async () => {
    setUp();
    const s = await signUp(t());
    await guessFromManyIps(t(), s.email, PASSWORD_BACKOFF.free + 1);
    expect((await logIn(t(), s.email, s.password, from(freshIp()))).res.status).toBe(429);
    const { settled } = await import('../../server/platform/jobs/later.js');
    await t().req('POST', '/api/v1/account/forgotpassword', { body: { email: s.email } });
    await settled(t().deps);
    const token = /#token=([\w-]+)/.exec(t().mailer.sent.at(-1)?.text ?? '')?.[1];
    const newPassword = `${STRONG_PASSWORD} after reset`;
    expect((await t().req('POST', '/api/v1/account/resetpassword', { body: { token, password: newPassword } })).status).toBe(200);
    expect((await logIn(t(), s.email, newPassword, from(freshIp()))).res.status).toBe(200);
  });
});
