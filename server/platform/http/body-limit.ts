import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

/** Caps the request body before it is buffered; beyond it answers 413 `{ success: false, msg }`. */
export function limitBody(maxBytes: number, msg = 'Request body is too large'): MiddlewareHandler {
  return bodyLimit({ maxSize: maxBytes, onError: (c) => c.json({ success: false, msg }, 413) });
}

/** The default cap for JSON bodies of small forms. */
export const JSON_BODY_MAX = 64 * 1024;
