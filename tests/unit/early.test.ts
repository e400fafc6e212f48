import { afterEach, describe, expect, it, vi } from 'vitest';
import { accountApi } from '../../src/api/account';
import { agentsApi } from '../../src/api/agents';
import { createQueryCache } from '../../src/api/cache';
import { createApiClient } from '../../src/api/client';
import { DASHBOARD_EARLY_URLS, fetchOrEarly, requestEarly, takeEarly } from '../../src/api/early';
import { heldAccessToken } from '../../src/session/keys';
import { readTokens } from '../../src/session/storage';

const json = (body: unknown) => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("dashboard.html's early requests", () => {
  it('ask for exactly the URLs the app asks for on /dashboard in its default view', async () => {
    const asked: string[] = [];
    const client = createApiClient({
      fetch: async (input) => {
        asked.push(String(input));
        return json({ success: true });
      },
    });
    // the Agents page's loader in the default view (page 0 of 10, no search, no sort) and the header's menu
    await accountApi(client)
      .me()
      .catch(() => undefined);
    await agentsApi(client, createQueryCache())
      .list({ page: 1, limit: 10, search: undefined, sort: [] })
      .catch(() => undefined);
    expect(asked).toEqual(DASHBOARD_EARLY_URLS);
  });

  it('are taken once, by a GET of the same URL with the same token; anything else goes to the network', async () => {
    const network = vi.fn(async () => json({ from: 'network' }));
    vi.stubGlobal('fetch', network);
    requestEarly('/api/v1/account/me', 'tok-1');
    requestEarly('/api/v1/agent?page=1&limit=10', 'tok-1');
    expect(network).toHaveBeenCalledTimes(2);
    expect(network.mock.calls[0]).toEqual([
      '/api/v1/account/me',
      { headers: { accept: 'application/json', authorization: 'Bearer tok-1' } },
    ]);
    const auth = (token: string) => ({ headers: new Headers({ authorization: `Bearer ${token}` }) });
    // another URL, or a write: not an early answer
    expect(takeEarly('/api/v1/agent?page=2&limit=10', auth('tok-1'))).toBeUndefined();
    expect(takeEarly('/api/v1/account/me', { ...auth('tok-1'), method: 'POST' })).toBeUndefined();
    // the same GET with the same token: the early answer, once
    const first = takeEarly('/api/v1/account/me', auth('tok-1'));
    expect(first).toBeDefined();
    expect(await (await first!).json()).toEqual({ from: 'network' });
    expect(takeEarly('/api/v1/account/me', auth('tok-1'))).toBeUndefined();
    // the session refreshed its token meanwhile: the early answer is dropped, the request goes out again
    expect(takeEarly('/api/v1/agent?page=1&limit=10', auth('tok-2'))).toBeUndefined();
    await fetchOrEarly('/api/v1/agent?page=1&limit=10', auth('tok-2'));
    expect(network).toHaveBeenCalledTimes(3);
  });

  it('follow the abort signal of the request that takes them', async () => {
    let answer: (r: Response) => void = () => {};
    vi.stubGlobal('fetch', () => new Promise<Response>((resolve) => (answer = resolve)));
    requestEarly('/api/v1/account/me', 'tok');
    const controller = new AbortController();
    const taken = takeEarly('/api/v1/account/me', { headers: { authorization: 'Bearer tok' }, signal: controller.signal });
    controller.abort(new DOMException('stale', 'AbortError'));
    await expect(taken).rejects.toThrow('stale');
    answer(json({}));
  });

  it('read the held access token the way the session stores it, and nothing else', () => {
    const storage = (value: string | null) => ({ getItem: () => value });
    expect(heldAccessToken(storage(JSON.stringify({ state: { access_token: 'abc' }, version: 0 })))).toBe('abc');
    expect(heldAccessToken(storage(JSON.stringify({ access_token: 'old-shape' })))).toBe('old-shape');
    expect(heldAccessToken(storage(JSON.stringify({ state: { access_token: 42 } })))).toBe('');
    expect(heldAccessToken(storage('not json'))).toBe('');
    expect(heldAccessToken(storage(null))).toBe('');
    expect(heldAccessToken(undefined)).toBe('');
    expect(
      heldAccessToken({
        getItem: () => {
          throw new Error('blocked');
        },
      }),
    ).toBe('');
    // the session itself reads the store the same way (storage.ts's readTokens is this parsing)
    const store = (value: unknown) => ({ getItem: () => JSON.stringify(value), setItem() {}, removeItem() {} });
    expect(readTokens(store({ state: { access_token: 'a', refresh_token: 'r' }, version: 0 }))).toEqual({
      accessToken: 'a',
      refreshToken: 'r',
    });
    expect(readTokens(store({ access_token: 'a', refresh_token: 'r' }))).toEqual({ accessToken: 'a', refreshToken: 'r' });
    expect(readTokens(store({ state: {}, access_token: 'x' }))).toEqual({ accessToken: '', refreshToken: '' });
    expect(readTokens(store([1, 2]))).toEqual({ accessToken: '', refreshToken: '' });
    expect(readTokens(undefined)).toEqual({ accessToken: '', refreshToken: '' });
  });
});
