/**
 * Requests a page starts before the app's code has arrived (src/landing/early.ts, the first script of
 * dashboard.html): GETs of the data the page paints first, sent with the held access token while the app
 * downloads, so the data is not asked for only once the app runs. The app's client takes each answer once,
 * when it asks for the same URL with the same token (`takeEarly`, its fetch); any other request, or the
 * same one with another token (the session refreshed it), goes to the network as usual. A module free of
 * imports: the early script loads nothing else.
 */

/**
 * What dashboard.html asks for early, as the app's client asks for it (tests/unit/early.test.ts checks
 * both): the account (the header's menu) and the Agents page's first page in its default view.
 */
export const DASHBOARD_EARLY_URLS = ['/api/v1/account/me', '/api/v1/agent?page=1&limit=10'];

interface EarlyRequest {
  token: string;
  response: Promise<Response>;
}

const requests = new Map<string, EarlyRequest>();

/** A request's path and query, the key of its early answer. */
function keyOf(input: RequestInfo | URL): string {
  const url = new URL(
    typeof input === 'string' || input instanceof URL ? input : input.url,
    globalThis.location?.href ?? 'http://localhost/',
  );
  return url.pathname + url.search;
}

/** Sends GET `url` now, with the access token `token`, for the app to take later. */
export function requestEarly(url: string, token: string): void {
  const response = fetch(url, { headers: { accept: 'application/json', authorization: `Bearer ${token}` } });
  // a failure is the app's to see when it takes the answer (or no one's, when it never does)
  response.catch(() => undefined);
  requests.set(keyOf(url), { token, response });
}

/** The answer of an early request for this GET (same URL, same token), once; undefined otherwise. */
export function takeEarly(input: RequestInfo | URL, init?: RequestInit): Promise<Response> | undefined {
  if (requests.size === 0 || (init?.method ?? 'GET').toUpperCase() !== 'GET') return undefined;
  const key = keyOf(input);
  const early = requests.get(key);
  if (!early) return undefined;
  requests.delete(key);
  if (new Headers(init?.headers).get('authorization') !== `Bearer ${early.token}`) return undefined;
  const signal = init?.signal;
  if (!signal) return early.response;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    early.response.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** The app's fetch: an early answer when there is one for this request, else the network. */
export const fetchOrEarly: typeof fetch = (input, init) => takeEarly(input, init) ?? fetch(input, init);
