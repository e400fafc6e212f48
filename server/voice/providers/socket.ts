/**
 * WebSocket plumbing shared by the streaming provider adapters (Deepgram, ElevenLabs, Cartesia): the
 * wss:// address under a configurable http(s) API base, an upgrade with a time limit and an abort signal,
 * and the mapping of refused upgrades and close frames to `ProviderError`s. Messages it builds name the
 * provider and the status or close code; they never contain the key or a request body.
 */
import { providerLabel } from '@contract/provider.js';
import WebSocket from 'ws';
import { ProviderError, type ProviderErrorKind, type ProviderId } from './types.js';

/**
 * Largest message a provider may send us (an ElevenLabs chunk of base64 audio is ~50 KB). A longer one is
 * refused as soon as its frames pass it (ws closes with 1009), not when it ends.
 */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * The options of every provider socket (openSocket, and the OpenAI Realtime one): no compression (a small
 * frame cannot inflate into megabytes), messages up to MAX_MESSAGE_BYTES, one message per turn of the
 * event loop (a burst of messages that arrived together does not hold the loop while calls wait), and
 * no redirects.
 */
export const PROVIDER_SOCKET_OPTIONS = {
  perMessageDeflate: false,
  maxPayload: MAX_MESSAGE_BYTES,
  allowSynchronousEvents: false,
  followRedirects: false,
} as const satisfies WebSocket.ClientOptions;

/** The sockets that refused a message past MAX_MESSAGE_BYTES (their close event then says only 1006). */
const oversized = new WeakSet<WebSocket>();

/** Whether a socket's error is ws refusing a message past maxPayload (it then closes the socket with 1009). */
export const isOversizedMessage = (error: unknown) =>
  (error as { code?: unknown } | null)?.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH';

/** The error of a provider message past MAX_MESSAGE_BYTES. */
export const oversizedError = (provider: ProviderId, what = providerLabel(provider)) =>
  new ProviderError(provider, 'unavailable', `${what} sent a message larger than ${MAX_MESSAGE_BYTES / 1024 / 1024} MB`);
/** How much of a refused upgrade's body is read for its error detail. */
const MAX_REFUSAL_BODY = 2048;

/** Provider text made safe for a log line: printable, one line, at most 160 characters. */
export function safeDetail(text: string): string {
  return text
    .replace(/\p{Cc}+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 160);
}

/** The WebSocket address of `path` under an http(s) API base (https -> wss, http -> ws; a path prefix is kept). */
export function socketUrl(provider: ProviderId, baseUrl: string, path: string, query?: URLSearchParams): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new ProviderError(provider, 'bad_request', `${providerLabel(provider)}'s API address is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ProviderError(provider, 'bad_request', `${providerLabel(provider)}'s API address must be http(s)`);
  }
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = url.pathname.replace(/\/+$/, '') + path;
  url.search = query ? query.toString() : '';
  url.hash = '';
  return url.toString();
}

/** The error of an HTTP status from a provider (a refused upgrade, or a status inside a stream message). */
export function statusError(provider: ProviderId, status: number, detail = ''): ProviderError {
  const label = providerLabel(provider);
  const suffix = detail ? `: ${safeDetail(detail)}` : '';
  if (status === 401 || status === 403)
    return new ProviderError(provider, 'auth', `${label} refused the key (${status})`, status);
  if (status === 429) return new ProviderError(provider, 'rate_limited', `${label} is rate limiting this account (429)`, status);
  if (status === 408) return new ProviderError(provider, 'timeout', `${label} timed out (408)`, status);
  if (status >= 400 && status < 500) {
    return new ProviderError(provider, 'bad_request', `${label} refused the request (${status})${suffix}`, status);
  }
  return new ProviderError(provider, 'unavailable', `${label} failed (${status})${suffix}`, status);
}

/**
 * The error of a socket that closed while we still wanted the stream: the provider's close frame, or our
 * own refusal of an oversized message.
 */
export function closeError(provider: ProviderId, ws: WebSocket, code: number, reason: string): ProviderError {
  if (oversized.has(ws)) return oversizedError(provider);
  const label = providerLabel(provider);
  const detail = safeDetail(reason);
  const message = `${label} closed the stream (${code}${detail ? `: ${detail}` : ''})`;
  let kind: ProviderErrorKind = 'unavailable';
  if (code === 1008)
    kind = /api[ _-]?key|unauthori[sz]ed|authenticat|credential|permission/i.test(reason) ? 'auth' : 'bad_request';
  else if (code === 1013) kind = 'rate_limited';
  return new ProviderError(provider, kind, message);
}

/**
 * The JSON object of a text message, or null (binary, unparseable or not an object). The message is at most
 * MAX_MESSAGE_BYTES (the socket's maxPayload), parsed once.
 */
export function jsonMessage(data: WebSocket.RawData, isBinary: boolean): Record<string, unknown> | null {
  if (isBinary) return null;
  try {
    const value: unknown = JSON.parse(data.toString());
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export interface OpenSocketOptions {
  provider: ProviderId;
  url: string;
  headers: Record<string, string>;
  /** the upgrade must be answered within this time */
  timeoutMs: number;
  signal: AbortSignal;
  /** the error of a refused upgrade (default: `statusError` with the body as detail) */
  refused?: (status: number, body: string) => ProviderError;
}

/**
 * Opens a WebSocket to a provider. Rejects with a ProviderError (refused upgrade, unreachable, time limit),
 * or with the signal's reason when it is aborted first; a socket that is not returned is terminated.
 */
export function openSocket(options: OpenSocketOptions): Promise<WebSocket> {
  const { provider, signal } = options;
  const label = providerLabel(provider);
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const ws = new WebSocket(options.url, { ...PROVIDER_SOCKET_OPTIONS, headers: options.headers });
    let settled = false;
    const finish = (error?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      if (error === undefined) {
        resolve(ws);
        return;
      }
      ws.terminate();
      reject(error);
    };
    const onAbort = () => finish(signal.reason);
    const timer = setTimeout(
      () =>
        finish(new ProviderError(provider, 'timeout', `${label} did not accept the connection within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    signal.addEventListener('abort', onAbort, { once: true });
    // stays attached for the socket's life: an 'error' without a listener would crash the process
    ws.on('error', (e) => {
      if (isOversizedMessage(e)) {
        // ws has sent its 1009 close frame: a provider that never answers it must not hold the stream
        oversized.add(ws);
        ws.terminate();
      }
      finish(new ProviderError(provider, 'unavailable', `${label} could not be reached`));
    });
    ws.once('open', () => finish());
    ws.once('unexpected-response', (request, response) => {
      const status = response.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        request.destroy();
        const body = Buffer.concat(chunks).toString('utf8');
        finish((options.refused ?? ((s, b) => statusError(provider, s, b)))(status, body));
      };
      response.on('data', (chunk: Buffer) => {
        if (size < MAX_REFUSAL_BODY) chunks.push(chunk.subarray(0, MAX_REFUSAL_BODY - size));
        size += chunk.length;
        if (size >= MAX_REFUSAL_BODY) done();
      });
      response.once('end', done);
      response.once('error', done);
    });
  });
}

/** Closes politely (1000) and cuts the connection if the other side has not closed within `graceMs`. */
export function shutSocket(ws: WebSocket, graceMs = 1000): void {
  if (ws.readyState === WebSocket.CLOSED) return;
  if (ws.readyState === WebSocket.CONNECTING) {
    ws.terminate();
    return;
  }
  if (ws.readyState === WebSocket.OPEN) ws.close(1000);
  setTimeout(() => ws.terminate(), graceMs).unref();
}
