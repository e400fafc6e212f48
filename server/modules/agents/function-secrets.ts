/**
 * The agent's function headers (custom functions, MCP servers) are secrets:
 * - stored sealed with the master key, bound to the company (server/voice/tools/custom/headers.ts);
 * - answered as SECRET_MASK on every read (GET, and the answers of POST and PUT, which the editor's Export
 *   writes out), so no API answer or export ever carries a value;
 * - a save that sends the mask back keeps the stored value (matched by function id, then by header name,
 *   else by position); a mask with nothing stored behind it (an imported export) becomes an empty value,
 *   which the editor shows as needing to be entered again.
 * The tool opens them in memory when it runs.
 */
import { type AgentFunction, type FunctionHeader, SECRET_MASK } from '@contract/agent/functions.js';
import type { Agent } from '@contract/agent/responses.js';
import type { AgentDoc } from '@contract/agent/save.js';
import type { AppDeps } from '../../platform/deps.js';
import { sealHeaderValue } from '../../voice/tools/custom/headers.js';

type WithHeaders = Extract<AgentFunction, { headers: FunctionHeader[] }>;
const hasHeaders = (f: AgentFunction): f is WithHeaders => 'headers' in f && Array.isArray(f.headers);

const storedFunction = (stored: AgentDoc | undefined, fn: AgentFunction): WithHeaders | undefined => {
  const list = (stored?.editor.functions ?? []).filter(hasHeaders);
  return list.find((f) => f.id === fn.id && f.type === fn.type) ?? list.find((f) => f.name === fn.name && f.type === fn.type);
};

/** The stored (sealed) value behind a masked header, or '' when there is none. */
export function storedHeaderValue(stored: WithHeaders | undefined, header: FunctionHeader, index: number): string {
  if (!stored) return '';
  const byName = stored.headers.find((h) => h.name.toLowerCase() === header.name.toLowerCase());
  return (byName ?? stored.headers[index])?.value ?? '';
}

/** The document to store: every new header value sealed, every mask replaced by the stored sealed value. */
export function sealFunctionHeaders(deps: AppDeps, companyId: string, doc: AgentDoc, stored?: AgentDoc): AgentDoc {
  const functions = doc.editor.functions ?? [];
  if (!functions.some(hasHeaders)) return doc;
  return {
    ...doc,
    editor: {
      ...doc.editor,
      functions: functions.map((fn) => {
        if (!hasHeaders(fn)) return fn;
        const before = storedFunction(stored, fn);
        return {
          ...fn,
          headers: fn.headers.map((h, i) => ({
            name: h.name,
            value:
              h.value === SECRET_MASK
                ? storedHeaderValue(before, h, i)
                : sealHeaderValue(deps.secrets.masterKey, companyId, h.value),
          })),
        };
      }),
    },
  };
}

/** The function with every stored header value answered as the mask (an empty one stays empty). */
export function maskFunction<F extends AgentFunction>(fn: F): F {
  if (!hasHeaders(fn)) return fn;
  return { ...fn, headers: fn.headers.map((h) => ({ name: h.name, value: h.value === '' ? '' : SECRET_MASK })) };
}

/** The agent as it is answered: header values masked. */
export function maskAgent(agent: Agent): Agent {
  const functions = agent.editor.functions;
  if (!functions?.some(hasHeaders)) return agent;
  return { ...agent, editor: { ...agent.editor, functions: functions.map(maskFunction) } };
}

/** The function `functionId` of a stored agent document, with headers. */
export function functionWithHeaders(doc: AgentDoc, functionId: number | undefined): WithHeaders | undefined {
  if (functionId === undefined) return undefined;
  return (doc.editor.functions ?? []).filter(hasHeaders).find((f) => f.id === functionId);
}
