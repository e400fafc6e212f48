/**
 * One request of a tool to a provider's API (Cal.com, Calendly, Perplexity) with the company's card: the
 * base URL the server was configured with (CAL_API_URL, CALENDLY_API_URL, PERPLEXITY_API_URL; the provider's
 * own when unset), the tool's abort signal, no redirect followed, and an answer read only up to
 * PROVIDER_ANSWER_MAX_BYTES (a bigger one is refused, not buffered). Every failure becomes a ToolError in
 * words the model can repeat; the key is never part of a message.
 */

import { guardedFetch } from '../../platform/net/net-guard.js';
import { readWhole } from '../../platform/net/read-capped.js';
import type { ProviderAccess } from '../providers/types.js';
import { ToolError } from './types.js';

/** A provider's answer is read at most this far (slots of a month, a search answer with its sources). */
export const PROVIDER_ANSWER_MAX_BYTES = 256 * 1024;

export interface ProviderReply {
  status: number;
  /** the parsed JSON body, undefined when it was not JSON */
  json: unknown;
}

export interface ProviderRequest {
  method: 'GET' | 'POST';
  /** path and query under the base, starting with '/' */
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  signal: AbortSignal;
}

/** The provider's API base: the company's access (server configuration) or the provider's own. */
export function baseOf(access: ProviderAccess, fallback: string): string {
  return (access.baseUrl || fallback).replace(/\/+$/, '');
}

/** Sends one request with the Bearer key; throws ToolError for an unreachable provider or an oversized answer. */
export async function providerRequest(
  label: string,
  access: ProviderAccess,
  fallbackBase: string,
  request: ProviderRequest,
): Promise<ProviderReply> {
  const headers: Record<string, string> = {
    accept: 'application/json',
    authorization: `Bearer ${access.apiKey}`,
    ...request.headers,
  };
  let body: string | undefined;
  if (request.body !== undefined) {
    body = JSON.stringify(request.body);
    headers['content-type'] = 'application/json';
  }
  let res: Response;
  try {
    res = await guardedFetch(`${baseOf(access, fallbackBase)}${request.path}`, {
      method: request.method,
      headers,
      ...(body === undefined ? {} : { body }),
      signal: request.signal,
      publicOnly: access.publicOnly,
    });
  } catch (e) {
    if (request.signal.aborted) throw e;
    throw new ToolError(`${label} could not be reached`);
  }
  let text: string | undefined;
  try {
    text = await readWhole(res, PROVIDER_ANSWER_MAX_BYTES);
  } catch (e) {
    if (request.signal.aborted) throw e;
    throw new ToolError(`${label}'s answer was cut off`);
  }
  if (text === undefined) throw new ToolError(`${label}'s answer was too large`);
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json };
}

/** A refusal in words for the model: the key, the rate limit, or the provider's own reason. */
export function failureOf(label: string, status: number, reason: string | undefined): string {
  if (status === 401) return `${label} refused the key (401): the ${label} card on the Providers page needs a valid key`;
  if (status === 403) return `${label} refused the request (403)${reason ? `: ${reason}` : ''}`;
  if (status === 429) return `${label} is limiting requests right now (429): try again in a moment`;
  if (status >= 500) return `${label} is unavailable (${status})`;
  return `${label} refused the request (${status})${reason ? `: ${reason}` : ''}`;
}

/** The model's string argument, trimmed; '' when absent or not a string. */
export function stringArg(args: Record<string, unknown>, name: string, max = 500): string {
  const v = args[name];
  return typeof v === 'string' ? v.trim().slice(0, max) : '';
}

/** A reason string from a provider's JSON error, cut short. */
export function shortReason(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim().slice(0, 300) : undefined;
}
