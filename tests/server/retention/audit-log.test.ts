import { expect, it } from 'vitest';
import { logIn, signUp } from '../auth-helpers.js';
import { describeEachDb, LOG_LINES, type TestApp, useTestApp } from '../helpers.js';

const SECRET = 'AUDIT-CANARY-3f9a1c';

async function call(t: TestApp, method: string, url: string, init: { body?: unknown; token?: string } = {}) {
  const res = await t.req(method, `/api/v1${url}`, init);
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary shapes
  return { status: res.status, text, body: JSON.parse(text) as any };
}

describeEachDb('audit log', (kind) => {
  const t = useTestApp(kind);

  it('records sign-ins, failed sign-ins, settings and provider keys (never their values), per company', async () => {
    const a = await signUp(t());
    const b = await signUp(t());
    expect((await logIn(t(), a.email, 'wrong password entirely')).res.status).toBe(401);
    t().clock.advance(1000);
    expect((await logIn(t(), a.email, a.password)).res.status).toBe(200);
    // an unknown email has no company: nothing is written anywhere
    expect((await logIn(t(), 'nobody-here@example.com', 'whatever it is')).res.status).toBe(401);
    t().clock.advance(1000);
    await call(t(), 'PUT', '/company/settings', { token: a.token, body: { retention_days: 30 } });
    t().clock.advance(1000);
    // the same value again is no change
    await call(t(), 'PUT', '/company/settings', { token: a.token, body: { retention_days: 30 } });
    const keys = (tok: string) => [
      { name: 'Account SID', value: `AC${SECRET}-sid` },
      { name: 'Auth Token', value: `${SECRET}-${tok}` },
    ];
    const connected = await call(t(), 'POST', '/provider/values', { token: a.token, body: { name: 'twilio', keys: keys('1') } });
    expect(connected.status).toBe(201);
    t().clock.advance(1000);
    const id = connected.body.provider._id;
    expect((await call(t(), 'PUT', `/provider/${id}`, { token: a.token, body: { keys: keys('2') } })).status).toBe(200);
    t().clock.advance(1000);
    expect((await call(t(), 'DELETE', '/provider/disconnect', { token: a.token, body: { name: 'twilio' } })).status).toBe(200);

    const log = await call(t(), 'GET', '/audit-log', { token: a.token });
    expect(log.status).toBe(200);
    const actions = log.body.data.entries.map((e: { action: string }) => e.action);
    expect(actions).toEqual([
      'provider.removed',
      'provider.changed',
      'provider.connected',
      'company.retention_changed',
      'auth.sign_in',
      'auth.sign_in_failed',
    ]);
    expect(log.body.data.total).toBe(6);
    const [removed, , , retention, signIn, failed] = log.body.data.entries;
    expect(removed).toMatchObject({ actor: a.email, target: 'twilio', ip: expect.any(String) });
    expect(retention.target).toBe('retention: keep -> 30 days');
    expect(signIn).toMatchObject({ actor: a.email, target: a.email });
    expect(failed).toMatchObject({ actor: a.email, action: 'auth.sign_in_failed' });
    expect(Date.parse(signIn.time)).toBeGreaterThan(Date.parse(failed.time));
    // the key values are nowhere in the log nor in what the server logged about it
    expect(log.text).not.toContain(SECRET);
    expect(LOG_LINES.filter((l) => l.includes(SECRET))).toEqual([]);

    // the other company sees none of it
    const other = await call(t(), 'GET', '/audit-log', { token: b.token });
    expect(other.body.data).toEqual({ entries: [], total: 0 });
  });

  it('filters by actor, action and dates, pages, and refuses bad queries', async () => {
    const a = await signUp(t());
    t().clock.current = new Date('2026-11-23T10:00:00Z');
    await logIn(t(), a.email, a.password);
    t().clock.current = new Date('2026-11-24T10:00:00Z');
    await logIn(t(), a.email, a.password);
    await logIn(t(), a.email, 'not the password at all');
    t().clock.current = new Date('2026-11-25T10:00:00Z');
    const { token } = (await logIn(t(), a.email, a.password)).body;

    const q = async (s: string) => (await call(t(), 'GET', `/audit-log?${s}`, { token })).body.data;
    expect((await q('action=auth.sign_in')).total).toBe(3);
    expect((await q('action=auth.sign_in_failed')).total).toBe(1);
    expect((await q('dateFrom=2026-11-24&dateTo=2026-11-24')).total).toBe(2);
    expect((await q('dateFrom=2026-11-24T12:00:00Z')).total).toBe(1);
    expect((await q(`actor=${encodeURIComponent(a.email.toUpperCase())}`)).total).toBe(4);
    expect((await q('actor=someone@example.com')).total).toBe(0);
    const page2 = await q('limit=3&page=2');
    expect(page2.total).toBe(4);
    expect(page2.entries).toHaveLength(1);
    expect(page2.entries[0].time).toBe('2026-11-23T10:00:00.000Z');

    for (const bad of ['action=delete_everything', 'dateFrom=yesterday', 'limit=1000', 'page=0']) {
      expect((await call(t(), 'GET', `/audit-log?${bad}`, { token })).status, bad).toBe(400);
    }
    expect((await call(t(), 'GET', '/audit-log')).status).toBe(401);
    // append-only: no route writes the log
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      expect((await call(t(), method, '/audit-log', { token, body: {} })).status, method).toBe(404);
    }
  });
});
