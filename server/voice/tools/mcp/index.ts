/**
 * MCP server (type 'mcp'): the tools of a company's Streamable HTTP MCP server, offered to the LLM.
 *
 * At the conversation's start `prepare` opens a session with the official SDK's client (initialize, then
 * tools/list following `nextCursor`, at most MAX_TOOLS tools), keeps the tools named in `allowed_tools`
 * (none named = all) and offers each as `<function name>__<tool name>` (characters outside [a-zA-Z0-9_-]
 * become '_', cut to 64) with the tool's input schema. `run` is a tools/call on that session; its text
 * parts are the result and `isError` makes it `ok: false`. `close` ends the session (DELETE) when the
 * conversation is over.
 *
 * Every HTTP request of the transport goes through the private-address guard (unless
 * ALLOW_PRIVATE_TOOL_URLS=true; the URL is checked before connecting too), never follows a redirect to
 * another origin, and each answer is read up to MAX_ANSWER_BYTES. The function's headers (secrets) go on
 * every request.
 */
import type { AgentFunctionOf } from '@contract/agent/functions.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { AppDeps } from '../../../platform/deps.js';
import { assertPublicUrl, guardedFetch, UnsafeUrlError } from '../../../platform/net/net-guard.js';
import { openHeaders } from '../custom/headers.js';
import { allowPrivate, excerpt, toolUrlProblem } from '../custom/http.js';
import type { PreparedTool, ToolKind, ToolOutcome } from '../types.js';
import { ToolError } from '../types.js';

type McpFunction = AgentFunctionOf<'mcp'>;

/** Tools taken from one server's list (the rest are not offered), and pages of the list read at most. */
export const MAX_TOOLS = 128;
const MAX_PAGES = 20;
/** One HTTP answer of the MCP server is read up to this many bytes (then it fails). */
export const MAX_ANSWER_BYTES = 1024 * 1024;
/** How long closing a session may take (the DELETE); it never holds the call's end. */
const CLOSE_MS = 2_000;

export interface McpToolInfo {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/** `<function name>__<tool name>` as an LLM tool name: [a-zA-Z0-9_-], at most 64 characters. */
export const offeredName = (fnName: string, toolName: string) =>
  `${fnName}__${toolName}`.replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);

/** A response whose body errors past `max` bytes (and `onOverflow` is told). */
function capped(res: Response, max: number, onOverflow: () => void): Response {
  if (!res.body) return res;
  let size = 0;
  const limit = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      size += chunk.byteLength;
      if (size > max) {
        controller.error(new Error(`the MCP server's answer is larger than ${max} bytes`));
        onOverflow();
      } else controller.enqueue(chunk);
    },
  });
  return new Response(res.body.pipeThrough(limit), { status: res.status, statusText: res.statusText, headers: res.headers });
}

/** The SDK's fetch, made through the private-address guard with capped answers. */
export function guardedMcpFetch(deps: AppDeps, onOverflow: () => void = () => {}): FetchLike {
  return async (url, init) => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const body = init?.body;
    if (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array))
      throw new Error('unsupported request body');
    const res = await guardedFetch(url, {
      method: init?.method ?? 'GET',
      headers,
      ...(body === undefined || body === null ? {} : { body }),
      ...(init?.signal ? { signal: init.signal } : {}),
      publicOnly: !allowPrivate(deps),
    });
    return capped(res, MAX_ANSWER_BYTES, onOverflow);
  };
}

/** A failure of the MCP server in words for the model or the editor (never a header value). */
function reasonOf(e: unknown): string {
  if (e instanceof UnsafeUrlError) return `The MCP server's URL was refused: ${e.message}`;
  if (e instanceof McpError && e.code === ErrorCode.RequestTimeout) return 'The MCP server did not answer in time';
  if (e instanceof McpError) return `The MCP server refused the request: ${excerpt(e.message, 200)}`;
  if (e instanceof StreamableHTTPError && (e.code === 401 || e.code === 403))
    return `The MCP server refused the credentials (HTTP ${e.code}): check the headers`;
  if (e instanceof StreamableHTTPError && e.code) return `The MCP server answered HTTP ${e.code}`;
  const message = e instanceof Error ? e.message : String(e);
  return `The MCP server could not be reached (${excerpt(message, 160)})`;
}

export interface McpSession {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** a failure of this session in words for the model or the editor */
  reason(e: unknown): string;
  close(): Promise<void>;
}

const TOO_BIG = `The MCP server's answer was larger than ${MAX_ANSWER_BYTES / 1024 / 1024} MB`;

/** Opens a session (initialize) with plain header values. Throws ToolError with a reason to show. */
export async function openMcpSession(
  deps: AppDeps,
  url: string,
  headers: Record<string, string>,
  options: { signal: AbortSignal; timeoutMs: number },
): Promise<McpSession> {
  try {
    await assertPublicUrl(url, { allowPrivate: allowPrivate(deps) });
  } catch (e) {
    if (e instanceof UnsafeUrlError) throw new ToolError(reasonOf(e));
    throw e;
  }
  // an answer past the cap closes the session: the SDK would otherwise wait for the request's timeout
  let tooBig = false;
  const overflow = () => {
    tooBig = true;
    void client.close().catch(() => {});
  };
  const reason = (e: unknown) => (tooBig ? TOO_BIG : reasonOf(e));
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers, redirect: 'manual' },
    fetch: guardedMcpFetch(deps, overflow),
    // retries of a dropped stream are not this call's business: it ends or the model is told
    reconnectionOptions: {
      maxRetries: 0,
      initialReconnectionDelay: 1000,
      maxReconnectionDelay: 1000,
      reconnectionDelayGrowFactor: 1,
    },
  });
  const client = new Client({ name: 'parley', version: '1.0.0' });
  // errors of the background stream are reported through the requests they fail
  client.onerror = () => {};
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    const bounded = (p: Promise<unknown>) =>
      Promise.race([p.catch(() => {}), new Promise((r) => setTimeout(r, CLOSE_MS).unref())]);
    if (transport.sessionId) await bounded(transport.terminateSession());
    await bounded(client.close());
  };
  try {
    await client.connect(transport, { signal: options.signal, timeout: options.timeoutMs });
  } catch (e) {
    await close();
    if (options.signal.aborted) throw options.signal.reason ?? e;
    throw new ToolError(reason(e));
  }
  return { client, transport, reason, close };
}

/** tools/list, every page (at most MAX_PAGES pages and MAX_TOOLS tools). */
export async function listMcpTools(
  session: McpSession,
  options: { signal: AbortSignal; timeoutMs: number },
): Promise<McpToolInfo[]> {
  const out: McpToolInfo[] = [];
  let cursor: string | undefined;
  try {
    for (let page = 0; page < MAX_PAGES && out.length < MAX_TOOLS; page++) {
      const res = await session.client.listTools(cursor === undefined ? {} : { cursor }, {
        signal: options.signal,
        timeout: options.timeoutMs,
      });
      for (const t of res.tools)
        out.push({
          name: t.name,
          description: t.description ?? t.title ?? '',
          input_schema: t.inputSchema as Record<string, unknown>,
        });
      cursor = res.nextCursor;
      if (!cursor) break;
    }
  } catch (e) {
    if (options.signal.aborted) throw options.signal.reason ?? e;
    throw new ToolError(session.reason(e));
  }
  return out.slice(0, MAX_TOOLS);
}

/** A tools/call answer as the model reads it: the text parts, other parts named. */
export function outcomeOf(result: Record<string, unknown>): ToolOutcome {
  const parts = Array.isArray(result.content) ? (result.content as Record<string, unknown>[]) : [];
  const texts = parts.map((p) => {
    if (p.type === 'text') return String(p.text ?? '');
    if (p.type === 'resource') {
      const r = (p.resource ?? {}) as Record<string, unknown>;
      return typeof r.text === 'string' ? r.text : `[resource ${String(r.uri ?? '')}]`;
    }
    if (p.type === 'resource_link') return `[link ${String(p.uri ?? '')}]`;
    return `[${String(p.type)}]`;
  });
  let text = texts.join('\n');
  if (text === '' && result.structuredContent !== undefined) text = JSON.stringify(result.structuredContent);
  if (text === '' && 'toolResult' in result) text = JSON.stringify(result.toolResult);
  return { ok: result.isError !== true, result: text };
}

export const mcpTool: ToolKind<'mcp'> = {
  type: 'mcp',
  async prepare(fn: McpFunction, env) {
    const headers = openHeaders(env.deps.secrets.masterKey, env.companyId, fn.headers);
    const options = { signal: env.signal, timeoutMs: fn.timeout_ms };
    const session = await openMcpSession(env.deps, fn.url, headers, options);
    let tools: McpToolInfo[];
    try {
      tools = await listMcpTools(session, options);
    } catch (e) {
      await session.close();
      throw e;
    }
    const allowed = new Set(fn.allowed_tools);
    const seen = new Set<string>();
    const prepared: PreparedTool[] = [];
    for (const t of tools) {
      if (allowed.size > 0 && !allowed.has(t.name)) continue;
      const name = offeredName(fn.name, t.name);
      if (seen.has(name)) continue;
      seen.add(name);
      prepared.push({
        spec: { name, description: t.description, parameters: t.input_schema },
        fn,
        async run(args, runEnv) {
          try {
            const result = await session.client.callTool({ name: t.name, arguments: args }, undefined, {
              signal: runEnv.signal,
              timeout: fn.timeout_ms,
            });
            return outcomeOf(result as Record<string, unknown>);
          } catch (e) {
            if (runEnv.signal.aborted) throw runEnv.signal.reason ?? e;
            return { ok: false, result: JSON.stringify({ error: session.reason(e) }) };
          }
        },
        close: session.close,
      });
    }
    // a server none of whose tools is allowed keeps no session open
    if (prepared.length === 0) await session.close();
    return prepared;
  },
  async check(fn, deps) {
    return toolUrlProblem(deps, fn.url);
  },
};
