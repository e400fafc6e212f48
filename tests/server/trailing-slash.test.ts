import { expect, it } from 'vitest';
import { signUp } from './auth-helpers.js';
import { describeEachDb, useTestApp } from './helpers.js';

describeEachDb('paths with and without a trailing slash', (kind) => {
  const t = useTestApp(kind);
  it('answers /agent and /agent/ the same way', async () => {
    const { token } = await signUp(t());
    const a = await t().req('GET', '/api/v1/agent', { token });
    const b = await t().req('GET', '/api/v1/agent/', { token });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect((await b.json()).data.total).toBe((await a.json()).data.total);
  });
});
