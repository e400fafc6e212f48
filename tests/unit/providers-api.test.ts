import { describe, expect, it } from 'vitest';
import { createQueryCache } from '../../src/api/cache';
import { createApiClient } from '../../src/api/client';
import { providerListKey, providersApi } from '../../src/api/providers';

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const twilioItem = {
  _id: 'twilio',
  name: 'twilio',
  label: 'Twilio',
  company: null,
  connected: false,
  keys: [
    { name: 'Account SID', secret: false },
    { name: 'Auth Token', secret: true },
  ],
};
const saved = { success: true, msg: 'ok', provider: { ...twilioItem, _id: 'c1', company: 'co', connected: true } };

/** The providers API over a fake fetch that answers by method + path and records every call. */
function setup() {
  const calls: { method: string; url: string; body: unknown }[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    const method = init?.method ?? 'GET';
    calls.push({ method, url, body: typeof init?.body === 'string' ? JSON.parse(init.body) : init?.body });
    const path = new URL(url, 'http://x').pathname;
    if (path === '/api/v1/user/providers') return json({ success: true, providers: [twilioItem], total: 1 });
    if (path === '/api/v1/provider') return json({ success: true, data: [{ name: 'twilio', connected: false }] });
    if (path === '/api/v1/provider/fields')
      return json({
        success: true,
        name: 'twilio',
        label: 'Twilio',
        _id: null,
        connected: false,
        keys: [{ name: 'Account SID', value: '', secret: false }],
      });
    if (path === '/api/v1/provider/disconnect') return json({ success: true, msg: 'Twilio has been disconnected.' });
    return json(saved, method === 'POST' ? 201 : 200);
  }) as typeof globalThis.fetch;
  const cache = createQueryCache();
  const api = providersApi(createApiClient({ fetch }), cache);
  return { api, cache, calls };
}

describe('providers api', () => {
  it('calls the paths of the specification with their parameters and bodies', async () => {
    const { api, calls } = setup();
    await api.list({ page: 2, limit: 9, search: 'cal' });
    await api.list({ page: 1, limit: 12, search: '' });
    await api.status();
    await api.fields('twilio');
    await api.connect({ name: 'twilio', keys: [{ name: 'Account SID', value: 'AC1' }] });
    await api.update('c1', { keys: [{ name: 'Auth Token', value: 'tok' }] });
    await api.disconnect('twilio');
    expect(calls.map((c) => [c.method, c.url, c.body])).toEqual([
      ['GET', '/api/v1/user/providers?page=2&limit=9&search=cal', undefined],
      ['GET', '/api/v1/user/providers?page=1&limit=12', undefined],
      ['GET', '/api/v1/provider?name=', undefined],
      ['GET', '/api/v1/provider/fields?name=twilio', undefined],
      ['POST', '/api/v1/provider/values', { name: 'twilio', keys: [{ name: 'Account SID', value: 'AC1' }] }],
      ['PUT', '/api/v1/provider/c1', { keys: [{ name: 'Auth Token', value: 'tok' }] }],
      ['DELETE', '/api/v1/provider/disconnect', { name: 'twilio' }],
    ]);
  });

  it('caches the catalogue and the status; every change invalidates both, fields are never cached', async () => {
    const { api, cache, calls } = setup();
    const q = { page: 1, limit: 9, search: '' };
    await api.list(q);
    await api.status();
    expect(cache.peek(providerListKey(q))).toMatchObject({ total: 1 });
    await api.fields('twilio');
    await api.fields('twilio');
    expect(calls.filter((c) => c.url.includes('/fields'))).toHaveLength(2);

    for (const change of [
      () => api.connect({ name: 'twilio', keys: [] }),
      () => api.update('c1', { keys: [] }),
      () => api.disconnect('twilio'),
    ]) {
      await api.list(q);
      await api.status();
      const heard: string[] = [];
      const off = cache.subscribe((p) => heard.push(p));
      await change();
      off();
      expect(heard).toEqual(['provider']);
      expect(cache.peek(providerListKey(q))).toBeUndefined();
      expect(cache.peek('provider-status')).toBeUndefined();
    }
  });
});
