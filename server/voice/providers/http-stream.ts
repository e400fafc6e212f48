/**
 * What the two streaming LLM adapters share: one POST whose answer is a Server-Sent Events stream, with
 * the provider's error answers mapped to ProviderError, a time limit to the first byte and between bytes,
 * and the caller's AbortSignal honoured at every step. The connection goes through `guardedFetch`, so a
 * company's own Base URL reaches only public addresses (unless the server allows private ones) and
 * redirects are never followed.
 */
import { providerLabel } from '@contract/provider.js';
import { yieldToLoop } from '../../platform/jobs/cooperative.js';
import { guardedFetch, UnsafeUrlError } from '../../platform/net/net-guard.js';
import { LineSplitter, LineTooLongError } from './lines.js';
import { ProviderError, type ProviderErrorKind, type ProviderId } from './types.js';

export interface StreamLimits {
  /** no first byte of the answer's body within this time: 'timeout' (default 15 s) */
  firstByteMs?: number;
  /** no byte for this long once the answer has started: 'timeout' (default 30 s) */
  idleMs?: number;
}

export const DEFAULT_LIMITS: Required<StreamLimits> = { firstByteMs: 15_000, idleMs: 30_000 };

/** An error answer's body is read up to this many bytes. */
const ERROR_BODY_MAX = 16 * 1024;
const MB = 1024 * 1024;
/**
 * One SSE line longer than this is a broken stream, refused as soon as its bytes pass it (the answer is never
 * held whole in memory; a chunk of a reply is a few hundred bytes).
 */
export const SSE_LINE_MAX = MB;
/** A streamed answer longer than this is refused: a reply to a call is a few KB (a company's own server may send anything). */
const SSE_BODY_MAX = 8 * 1024 * 1024;

/** The ProviderError kind of an HTTP status. */
export function kindOfStatus(status: number): ProviderErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limited';
  if (status === 408 || status === 504) return 'timeout';
  if (status >= 400 && status < 500) return 'bad_request';
  return 'unavailable';
}

/** Removes the key from a provider's text and caps its length, so the message is safe to show and log. */
export function safeProviderText(text: string, apiKey: string): string {
  let out = text;
  if (apiKey.length >= 4) out = out.split(apiKey).join('***');
  // OpenAI echoes a partly masked key on 401 ('sk-abc***wxyz'): never repeat any form of it
  out = out.replace(/\b(sk|key)[-_][\w*.-]{4,}/gi, '***');
  return out.length > 300 ? `${out.slice(0, 300)}…` : out;
}

/**
 * A ProviderError from an error answer: its HTTP status (undefined for an error event inside a stream) and
 * the provider's error JSON, whatever its shape.
 */
export function errorFromAnswer(
  provider: ProviderId,
  status: number | undefined,
  body: string,
  apiKey: string,
  kind: ProviderErrorKind = kindOfStatus(status ?? 500),
): ProviderError {
  const label = providerLabel(provider);
  let type = '';
  let message = '';
  try {
    const json = JSON.parse(body) as { error?: { type?: unknown; code?: unknown; message?: unknown } | string };
    const err = json.error;
    if (typeof err === 'string') message = err;
    else if (err && typeof err === 'object') {
      type = typeof err.type === 'string' ? err.type : typeof err.code === 'string' ? err.code : '';
      message = typeof err.message === 'string' ? err.message : '';
    }
  } catch {
    // not JSON: the status says enough
  }
  const code = [status, type].filter(Boolean).join(' ');
  if (kind === 'auth') return new ProviderError(provider, 'auth', `${label} refused the API key (${code})`, status);
  const detail = message ? `: ${safeProviderText(message, apiKey)}` : '';
  const what = kind === 'rate_limited' ? 'is rate limiting this key' : kind === 'bad_request' ? 'refused the request' : 'failed';
  return new ProviderError(provider, kind, `${label} ${what} (${code})${detail}`, status);
}

export interface SseEvent {
  /** the `event:` field ('' when absent) */
  event: string;
  data: string;
}

/** What reading one answer has cost so far: reported after each chunk (tests measure the work with it). */
export interface StreamWork {
  /** chunks read from the connection */
  chunks: number;
  /** bytes read */
  received: number;
  /** bytes the line splitter looked at (linear: each byte once) */
  scanned: number;
}

/** The adapters' options: the time limits, and who is told the work done after each chunk. */
export interface StreamOptions extends StreamLimits {
  observe?: (work: Readonly<StreamWork>) => void;
}

export interface SseRequest {
  provider: ProviderId;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  apiKey: string;
  signal: AbortSignal;
  publicOnly: boolean;
  limits: Required<StreamLimits>;
  observe?: StreamOptions['observe'];
}

/**
 * POSTs `body` as JSON and yields the answer's SSE events as they arrive. Throws ProviderError for an error
 * answer, a refused address, a dropped connection, a time limit, a line past SSE_LINE_MAX (as soon as its
 * bytes pass it) or an answer past SSE_BODY_MAX; an abort by the caller ends it with the signal's reason (an
 * AbortError), at once. Breaking out of the loop closes the connection.
 *
 * A company's own Base URL may answer anything, in any pieces: lines are cut in linear time (lines.ts) and
 * the event loop turns between two chunks, so chunks that queued up while this stream waited are not all
 * handled in one go while other requests and live calls wait.
 */
export async function* postSse(request: SseRequest): AsyncGenerator<SseEvent> {
  const { provider, signal, limits } = request;
  const label = providerLabel(provider);
  signal.throwIfAborted();
  // one controller for the connection: the caller's abort, a time limit, or the consumer leaving
  const connection = new AbortController();
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = (ms: number) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      connection.abort();
    }, ms);
  };
  const onAbort = () => connection.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  const fail = (e: unknown): never => {
    if (signal.aborted) throw signal.reason;
    if (timedOut) throw new ProviderError(provider, 'timeout', `${label} did not answer in time`);
    if (e instanceof ProviderError) throw e;
    if (e instanceof UnsafeUrlError) throw new ProviderError(provider, 'bad_request', `${label} Base URL refused: ${e.message}`);
    throw new ProviderError(provider, 'unavailable', `${label} connection failed`);
  };

  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    arm(limits.firstByteMs);
    let res: Response;
    try {
      res = await guardedFetch(request.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...request.headers },
        body: JSON.stringify(request.body),
        signal: connection.signal,
        publicOnly: request.publicOnly,
      });
    } catch (e) {
      return fail(e);
    }
    reader = res.body?.getReader();
    if (res.status < 200 || res.status > 299) {
      const text = reader ? await readCapped(reader, ERROR_BODY_MAX).catch(() => '') : '';
      throw errorFromAnswer(provider, res.status, text, request.apiKey);
    }
    if (!reader) throw new ProviderError(provider, 'unavailable', `${label} answered without a body`);

    const lines = new LineSplitter(SSE_LINE_MAX);
    const work: StreamWork = { chunks: 0, received: 0, scanned: 0 };
    let event = '';
    let data: string[] = [];
    let first = true;
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (e) {
        return fail(e);
      }
      if (chunk.done) break;
      arm(limits.idleMs);
      work.chunks++;
      work.received += chunk.value.byteLength;
      if (work.received > SSE_BODY_MAX) throw new ProviderError(provider, 'unavailable', `${label} sent an oversized answer`);
      let complete: string[];
      try {
        complete = lines.push(chunk.value);
      } catch (e) {
        if (e instanceof LineTooLongError)
          throw new ProviderError(provider, 'unavailable', `${label} sent a line longer than ${SSE_LINE_MAX / MB} MB`);
        throw e;
      } finally {
        work.scanned = lines.scanned;
        request.observe?.(work);
      }
      for (let line of complete) {
        if (first) {
          // a byte order mark may open the stream (the SSE grammar drops it)
          first = false;
          line = line.replace(/^\uFEFF/, '');
        }
        if (line === '') {
          if (data.length > 0) yield { event, data: data.join('\n') };
          event = '';
          data = [];
        } else if (!line.startsWith(':')) {
          const colon = line.indexOf(':');
          const field = colon === -1 ? line : line.slice(0, colon);
          const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
          if (field === 'event') event = value;
          else if (field === 'data') data.push(value);
        }
      }
      // the next chunk may already be queued (read() would then answer at once): other work goes first
      await yieldToLoop();
    }
    if (data.length > 0) yield { event, data: data.join('\n') };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    connection.abort();
    reader?.cancel().catch(() => {});
  }
}

async function readCapped(reader: ReadableStreamDefaultReader<Uint8Array>, max: number): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (text.length >= max) break;
  }
  return text.slice(0, max);
}

/** JSON.parse, with a broken answer reported as the provider being unavailable. */
export function parseJson<T>(provider: ProviderId, text: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ProviderError(provider, 'unavailable', `${providerLabel(provider)} sent an unreadable event`);
  }
}
