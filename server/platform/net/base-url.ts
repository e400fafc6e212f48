/**
 * Provider API addresses: a base is an http(s) URL without credentials, query or fragment; it may carry a
 * path prefix for OpenAI-compatible servers (`https://gateway.example/openai`). A trailing `/v1` is dropped,
 * since the adapters add the versioned paths themselves (`{base}/v1/chat/completions`): so
 * `http://localhost:11434/v1`, the form Ollama and vLLM document, works as it is written.
 */

/** The normalised base (no trailing slash, no trailing /v1), or null when `input` is not a usable base. */
export function normalizeBaseUrl(input: string): string | null {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.username || url.password || url.search || url.hash) return null;
  const path = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  return `${url.origin}${path}`;
}

export const BASE_URL_RULE = 'must be an http:// or https:// URL without user name, query or fragment';
