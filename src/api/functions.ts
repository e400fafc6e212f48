/**
 * Typed calls the editor's Functions section makes: 'Load tools' of an MCP server function
 * (POST /agent/mcp-tools). The server connects to the MCP server with the given headers (a header value
 * sent back as SECRET_MASK is taken from the stored agent, found by agent_id + function_id), lists its
 * tools and answers `{tools: [{name, description, input_schema}]}`. Never cached: the server's list may
 * change between two clicks.
 */

import { type ApiClient, api, type CallOptions } from './client';
import { type McpTool, type McpToolsBody, type McpToolsResponse, McpToolsResponseSchema } from './contract/agent/mcp-tools';
import { API_ERROR_MESSAGES, isApiError } from './errors';

export const MCP_TOOLS_PATH = '/agent/mcp-tools';

export type { McpTool, McpToolsBody, McpToolsResponse };

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

const LOAD_FAILED = 'Could not load the tools';

/** The words shown when 'Load tools' fails: the server's message when it gave one, else what happened. */
export function loadToolsErrorText(error: unknown): string {
  if (isApiError(error)) {
    // the server's own failure already says 'Could not load the tools: ...'; other refusals are bare
    if (error.serverMessage)
      return error.serverMessage.startsWith(LOAD_FAILED) ? error.serverMessage : `${LOAD_FAILED}: ${error.serverMessage}`;
    if (error.kind === 'http') return `Could not load the tools (the server answered ${error.status ?? 'an error'}).`;
    return `Could not load the tools. ${API_ERROR_MESSAGES[error.kind]}`;
  }
  return 'Could not load the tools. Please try again.';
}
