import type { Context } from 'hono';
import * as v from 'valibot';
import { HttpError, refuseNul } from './http.js';

/**
 * Validates a list's query string with its contract schema. A bad value answers 400
 * `Invalid query parameter 'name': message` with `errors: { name: message }`.
 */
export function listQuery<S extends v.GenericSchema>(c: Context, schema: S): v.InferOutput<S> {
  const raw = c.req.query();
  refuseNul(raw, 'query');
  const parsed = v.safeParse(schema, raw);
  if (parsed.success) return parsed.output;
  const issue = parsed.issues[0];
  const name = String(issue.path?.[0]?.key ?? 'query');
  throw new HttpError(400, `Invalid query parameter '${name}': ${issue.message}`, { errors: { [name]: issue.message } });
}

/** `%term%` for a case-sensitive LIKE with the wildcards of the term escaped (use with ESCAPE '\'). */
export const likeContains = (term: string) => `%${term.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
