import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from 'xstate';
import { accountApi } from '../../src/api/account';
import { createApiClient, type SessionBridge } from '../../src/api/client';
import { MessageResponseSchema } from '../../src/api/contract/account';
import { ApiError } from '../../src/api/errors';
import type { ToastMessage } from '../../src/api/toast';
import { createSession, type LockManagerLike } from '../../src/session';
import { AUTH_STORE_KEY, memoryStorage, readTokens, writeAccount, writeTokens } from '../../src/session/storage';

type Handler = (call: {
  url: string;
  method: string;
  auth: string | null;
  body: unknown;
  contentType: string | null;
}) => Response | Promise<Response>;

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/** A fake fetch that records every call and answers through `handler`. */
function fakeFetch(handler: Handler) {
  const calls: { url: string; method: string; auth: string | null }[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    const method = init?.method ?? 'GET';
    const headers = new Headers(init?.headers);
    const auth = headers.get('authorization');
    calls.push({ url, method, auth });
    return handler({ url, method, auth, body: init?.body, contentType: headers.get('content-type') });
  }) as typeof globalThis.fetch;
  return { fetch, calls };
}

/** A Web Locks stand-in: callbacks for one name run one after another. */
function fakeLocks(): LockManagerLike & { granted: number } {
  let tail: Promise<unknown> = Promise.resolve();
  const locks = {
    granted: 0,
    request<T>(_name: string, callback: () => Promise<T>): Promise<T> {
      const run = tail.then(() => {
        locks.granted += 1;
        return callback();
      });
      tail = run.catch(() => undefined);
      return run;
    },
  };
  return locks;
}

const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

/** A signed-in app: memory storage with tokens, a session actor, the client bound to it. */
async function signedInApp(
  handler: Handler,
  options: { pathname?: string; search?: string; storage?: ReturnType<typeof memoryStorage> } = {},
) {
  const storage = options.storage ?? memoryStorage();
  if (!options.storage) {
    writeTokens(storage, { accessToken: 'access-1', refreshToken: 'refresh-1' });
    writeAccount(storage, { accountId: 'acc', companyId: 'co' });
  }
  const toasts: ToastMessage[] = [];
  const visits: string[] = [];
  const { fetch, calls } = fakeFetch(handler);
  const client = createApiClient({ fetch, notify: (t) => toasts.push(t) });
  const locks = fakeLocks();
  const session = createSession({
    storage,
    locks,
    events: undefined,
    client,
    account: accountApi(client),
    location: () => ({ pathname: options.pathname ?? '/dashboard', search: options.search ?? '' }),
    navigate: (href) => visits.push(href),
  });
  stops.push(session.start());
  await waitFor(session.actor, (s) => s.context.hydrated);
  return { storage, toasts, visits, calls, client, session, locks };
}

const isRefresh = (url: string) => url.endsWith('/auth/refresh');

describe('api client and session: 401 -> single-flight refresh -> retry once', () => {
  it('10 concurrent 401 answers cause exactly 1 refresh call and 10 retried requests', async () => {
    let releaseRefresh: () => void = () => {};
    const refreshGate = new Promise<void>((resolve) => {
      releaseRefresh = resolve;
    });
    const app = await signedInApp(async ({ url, auth }) => {
      if (isRefresh(url)) {
        await refreshGate;
        return json({ access_token: 'access-2', refresh_token: 'refresh-2' });
      }
      return auth === 'Bearer access-2' ? json({ success: true, msg: url }) : json({ success: false, msg: 'Token expired' }, 401);
    });

    const requests = Array.from({ length: 10 }, (_, i) => app.client.get(`/thing/${i}`, MessageResponseSchema));
    await waitFor(app.session.actor, (s) => s.hasTag('refreshing'));
    // Every first attempt has been refused before the one refresh answers.
    await new Promise((resolve) => setTimeout(resolve, 0));
    releaseRefresh();
    const answers = await Promise.all(requests);

    expect(answers.map((a) => a.msg)).toEqual(Array.from({ length: 10 }, (_, i) => `/api/v1/thing/${i}`));
    const refreshes = app.calls.filter((c) => isRefresh(c.url));
    expect(refreshes).toHaveLength(1);
    expect(refreshes[0]?.auth).toBe('Bearer refresh-1');
    expect(refreshes[0]?.method).toBe('POST');
    const retried = app.calls.filter((c) => !isRefresh(c.url) && c.auth === 'Bearer access-2');
    expect(retried).toHaveLength(10);
    expect(app.calls.filter((c) => !isRefresh(c.url) && c.auth === 'Bearer access-1')).toHaveLength(10);
    expect(readTokens(app.storage)).toEqual({ accessToken: 'access-2', refreshToken: 'refresh-2' });
    expect(app.toasts).toEqual([]);
  });

  it('a refused refresh removes both tokens, fails every waiting call and goes to / keeping the query', async () => {
    const app = await signedInApp(
      ({ url }) =>
        isRefresh(url)
          ? json({ success: false, msg: 'Session expired' }, 401)
          : json({ success: false, msg: 'Token expired' }, 401),
      { pathname: '/dashboard/billing', search: '?tab=2' },
    );
    const results = await Promise.allSettled(Array.from({ length: 3 }, () => app.client.get('/thing', MessageResponseSchema)));
    for (const result of results) {
      expect(result.status).toBe('rejected');
      const reason = (result as PromiseRejectedResult).reason;
      expect(reason).toBeInstanceOf(ApiError);
      expect(reason).toMatchObject({ kind: 'http', status: 401 });
    }
    expect(app.calls.filter((c) => isRefresh(c.url))).toHaveLength(1);
    expect(app.session.actor.getSnapshot().matches('signedOut')).toBe(true);
    expect(readTokens(app.storage)).toEqual({ accessToken: '', refreshToken: '' });
    expect(app.storage.dump().accountId).toBeUndefined();
    expect(app.visits).toEqual(['/?tab=2']);
    expect(app.toasts).toEqual([]);
  });

  it('does not navigate when a refused refresh happens at /', async () => {
    const app = await signedInApp(({ url }) => json({ success: false, msg: isRefresh(url) ? 'no' : 'expired' }, 401), {
      pathname: '/',
      search: '?login=1',
    });
    await expect(app.client.get('/thing', MessageResponseSchema)).rejects.toMatchObject({ status: 401 });
    expect(app.session.actor.getSnapshot().matches('signedOut')).toBe(true);
    expect(app.visits).toEqual([]);
  });

  it('a network failure of the refresh keeps the session; the waiting call fails', async () => {
    const app = await signedInApp(({ url }) => {
      if (isRefresh(url)) throw new TypeError('fetch failed');
      return json({ success: false, msg: 'expired' }, 401);
    });
    await expect(app.client.get('/thing', MessageResponseSchema)).rejects.toMatchObject({ kind: 'http', status: 401 });
    expect(app.session.actor.getSnapshot().hasTag('authenticated')).toBe(true);
    expect(readTokens(app.storage)).toEqual({ accessToken: 'access-1', refreshToken: 'refresh-1' });
    expect(app.visits).toEqual([]);
  });

  it('another tab already rotated the tokens: inside the lock it takes them and does not refresh', async () => {
    const app = await signedInApp(({ url, auth }) => {
      if (isRefresh(url)) return json({ access_token: 'never', refresh_token: 'never' });
      return auth === 'Bearer access-other' ? json({ success: true, msg: 'ok' }) : json({ success: false, msg: 'expired' }, 401);
    });
    // The other tab rotated; this tab has not seen the storage event yet.
    writeTokens(app.storage, { accessToken: 'access-other', refreshToken: 'refresh-other' });
    await expect(app.client.get('/thing', MessageResponseSchema)).resolves.toMatchObject({ msg: 'ok' });
    expect(app.calls.filter((c) => isRefresh(c.url))).toHaveLength(0);
    expect(app.locks.granted).toBe(1);
    expect(app.session.actor.getSnapshot().context).toMatchObject({ accessToken: 'access-other', refreshToken: 'refresh-other' });
  });

  it('another tab logged out: inside the lock the refresh gives up and this tab signs out', async () => {
    const app = await signedInApp(({ url }) =>
      isRefresh(url) ? json({ access_token: 'x', refresh_token: 'y' }) : json({ success: false, msg: 'expired' }, 401),
    );
    app.storage.setItem(AUTH_STORE_KEY, JSON.stringify({ state: { access_token: '', refresh_token: '' }, version: 0 }));
    await expect(app.client.get('/thing', MessageResponseSchema)).rejects.toMatchObject({ status: 401 });
    expect(app.calls.filter((c) => isRefresh(c.url))).toHaveLength(0);
    expect(app.session.actor.getSnapshot().matches('signedOut')).toBe(true);
  });

  it('a 401 for a token that was already replaced retries with the current token without refreshing', async () => {
    const app = await signedInApp(({ auth }) =>
      auth === 'Bearer access-new' ? json({ success: true, msg: 'ok' }) : json({ success: false, msg: 'expired' }, 401),
    );
    const bridge = (app.session as { bridge: SessionBridge }).bridge;
    app.session.actor.send({
      type: 'storage.changed',
      accessToken: 'access-new',
      refreshToken: 'r',
      accountId: 'acc',
      companyId: 'co',
    });
    await expect(bridge.renew('access-1')).resolves.toBe('access-new');
    expect(app.calls).toHaveLength(0);
  });

  it('logout with an expired access token refreshes, retries the logout, then forgets the session', async () => {
    const app = await signedInApp(({ url, auth }) => {
      if (isRefresh(url)) return json({ access_token: 'access-2', refresh_token: 'refresh-2' });
      return auth === 'Bearer access-2' ? json({ success: true }) : json({ success: false, msg: 'expired' }, 401);
    });
    app.session.actor.send({ type: 'session.logout' });
    await waitFor(app.session.actor, (s) => s.matches('signedOut'));
    expect(app.calls.map((c) => [c.url, c.auth])).toEqual([
      ['/api/v1/account/logout', 'Bearer access-1'],
      ['/api/v1/auth/refresh', 'Bearer refresh-1'],
      ['/api/v1/account/logout', 'Bearer access-2'],
    ]);
    expect(readTokens(app.storage)).toEqual({ accessToken: '', refreshToken: '' });
    expect(app.visits).toEqual(['/']);
  });

  it('retries a refused call only once: a second 401 after the refresh fails the call', async () => {
    const app = await signedInApp(({ url }) =>
      isRefresh(url)
        ? json({ access_token: 'access-2', refresh_token: 'refresh-2' })
        : json({ success: false, msg: 'nope' }, 401),
    );
    await expect(app.client.get('/thing', MessageResponseSchema)).rejects.toMatchObject({ status: 401 });
    expect(app.calls.map((c) => [c.url, c.auth])).toEqual([
      ['/api/v1/thing', 'Bearer access-1'],
      ['/api/v1/auth/refresh', 'Bearer refresh-1'],
      ['/api/v1/thing', 'Bearer access-2'],
    ]);
  });
});

describe('api client: headers, errors and toasts', () => {
  const bridge = (hydrated: boolean): SessionBridge => ({
    accessToken: () => 'tok',
    hydrated: () => hydrated,
    renew: async () => null,
  });

  function client(handler: Handler, hydrated = true) {
    const toasts: ToastMessage[] = [];
    const fake = fakeFetch(handler);
    const c = createApiClient({ fetch: fake.fetch, notify: (t) => toasts.push(t), timeout: 50 });
    c.bindSession(bridge(hydrated));
    return { client: c, toasts, calls: fake.calls };
  }

  it('sends the access token as Bearer, and none for auth: none', async () => {
    const { client: c, calls } = client(() => json({ success: true, msg: 'ok' }));
    await c.get('/a', MessageResponseSchema);
    await c.post('/b', MessageResponseSchema, { x: 1 }, { auth: 'none' });
    expect(calls.map((x) => [x.method, x.url, x.auth])).toEqual([
      ['GET', '/api/v1/a', 'Bearer tok'],
      ['POST', '/api/v1/b', null],
    ]);
  });

  it('sends idempotencyKey as the Idempotency-Key header, and no such header without one', async () => {
    const keys: (string | null)[] = [];
    const c = createApiClient({
      fetch: (async (_input: RequestInfo | URL, init?: RequestInit) => {
        keys.push(new Headers(init?.headers).get('idempotency-key'));
        return json({ success: true, msg: 'ok' }, 201);
      }) as typeof globalThis.fetch,
    });
    await c.post('/agent', MessageResponseSchema, { x: 1 }, { idempotencyKey: 'save-1' });
    await c.put('/agent/a1', MessageResponseSchema, { x: 1 }, { idempotencyKey: 'save-2' });
    await c.post('/agent', MessageResponseSchema, { x: 1 });
    expect(keys).toEqual(['save-1', 'save-2', null]);
  });

  it('delete sends no body by default, and a JSON body when given one', async () => {
    const seen: { method: string; body: unknown; contentType: string | null }[] = [];
    const { client: c } = client(({ method, body, contentType }) => {
      seen.push({ method, body, contentType });
      return json({ success: true, msg: 'gone' });
    });
    await c.delete('/agent/a1', MessageResponseSchema);
    const answer = await c.delete('/provider/disconnect', MessageResponseSchema, { body: { name: 'twilio' } });
    expect(answer).toEqual({ success: true, msg: 'gone' });
    expect(seen[0]).toMatchObject({ method: 'DELETE', body: undefined });
    expect(seen[1]?.method).toBe('DELETE');
    expect(JSON.parse(String(seen[1]?.body))).toEqual({ name: 'twilio' });
    expect(seen[1]?.contentType).toMatch(/^application\/json/);
  });

  it("an error body with msg shows the destructive 'Error' toast and rethrows; notify: false keeps quiet", async () => {
    const { client: c, toasts } = client(() => json({ success: false, msg: 'Agent not found' }, 404));
    const error = await c.get('/a', MessageResponseSchema).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      kind: 'http',
      status: 404,
      serverMessage: 'Agent not found',
      message: 'Agent not found',
      notified: true,
    });
    expect(toasts).toEqual([{ title: 'Error', description: 'Agent not found', variant: 'destructive' }]);
    await expect(c.get('/a', MessageResponseSchema, { notify: false })).rejects.toMatchObject({ notified: false });
    expect(toasts).toHaveLength(1);
  });

  it('keeps per-field errors and Retry-After of an error answer', async () => {
    const { client: c } = client(() =>
      json({ success: false, msg: 'Too many attempts', errors: { email: 'Invalid email' } }, 429, { 'retry-after': '900' }),
    );
    await expect(c.post('/a', MessageResponseSchema, {})).rejects.toMatchObject({
      status: 429,
      fieldErrors: { email: 'Invalid email' },
      retryAfter: 900,
    });
  });

  it('an error without msg rejects without a toast', async () => {
    const { client: c, toasts } = client(
      () => new Response('<html>bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } }),
    );
    await expect(c.post('/a', MessageResponseSchema, {})).rejects.toMatchObject({
      kind: 'http',
      status: 502,
      serverMessage: undefined,
    });
    expect(toasts).toEqual([]);
  });

  it('network failure and parse failure are distinct kinds with human messages', async () => {
    const network = client(() => {
      throw new TypeError('fetch failed');
    });
    await expect(network.client.post('/a', MessageResponseSchema, {})).rejects.toMatchObject({
      kind: 'network',
      message: 'Could not reach the server. Check your connection and try again.',
    });

    const garbage = client(() => new Response('{not json', { status: 200, headers: { 'content-type': 'application/json' } }));
    await expect(garbage.client.get('/a', MessageResponseSchema)).rejects.toMatchObject({ kind: 'parse' });

    const wrongShape = client(() => json({ unexpected: true }));
    await expect(wrongShape.client.get('/a', MessageResponseSchema)).rejects.toMatchObject({
      kind: 'parse',
      message: 'The server sent an answer that could not be read. Please try again.',
    });
    expect([network, garbage, wrongShape].flatMap((x) => x.toasts)).toEqual([]);
  });

  it('a call that never answers fails as a timeout', async () => {
    const c = createApiClient({
      fetch: ((_: RequestInfo | URL, init?: RequestInit) =>
        new Promise<Response>((_resolve, reject) => {
          init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
        })) as typeof globalThis.fetch,
      timeout: 20,
    });
    await expect(c.post('/a', MessageResponseSchema, {})).rejects.toMatchObject({
      kind: 'timeout',
      message: 'The server took too long to answer. Please try again.',
    });
  });

  it('retries a failed GET once before the session has hydrated, never after, and never a write', async () => {
    const before = client(() => json({ success: false, msg: 'busy' }, 503), false);
    await expect(before.client.get('/a', MessageResponseSchema, { notify: false })).rejects.toMatchObject({ status: 503 });
    expect(before.calls).toHaveLength(2);
    await expect(before.client.post('/a', MessageResponseSchema, {}, { notify: false })).rejects.toMatchObject({ status: 503 });
    expect(before.calls).toHaveLength(3);

    const after = client(() => json({ success: false, msg: 'busy' }, 503), true);
    await expect(after.client.get('/a', MessageResponseSchema, { notify: false })).rejects.toMatchObject({ status: 503 });
    expect(after.calls).toHaveLength(1);
  });
});
