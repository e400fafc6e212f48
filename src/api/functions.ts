/**
 * Typed calls the editor's Functions section makes: 'Load tools' of an MCP server function
 * (POST /agent/mcp-tools). The server connects to the MCP server with the given headers (a header value
 * sent back as SECRET_MASK is taken from the stored agent, found by agent_id + function_id), lists its
 * tools and answers `{tools: [{name, description, input_schema}]}`. Never cached: the server's list may
 * change between two clicks.
 */

import * as v from 'valibot';
import { type ApiClient, api, type CallOptions } from './client';
import type { FunctionHeader } from './contract/agent/functions';
import { API_ERROR_MESSAGES, isApiError } from './errors';

export const MCP_TOOLS_PATH = '/agent/mcp-tools';

export interface McpToolsBody {
  url: string;
  headers: FunctionHeader[];
  /** the saved agent, so masked header values can be read from it */
  agent_id?: string;
  /** the saved function whose masked header values are meant */
  function_id?: number;
}

/** One tool as the MCP server lists it (tools/list), as the endpoint passes it on. */
export const McpToolSchema = v.object({
  name: v.pipe(v.string(), v.maxLength(256)),
  description: v.optional(v.nullable(v.string()), ''),
  input_schema: v.optional(v.nullable(v.record(v.string(), v.unknown())), null),
});
export type McpTool = v.InferOutput<typeof McpToolSchema>;

export const McpToolsResponseSchema = v.object({ tools: v.array(McpToolSchema) });
export type McpToolsResponse = v.InferOutput<typeof McpToolsResponseSchema>;

export function functionsApi(client: ApiClient) {
  return {
    /** POST /agent/mcp-tools {url, headers, agent_id?, function_id?}: the tools an MCP server offers */
    mcpTools: (body: McpToolsBody, options?: CallOptions) =>
      client.post(
        MCP_TOOLS_PATH,
        McpToolsResponseSchema,
        {
          url: body.url,
          headers: body.headers.map((h) => ({ name: h.name, value: h.value })),
          ...(body.agent_id ? { agent_id: body.agent_id } : {}),
          ...(body.function_id !== undefined ? { function_id: body.function_id } : {}),
        },
        { notify: false, ...options },
      ),
  };
}

export type FunctionsApi = ReturnType<typeof functionsApi>;
export const functionsClient = functionsApi(api);

/** The words shown when 'Load tools' fails: the server's message when it gave one, else what happened. */
export function loadToolsErrorText(error: unknown): string {
  if (isApiError(error)) {
    if (error.serverMessage) return `Could not load the tools: ${error.serverMessage}`;
    if (error.kind === 'http') return `Could not load the tools (the server answered ${error.status ?? 'an error'}).`;
    return `Could not load the tools. ${API_ERROR_MESSAGES[error.kind]}`;
  }
  return 'Could not load the tools. Please try again.';
}
