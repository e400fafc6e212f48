import { describe, expect, inject, it } from 'vitest';
import { runCli } from '../cli-runner.js';
import { apiCall, signUpViaApi } from './session.js';

// biome-ignore lint/suspicious/noExplicitAny: reading API answers
type Body = any;

describe('phone numbers and calls on the started server', () => {
  const baseUrl = inject('baseUrl');

  it('created the demo workspace on its first start', async () => {
    const { email, password } = inject('demoAccount');
    expect(email).toBe('demo@parley.test');
    const res = await fetch(new URL('/api/v1/account/login', baseUrl), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    expect(res.status).toBe(200);
    const login = (await res.json()) as Body;
    const demo = { token: login.token } as Parameters<typeof apiCall>[1];
    const calls = await apiCall<Body>(baseUrl, demo, 'GET', '/call/?sort=%7B%22duration%22%3A-1%7D');
    expect(calls.body.data.pagination.totalCalls).toBe(2000);
    expect(calls.body.data.calls).toHaveLength(10);
    expect((await apiCall<Body>(baseUrl, demo, 'GET', '/phone/assigned')).body.data.total).toBe(2);
  });

  it('grants a requested number with the admin command while the server runs', { timeout: 60_000 }, async () => {
    const user = await signUpViaApi(baseUrl);
    const free = await apiCall<Body>(baseUrl, user, 'GET', '/phone/free?limit=100');
    expect(free.body.data.total).toBeGreaterThanOrEqual(20);
    const phone = free.body.data.numbers.at(-1).phone as string;
    expect((await apiCall(baseUrl, user, 'POST', '/request/', { phone })).status).toBe(201);

    const admin = await runCli('admin', ['grant-number-requests', '--company', user.email], inject('dataDir'));
    expect(admin.code, admin.stderr).toBe(0);
    expect(admin.stdout).toContain(`Granted ${phone} to ${user.email}`);
    const mine = await apiCall<Body>(baseUrl, user, 'GET', '/phone/assigned');
    expect(mine.body.data.numbers.map((n: { phone: string }) => n.phone)).toEqual([phone]);
  });
});
