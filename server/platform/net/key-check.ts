/**
 * Trying a provider's credentials before they are saved: the provider's cheapest authenticated request
 * (each provider brings its own `KeyCheck`: a voice provider in its descriptor, server/voice/providers/<id>/,
 * a carrier in server/carriers/<id>/, a tool provider in server/voice/tools/key-checks.ts).
 *
 * The request goes through `guardedFetch` (a company's own Base URL reaches only public addresses unless the
 * server allows private ones; redirects are never followed), gives up after `timeoutMs`, and its answer is
 * read at most KEY_CHECK_ANSWER_MAX_BYTES. What it answers:
 * - accepted: a 2xx;
 * - refused: 401 or 403, or an answer the provider documents as a refusal (`refusedField`), with the
 *   provider's reason (its message, with any credential the company sent taken out) and the field it belongs to;
 * - unknown: anything else (no connection, a timeout, a 5xx, a rate limit, an answer the check does not know):
 *   the provider could not say, and the caller saves with a warning.
 */
import { guardedFetch } from './net-guard.js';
import { readCapped } from './read-capped.js';

/** A check's answer is read at most this far (a refusal's reason is in its first bytes). */
export const KEY_CHECK_ANSWER_MAX_BYTES = 16 * 1024;
/** A check gives up after this long and the key is saved with a warning. */
export const KEY_CHECK_TIMEOUT_MS = 5_000;
/** The provider's reason is cut to this many characters. */
const REASON_MAX = 300;

export interface KeyCheckRequest {
  method: 'GET' | 'POST';
  /** path and query under the API base, starting with '/' */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface KeyCheck {
  /** the request with the credentials, by field name */
  request(value: (field: string) => string): KeyCheckRequest;
  /** the field a 401 or 403 belongs to (the key) */
  field: string;
  /**
   * The field an answer other than 401/403 refuses, when the provider documents it as a refusal of the
   * credentials (Twilio's 404 for an Account SID that is not the token's); undefined = not a refusal.
   */
  refusedField?(status: number, body: unknown): string | undefined;
  /** the reason shown for a refusal when the provider's own is too terse ('Authenticate'); default: the provider's */
  reason?(status: number, body: unknown): string | undefined;
}

export type KeyCheckOutcome =
  | { kind: 'accepted' }
  | { kind: 'refused'; status: number; field: string; reason: string }
  | { kind: 'unknown'; why: 'unreachable' | 'timeout' | 'status'; status?: number };

export interface KeyCheckTarget {
  /** the API base, no trailing slash */
  baseUrl: string;
  /** connect only to public addresses (a company's own Base URL) */
  publicOnly: boolean;
  /** the plain values the company entered, by field name */
  values: Readonly<Record<string, string>>;
  timeoutMs?: number;
}

/**
 * The reason a provider gives in a refusal, from the shapes their documents give: OpenAI and Anthropic
 * `{error: {message}}`, Graph `{error: {message}}`, Deepgram `{err_msg}` or `{message}`, ElevenLabs
 * `{detail: {message}}` or `{detail: '...'}`, Twilio and Cal.com `{message}`, Plivo and Cartesia `{error: '...'}`,
 * Calendly `{title, message}`.
 */
export function providerReason(body: unknown): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const b = body as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
  const inner = (v: unknown) => (v && typeof v === 'object' ? str((v as Record<string, unknown>).message) : undefined);
  return (
    inner(b.error) ??
    str(b.error) ??
    str(b.err_msg) ??
    inner(b.detail) ??
    str(b.detail) ??
    str(b.message) ??
    inner(Array.isArray(b.errors) ? b.errors[0] : undefined) ??
    str(b.title)
  );
}

/** The reason as it may be shown: one line, bounded, without any credential the company sent. */
function cleanReason(reason: string, values: Readonly<Record<string, string>>): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is taken out
  let out = reason.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  for (const v of Object.values(values)) if (v.length >= 4) out = out.split(v).join('…');
  return out.length > REASON_MAX ? `${out.slice(0, REASON_MAX - 1)}…` : out;
}

/** Asks the provider whether it takes the credentials. Never throws for the provider's sake. */
export async function runKeyCheck(check: KeyCheck, target: KeyCheckTarget): Promise<KeyCheckOutcome> {
  const request = check.request((field) => target.values[field] ?? '');
  const signal = AbortSignal.timeout(target.timeoutMs ?? KEY_CHECK_TIMEOUT_MS);
  let status: number;
  let text: string;
  try {
    const res = await guardedFetch(`${target.baseUrl.replace(/\/+$/, '')}${request.path}`, {
      method: request.method,
      headers: { accept: 'application/json', ...request.headers },
      ...(request.body === undefined ? {} : { body: request.body }),
      signal,
      publicOnly: target.publicOnly,
    });
    status = res.status;
    text = (await readCapped(res, KEY_CHECK_ANSWER_MAX_BYTES, signal)).text;
  } catch {
    return { kind: 'unknown', why: signal.aborted ? 'timeout' : 'unreachable' };
  }
  if (status >= 200 && status < 300) return { kind: 'accepted' };
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  const field = status === 401 || status === 403 ? check.field : check.refusedField?.(status, body);
  if (field === undefined) return { kind: 'unknown', why: 'status', status };
  const reason = cleanReason(check.reason?.(status, body) ?? providerReason(body) ?? `HTTP ${status}`, target.values);
  return { kind: 'refused', status, field, reason };
}
