/**
 * Custom function (type 'custom'): the company's own HTTP API, called when the model asks.
 *
 * The request:
 * - POST, PUT, PATCH, DELETE: a JSON body `{"name": <function name>, "args": {...}, "call": {call_id, agent_id,
 *   type, from_number, to_number, dynamic_variables}}` (content-type application/json).
 * - GET: no body; each argument is a query parameter added to the URL's own (a string as it is, a number or
 *   boolean as text, an array as the parameter repeated, an object as JSON).
 * - Headers: the function's own (their values are secrets, opened here), then `X-Parley-Signature:
 *   t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">` with the company's signing secret, exactly like
 *   webhooks. For GET the body signed is the empty string (so the signature covers the time only: a receiver
 *   checks it the same way, with body ""), and the query is not signed.
 *
 * The URL is reached only through the private-address guard unless ALLOW_PRIVATE_TOOL_URLS=true, and no
 * redirect is followed (a 3xx is an error for the model). The answer is read up to 64 KB (JSON or text);
 * a 4xx/5xx, an unreachable server, invalid JSON or the function's own timeout become `ok: false` with a
 * short reason. When the call's signal aborts (call ended, barge-in), the request is dropped and the
 * abort is thrown: the engine discards the result.
 */
import type { AgentFunctionOf } from '@contract/agent/functions.js';
import { Ajv } from 'ajv';
import { signatureHeader } from '../../../platform/crypto/signature.js';
import { guardedFetch, UnsafeUrlError } from '../../../platform/net/net-guard.js';
import type { PreparedTool, ToolEnv, ToolKind, ToolOutcome } from '../types.js';
import { openHeaders } from './headers.js';
import { ANSWER_READ_MAX_BYTES, allowPrivate, excerpt, readCapped, toolUrlProblem } from './http.js';

type CustomFunction = AgentFunctionOf<'custom'>;

/** The problem with `parameters` as a JSON Schema (compiled with ajv), or null. */
export function parametersProblem(parameters: Record<string, unknown>): string | null {
  // strict off: schemas written for LLMs carry keywords ajv does not know (examples, x-...), which are fine
  const ajv = new Ajv({ strict: false, validateFormats: false });
  try {
    ajv.compile(parameters);
    return null;
  } catch (e) {
    return `parameters are not a valid JSON Schema (${excerpt(e instanceof Error ? e.message : String(e), 200)})`;
  }
}

/** The query parameters of a GET call. */
export function queryOf(url: URL, args: Record<string, unknown>): URL {
  const out = new URL(url);
  const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const item of value) out.searchParams.append(key, text(item));
    else out.searchParams.append(key, text(value));
  }
  return out;
}

const failed = (result: Record<string, unknown>): ToolOutcome => ({ ok: false, result: JSON.stringify(result) });

const isJson = (contentType: string | null) => !!contentType && /^application\/([\w.+-]+\+)?json\b/i.test(contentType.trim());

export async function runCustom(fn: CustomFunction, args: Record<string, unknown>, env: ToolEnv): Promise<ToolOutcome> {
  const { deps } = env;
  const headers: Record<string, string> = {
    'user-agent': 'Parley-Functions/1.0',
    accept: 'application/json, text/plain;q=0.9, */*;q=0.5',
    ...openHeaders(deps.secrets.masterKey, env.companyId, fn.headers),
  };
  let url = new URL(fn.url);
  let body = '';
  if (fn.method === 'GET') url = queryOf(url, args);
  else {
    body = JSON.stringify({ name: fn.name, args, call: env.call });
    headers['content-type'] = 'application/json';
  }
  const secret = await env.services.signingSecret(env.companyId);
  headers['x-parley-signature'] = signatureHeader(secret, body, deps.clock.now().getTime());

  // the function's own time limit also holds when no engine runs it (the engine's signal usually comes first)
  const timeout = AbortSignal.timeout(fn.timeout_ms);
  const signal = AbortSignal.any([env.signal, timeout]);
  const gone = () => {
    if (env.signal.aborted) throw env.signal.reason ?? new DOMException('The call ended', 'AbortError');
    return timeout.aborted;
  };
  let res: Response;
  try {
    res = await guardedFetch(url, {
      method: fn.method,
      headers,
      ...(fn.method === 'GET' ? {} : { body }),
      signal,
      publicOnly: !allowPrivate(deps),
    });
  } catch (e) {
    if (gone()) return failed({ error: `The function did not answer within ${fn.timeout_ms} ms` });
    if (e instanceof UnsafeUrlError) return failed({ error: `The function's URL was refused: ${e.message}` });
    const code = (e as NodeJS.ErrnoException).code;
    return failed({ error: `The function's server could not be reached${code ? ` (${code})` : ''}` });
  }
  let answer: { text: string; cut: boolean };
  try {
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel().catch(() => {});
      return failed({
        error: `The function's server answered with a redirect (HTTP ${res.status}), which is not followed`,
        status: res.status,
      });
    }
    answer = await readCapped(res, ANSWER_READ_MAX_BYTES, signal);
  } catch (e) {
    if (gone()) return failed({ error: `The function did not answer within ${fn.timeout_ms} ms` });
    return failed({ error: `The function's answer could not be read (${excerpt(String(e), 100)})` });
  }
  if (res.status >= 400)
    return failed({ error: `The function's server answered HTTP ${res.status}`, status: res.status, body: excerpt(answer.text) });
  const note = answer.cut ? `\n[The answer was longer than ${ANSWER_READ_MAX_BYTES / 1024} KB and was cut]` : '';
  if (isJson(res.headers.get('content-type')) && !answer.cut) {
    try {
      return { ok: true, result: JSON.stringify(JSON.parse(answer.text === '' ? 'null' : answer.text)) };
    } catch {
      return failed({ error: 'The function answered invalid JSON', body: excerpt(answer.text) });
    }
  }
  return { ok: true, result: `${answer.text}${note}` };
}

export const customTool: ToolKind<'custom'> = {
  type: 'custom',
  async prepare(fn) {
    const tool: PreparedTool = {
      spec: { name: fn.name, description: fn.description, parameters: fn.parameters },
      fn,
      run: (args, env) => runCustom(fn, args, env),
    };
    return [tool];
  },
  async check(fn, deps) {
    return (await toolUrlProblem(deps, fn.url)) ?? parametersProblem(fn.parameters);
  },
};
