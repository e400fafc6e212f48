/**
 * The ONE HTTP client of the app: an ofetch instance with the API base URL, the bearer token of the
 * session, the refresh-and-retry-once flow on 401 and the error toast of the specification.
 *
 * - Every call sends `Authorization: Bearer <access token>`, except calls made with `auth: 'none'`
 *   (`/auth/refresh` sends the refresh token as its own Bearer header; login/register/password calls
 *   need no token).
 * - A 401 on a call that carried an access token asks the session for a fresh token. The session
 *   refreshes once for any number of concurrent 401s (single flight); every waiting call then
 *   retries once with the new token, or fails if the refresh failed (the session then signs out).
 * - Any other error whose body has a `msg` shows a destructive toast titled 'Error' with that msg
 *   (unless the caller passes `notify: false` because it shows its own message), then rejects.
 * - Failures are ApiError with a kind: http, network, timeout, parse (see ./errors.ts).
 * - Retries: a failed GET is retried once before the session has hydrated, never
 *   after; writes are never retried.
 */
import { FetchError, type FetchOptions, ofetch } from 'ofetch';
import * as v from 'valibot';
import { IDEMPOTENCY_HEADER } from './contract/idempotency';
import { fetchOrEarly } from './early';
import { ApiError } from './errors';
import type { Notify } from './toast';

export const API_BASE_URL = '/api/v1';
export const REQUEST_TIMEOUT_MS = 30_000;

/** What the client needs from the session actor (src/session binds it; tests pass fakes). */
export interface SessionBridge {
  /** the access token held now ('' when signed out) */
  accessToken(): string;
  /** whether the persisted session has been read */
  hydrated(): boolean;
  /**
   * Called after a 401 with the token that was refused. Resolves with the token to retry with
   * (after the one shared refresh, or at once when the token was already replaced), or null when
   * the session is over.
   */
  renew(refusedAccessToken: string): Promise<string | null>;
}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  method?: Method;
  /** JSON-serialisable object, FormData, or a Blob/File sent as is (set its Content-Type in `headers`) */
  body?: Record<string, unknown> | FormData | Blob;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  /** send the session's access token (default) or no token */
  auth?: 'access' | 'none';
  /** show the 'Error' toast for an error body with `msg` (default true) */
  notify?: boolean;
  signal?: AbortSignal;
  timeout?: number;
  /** sent as the `Idempotency-Key` header (creates and versioned updates; see contract/idempotency.ts) */
  idempotencyKey?: string;
  /** the request outlives the page (fetch `keepalive`): a last word sent while the page is being left */
  keepalive?: boolean;
}

/** The options every typed call of src/api/<resource>.ts takes. */
export type CallOptions = Pick<RequestOptions, 'notify' | 'signal' | 'idempotencyKey'>;

export interface ClientDeps {
  /** the fetch to use (tests pass a fake; default globalThis.fetch) */
  fetch?: typeof globalThis.fetch;
  baseURL?: string;
  timeout?: number;
  /** shows an error toast (none by default; the app binds its toaster with `bindNotify`) */
  notify?: Notify;
}

const UNREADABLE = Symbol('unreadable');
type Unreadable = { [UNREADABLE]: string };

/** Strict JSON: an empty body is `undefined`, a body that is not JSON is marked unreadable. */
function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return { [UNREADABLE]: text } satisfies Unreadable;
  }
}

const isUnreadable = (data: unknown): data is Unreadable => typeof data === 'object' && data !== null && UNREADABLE in data;

const ErrorBodySchema = v.object({
  msg: v.string(),
  errors: v.optional(v.record(v.string(), v.string())),
  /** a provider key the company has to connect first (the call runtime): where to connect it */
  problem: v.optional(v.object({ link: v.string() })),
});

function errorName(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'name' in error ? String(error.name) : undefined;
}

/** Maps anything thrown by ofetch (or by our parsing) to an ApiError of the right kind. */
export function toApiError(error: unknown, signal?: AbortSignal): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof FetchError) {
    const response = error.response;
    if (response) {
      const body = v.safeParse(ErrorBodySchema, error.data);
      const retryAfter = Number(response.headers.get('retry-after'));
      return new ApiError({
        kind: 'http',
        status: response.status,
        serverMessage: body.success ? body.output.msg : undefined,
        fieldErrors: body.success ? body.output.errors : undefined,
        link: body.success ? body.output.problem?.link : undefined,
        retryAfter: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
        cause: error,
      });
    }
    const cause = error.cause;
    if (errorName(cause) === 'TimeoutError') return new ApiError({ kind: 'timeout', cause: error });
    if (signal?.aborted || errorName(cause) === 'AbortError') return new ApiError({ kind: 'aborted', cause: error });
    return new ApiError({ kind: 'network', cause: error });
  }
  if (error instanceof SyntaxError) return new ApiError({ kind: 'parse', cause: error });
  return new ApiError({ kind: 'network', cause: error });
}

export type ApiClient = ReturnType<typeof createApiClient>;

export function createApiClient(deps: ClientDeps = {}) {
  const $fetch = ofetch.create(
    {
      baseURL: deps.baseURL ?? API_BASE_URL,
      timeout: deps.timeout ?? REQUEST_TIMEOUT_MS,
      parseResponse: parseJson,
      retryDelay: 300,
      retryStatusCodes: [408, 425, 429, 500, 502, 503, 504],
    },
    deps.fetch ? { fetch: deps.fetch } : {},
  );
  let session: SessionBridge | undefined;
  let notify = deps.notify;

  function send(path: string, options: RequestOptions, token: string): Promise<unknown> {
    const method = options.method ?? 'GET';
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (options.idempotencyKey) headers[IDEMPOTENCY_HEADER] = options.idempotencyKey;
    if (token) headers.authorization = `Bearer ${token}`;
    const retry = method === 'GET' && !(session?.hydrated() ?? true) ? 1 : 0;
    const fetchOptions: FetchOptions<'json'> = {
      method,
      headers,
      body: options.body,
      query: options.query,
      signal: options.signal,
      retry,
    };
    if (options.keepalive) fetchOptions.keepalive = true;
    if (options.timeout !== undefined) fetchOptions.timeout = options.timeout;
    return $fetch(path, fetchOptions);
  }

  async function attempt(path: string, options: RequestOptions): Promise<unknown> {
    const auth = options.auth ?? 'access';
    const token = auth === 'access' && session ? session.accessToken() : '';
    try {
      return await send(path, options, token);
    } catch (error) {
      const failure = toApiError(error, options.signal);
      if (failure.kind !== 'http' || failure.status !== 401 || auth !== 'access' || !token || !session) throw failure;
      const fresh = await session.renew(token);
      // The session is over: the session machine has already signed out and gone home.
      if (!fresh) throw failure;
      try {
        return await send(path, options, fresh);
      } catch (retryError) {
        throw toApiError(retryError, options.signal);
      }
    }
  }

  /**
   * Calls `path` (relative to /api/v1) and validates the answer with the contract `schema`.
   * Rejects with ApiError.
   */
  async function request<S extends v.GenericSchema>(
    path: string,
    schema: S,
    options: RequestOptions = {},
  ): Promise<v.InferOutput<S>> {
    try {
      const data = await attempt(path, options);
      if (isUnreadable(data)) throw new ApiError({ kind: 'parse' });
      const parsed = v.safeParse(schema, data);
      if (!parsed.success) throw new ApiError({ kind: 'parse', cause: new v.ValiError(parsed.issues) });
      return parsed.output;
    } catch (error) {
      const failure = toApiError(error, options.signal);
      const authFailure = failure.status === 401 && (options.auth ?? 'access') !== 'none';
      if ((options.notify ?? true) && failure.serverMessage && !authFailure && notify && !failure.notified) {
        failure.notified = true;
        notify({ title: 'Error', description: failure.serverMessage, variant: 'destructive' });
      }
      throw failure;
    }
  }

  /**
   * A raw answer (a stream or audio): the same bearer token and 401 renewal as `request`, the body left
   * unread. A non-2xx answer rejects with an ApiError carrying the server's `msg` (and its toast unless
   * `notify: false`), like `request`.
   */
  async function raw(path: string, options: Omit<RequestOptions, 'query'> = {}): Promise<Response> {
    const doFetch = deps.fetch ?? globalThis.fetch;
    const base = deps.baseURL ?? API_BASE_URL;
    const auth = options.auth ?? 'access';
    const once = (token: string) => {
      const headers: Record<string, string> = { ...options.headers };
      if (token) headers.authorization = `Bearer ${token}`;
      let body: BodyInit | undefined;
      if (options.body instanceof FormData || options.body instanceof Blob) body = options.body;
      else if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] = 'application/json';
      }
      return doFetch(`${base}${path}`, { method: options.method ?? 'GET', headers, body, signal: options.signal });
    };
    let res: Response;
    try {
      const token = auth === 'access' && session ? session.accessToken() : '';
      res = await once(token);
      if (res.status === 401 && token && session) {
        const fresh = await session.renew(token);
        if (fresh) res = await once(fresh);
      }
    } catch (error) {
      throw new ApiError({
        kind: options.signal?.aborted || errorName(error) === 'AbortError' ? 'aborted' : 'network',
        cause: error,
      });
    }
    if (res.ok) return res;
    const body = v.safeParse(ErrorBodySchema, parseJson(await res.text().catch(() => '')));
    const failure = new ApiError({
      kind: 'http',
      status: res.status,
      serverMessage: body.success ? body.output.msg : undefined,
      fieldErrors: body.success ? body.output.errors : undefined,
      link: body.success ? body.output.problem?.link : undefined,
    });
    if ((options.notify ?? true) && failure.serverMessage && res.status !== 401 && notify) {
      failure.notified = true;
      notify({ title: 'Error', description: failure.serverMessage, variant: 'destructive' });
    }
    throw failure;
  }

  return {
    request,
    raw,
    get: <S extends v.GenericSchema>(path: string, schema: S, options?: Omit<RequestOptions, 'method' | 'body'>) =>
      request(path, schema, { ...options, method: 'GET' }),
    post: <S extends v.GenericSchema>(
      path: string,
      schema: S,
      body?: RequestOptions['body'],
      options?: Omit<RequestOptions, 'method' | 'body'>,
    ) => request(path, schema, { ...options, method: 'POST', body }),
    put: <S extends v.GenericSchema>(
      path: string,
      schema: S,
      body?: RequestOptions['body'],
      options?: Omit<RequestOptions, 'method' | 'body'>,
    ) => request(path, schema, { ...options, method: 'PUT', body }),
    patch: <S extends v.GenericSchema>(
      path: string,
      schema: S,
      body?: RequestOptions['body'],
      options?: Omit<RequestOptions, 'method' | 'body'>,
    ) => request(path, schema, { ...options, method: 'PATCH', body }),
    /** DELETE; `options.body` is sent as JSON when given (e.g. `DELETE /provider/disconnect {name}`). */
    delete: <S extends v.GenericSchema>(path: string, schema: S, options?: Omit<RequestOptions, 'method'>) =>
      request(path, schema, { ...options, method: 'DELETE' }),
    /** Connects the session actor (tokens, hydration, single-flight renew). */
    bindSession(bridge: SessionBridge | undefined) {
      session = bridge;
    },
    /** Connects the app's toaster (main.tsx): the client sits below the app layer and cannot import it. */
    bindNotify(to: Notify | undefined) {
      notify = to;
    },
  };
}

/** The app's client: main.tsx binds the toaster (`bindNotify`) and src/session the session (`bindSession`). */
// its fetch takes the answers dashboard.html asked for before the app arrived (./early.ts)
export const api = createApiClient({ fetch: fetchOrEarly });
