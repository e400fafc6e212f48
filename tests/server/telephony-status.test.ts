import { expect, it } from 'vitest';
import { warnUnreachableCallbacks } from '../../server/compose.js';
import { insertConnection } from '../../server/modules/providers/provider.repo.js';
import type { AppDeps } from '../../server/platform/deps.js';
import { isLocalPublicUrl } from '../../server/platform/net/public-url.js';
import { signUp } from './auth-helpers.js';
import { describeEachDb, LOG_LINES, type TestApp, useTestApp } from './helpers.js';
import { call } from './seed.js';

/**
 * A company with Twilio or Plivo connected, on a server whose PUBLIC_URL is on localhost, is
 * told on the Phone Numbers screen that inbound calls cannot reach this server (GET /phone/telephony-status).
 */

const connect = (t: TestApp, companyId: string, provider: string) =>
  insertConnection(t.deps, {
    id: `conn_${companyId}_${provider}`,
    company_id: companyId,
    provider,
    secrets: '{}',
    created_at: '2026-11-22T10:00:00.000Z',
    updated_at: '2026-11-22T10:00:00.000Z',
  });

async function unreachable(t: TestApp, token: string) {
  const res = await call(t, 'GET', '/phone/telephony-status', { token });
  expect(res.status).toBe(200);
  return (res.body.data as { callbacksUnreachable: boolean }).callbacksUnreachable;
}

for (const publicUrl of ['http://localhost:3000', 'https://parley.example.com']) {
  describeEachDb(`telephony status with PUBLIC_URL ${publicUrl}`, (kind) => {
    const t = useTestApp(kind, () => ({}));
    const local = publicUrl.includes('localhost');

    it(`warns only a company with a carrier connected${local ? '' : ': never on a public address'}`, async () => {
      (t().deps as { config: AppDeps['config'] }).config = { ...t().deps.config, publicUrl };
      const twilio = await signUp(t());
      const plivo = await signUp(t());
      const other = await signUp(t());
      await connect(t(), twilio.companyId, 'twilio');
      await connect(t(), plivo.companyId, 'plivo');
      await connect(t(), other.companyId, 'openai');
      expect(await unreachable(t(), twilio.token)).toBe(local);
      expect(await unreachable(t(), plivo.token)).toBe(local);
      // another company's carrier is not this company's
      expect(await unreachable(t(), other.token)).toBe(false);
      expect((await call(t(), 'GET', '/phone/telephony-status')).status).toBe(401);
    });

    it(`${local ? 'says' : 'does not say'} in the log at start that the carriers cannot reach the server`, async () => {
      (t().deps as { config: AppDeps['config'] }).config = { ...t().deps.config, publicUrl };
      const warned = () => LOG_LINES.filter((l) => l.includes('PUBLIC_URL is on localhost')).length;
      const before = warned();
      await warnUnreachableCallbacks(t().deps);
      // no carrier connected yet: nothing to warn about
      expect(warned()).toBe(before);
      const user = await signUp(t());
      await connect(t(), user.companyId, 'twilio');
      await warnUnreachableCallbacks(t().deps);
      expect(warned()).toBe(before + (local ? 1 : 0));
    });
  });
}

it('knows a loopback address from a public one', () => {
  for (const url of ['http://localhost:3000', 'http://127.0.0.1', 'http://[::1]:8080', 'http://app.localhost', 'http://0.0.0.0'])
    expect(isLocalPublicUrl(url)).toBe(true);
  for (const url of ['https://parley.example.com', 'https://localhost.example.com', 'http://10.0.0.5'])
    expect(isLocalPublicUrl(url)).toBe(false);
});
