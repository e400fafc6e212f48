import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { HASHING_CONCURRENCY, HASHING_QUEUE_MAX, hashing, SERVER_BUSY_MSG } from '../../server/modules/auth/passwords.js';
import { LIMITS } from '../../server/platform/http/ratelimit.js';
import { logIn, signUp } from './auth-helpers.js';
import { describeEachDb, useTestApp } from './helpers.js';

const FLOOD_IP = '198.51.100.20';
const from = (ip: string) => ({ 'X-Forwarded-For': ip });

/** Occupies every hashing slot and queue place until `release()`. */
function fillHashing() {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const held = Array.from({ length: HASHING_CONCURRENCY + HASHING_QUEUE_MAX }, () => hashing.run(() => gate));
  return {
    release: async () => {
      release();
      await Promise.all(held);
    },
  };
}

describeEachDb('login flood', (kind) => {
  const t = useTestApp(kind);

  beforeEach(() => {
    // the flood's IP comes from X-Forwarded-For, as behind one trusted proxy
    t().deps.config.trustProxy = 1;
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('an IP with 50 failed logins over any emails is refused 429 before any hashing; successes are forgiven', async () => {
    const s = await signUp(t());
    const max = LIMITS.loginPerIp.max;
    // a flood over many emails: no email reaches its own limit of 5
    const first = await Promise.all(
      Array.from({ length: max - 5 }, (_, i) => logIn(t(), `flood-${i}@example.com`, 'wrong password', from(FLOOD_IP))),
    );
    expect(first.map((a) => a.res.status)).toEqual(Array(max - 5).fill(401));
    // the real user behind the same IP signs in: not held against the IP
    for (let i = 0; i < 3; i++) expect((await logIn(t(), s.email, s.password, from(FLOOD_IP))).res.status).toBe(200);
    for (let i = 0; i < 5; i++)
      expect((await logIn(t(), `late-${i}@example.com`, 'x y z w', from(FLOOD_IP))).res.status).toBe(401);

    const { res, body } = await logIn(t(), 'one-more@example.com', 'wrong password', from(FLOOD_IP));
    expect(res.status).toBe(429);
    const retry = Number(res.headers.get('retry-after'));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(15 * 60);
    expect(body.msg).toMatch(/^Too many attempts\. Please try again in \d+ minutes?\.$/);
    // even the right password, and even while every hashing slot is taken: the answer never waits for a hash
    const busy = fillHashing();
    try {
      expect((await logIn(t(), s.email, s.password, from(FLOOD_IP))).res.status).toBe(429);
      expect((await logIn(t(), 'another@example.com', 'wrong password', from(FLOOD_IP))).res.status).toBe(429);
    } finally {
      await busy.release();
    }
    // another IP is not limited
    expect((await logIn(t(), s.email, s.password, from('198.51.100.21'))).res.status).toBe(200);
    // the window ends
    t().clock.advance(retry * 1000);
    expect((await logIn(t(), s.email, s.password, from(FLOOD_IP))).res.status).toBe(200);
  });

  it('when every hashing slot and queue place is taken, a login answers 503 with Retry-After at once', async () => {
    const s = await signUp(t());
    const busy = fillHashing();
    try {
      const { res, body } = await logIn(t(), s.email, s.password, from('203.0.113.30'));
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(body.msg).toBe(SERVER_BUSY_MSG);
      expect(hashing.active).toBe(HASHING_CONCURRENCY);
    } finally {
      await busy.release();
    }
    expect((await logIn(t(), s.email, s.password, from('203.0.113.30'))).res.status).toBe(200);
  });

  it('a refused login waits out the tarpit before its 429', async () => {
    t().deps.config.refusedLoginDelayMs = 1000;
    const s = await signUp(t());
    for (let i = 0; i < LIMITS.login.max; i++) await logIn(t(), s.email, 'wrong password', from(FLOOD_IP));
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const timers = vi.spyOn(globalThis, 'setTimeout');
    let settled = false;
    const pending = logIn(t(), s.email, 'wrong password', from(FLOOD_IP)).then((a) => {
      settled = true;
      return a;
    });
    // once the refusal has started its wait (the database's own timers are longer)...
    while (!timers.mock.calls.some((call) => call[1] === 1000)) await new Promise((r) => setImmediate(r));
    await vi.advanceTimersByTimeAsync(999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect((await pending).res.status).toBe(429);
  });
});
