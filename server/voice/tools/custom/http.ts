/**
 * What custom functions and MCP servers share: a company-given URL is reached only through the private-address
 * guard (unless ALLOW_PRIVATE_TOOL_URLS=true), never with a redirect followed, and an answer is read with a cap.
 */
import type { AppDeps } from '../../../platform/deps.js';
import { assertPublicUrl, UnsafeUrlError } from '../../../platform/net/net-guard.js';

/** An answer is read up to this many bytes, the rest is not read (the runner cuts at 16 KB for the model). */
export const ANSWER_READ_MAX_BYTES = 64 * 1024;

export const allowPrivate = (deps: AppDeps) => deps.config.allowPrivateToolUrls === true;

/**
 * On save: the problem with a tool URL (a private, loopback or metadata address), or null. A name that does
 * not resolve (yet) reaches nothing and is checked again at each call, like a webhook URL.
 */
export async function toolUrlProblem(deps: AppDeps, url: string): Promise<string | null> {
  try {
    await assertPublicUrl(url, { allowPrivate: allowPrivate(deps) });
    return null;
  } catch (e) {
    if (!(e instanceof UnsafeUrlError)) throw e;
    if (e.reason === 'unresolvable') return null;
    return `URL refused: ${e.message}`;
  }
}

/** A short, single-line excerpt of an answer for the model (an error page, a 4xx explanation). */
export const excerpt = (text: string, max = 300) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max)}…` : line;
};

export { readCapped } from '../../../platform/net/read-capped.js';
