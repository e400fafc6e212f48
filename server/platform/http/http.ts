import { ACCOUNT_MESSAGES } from '@contract/account.js';
import { JsonTooDeepError, parseJson } from '@contract/json.js';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import * as v from 'valibot';

/** An error that becomes `{ success: false, msg }` with its status. */
export class HttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly extra?: Record<string, unknown>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

/** 401 of a request whose session ended (expired, revoked, or its company deleted): the client signs in again. */
export const sessionExpired = () =>
  new HttpError(401, ACCOUNT_MESSAGES.sessionExpired, undefined, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });

export const notFound = (what = 'Not found') => new HttpError(404, what);

/** Turns valibot issues into a single readable msg plus per-field messages. */
export function issuesToError(issues: readonly v.BaseIssue<unknown>[], where = 'body'): HttpError {
  const errors: Record<string, string> = {};
  for (const issue of issues) {
    const key = issue.path?.map((p) => String(p.key)).join('.') || where;
    if (!(key in errors)) errors[key] = issue.message;
  }
  const first = Object.entries(errors)[0];
  const msg = first ? (first[0] === where ? first[1] : `${first[0]}: ${first[1]}`) : 'Invalid request';
  return new HttpError(400, msg, { errors });
}

/** PostgreSQL text cannot hold NUL, and no field of the product needs one: input with a NUL answers 400. */
export const NUL_MESSAGE = 'Text may not contain NUL characters';

/** True when a string, or any key or string inside an object or array, contains U+0000. */
export function containsNul(input: unknown): boolean {
  const stack = [input];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return true;
    } else if (value !== null && typeof value === 'object') {
      for (const [k, inner] of Object.entries(value)) {
        if (k.includes('\u0000')) return true;
        stack.push(inner);
      }
    }
  }
  return false;
}

/** Throws 400 when `input` holds a NUL (see containsNul). */
export function refuseNul(input: unknown, where = 'body'): void {
  if (containsNul(input)) throw new HttpError(400, NUL_MESSAGE, { errors: { [where]: NUL_MESSAGE } });
}

export function parseWith<S extends v.GenericSchema>(schema: S, input: unknown, where = 'body'): v.InferOutput<S> {
  refuseNul(input, where);
  const r = v.safeParse(schema, input);
  if (!r.success) throw issuesToError(r.issues, where);
  return r.output;
}

/** A request's JSON body ({} when empty): 400 when malformed or nested too deep to parse (see parseJson). */
export async function readJson(c: Context): Promise<unknown> {
  try {
    const text = await c.req.text();
    return text.length === 0 ? {} : parseJson(text);
  } catch (e) {
    throw new HttpError(400, e instanceof JsonTooDeepError ? `Malformed JSON body: ${e.message}` : 'Malformed JSON body');
  }
}

/** Reads and validates a JSON body. Malformed JSON answers 400. */
export async function jsonBody<S extends v.GenericSchema>(c: Context, schema: S): Promise<v.InferOutput<S>> {
  return parseWith(schema, await readJson(c), 'body');
}

/** Validates the query string (first value of each key). */
export function query<S extends v.GenericSchema>(c: Context, schema: S): v.InferOutput<S> {
  return parseWith(schema, c.req.query(), 'query');
}

export function ok<T extends Record<string, unknown>>(c: Context, body: T, status: ContentfulStatusCode = 200) {
  return c.json({ success: true, ...body }, status);
}
