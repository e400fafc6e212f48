/**
 * The editor's 'Load tools' for an MCP server function: `POST /api/v1/agent/mcp-tools` asks the server at
 * `url` (with the function's headers) what tools it offers, and answers `{success: true, tools: [{name,
 * description, input_schema}]}`.
 *
 * A header value the editor only has as SECRET_MASK (a saved one) is taken from the saved agent: send
 * `agent_id` and the function's `function_id`. A private or loopback URL is refused (400) unless the server
 * runs with ALLOW_PRIVATE_TOOL_URLS=true; an MCP server that cannot be reached or refuses answers 502 with
 * the reason in `msg`.
 */
import * as v from 'valibot';
import { isWebUrl } from './fields';
import { FUNCTION_MESSAGES, FunctionHeaderSchema } from './functions';

export const McpToolsBodySchema = v.object({
  url: v.pipe(
    v.string(FUNCTION_MESSAGES.urlInvalid),
    v.trim(),
    v.maxLength(2048),
    v.check(isWebUrl, FUNCTION_MESSAGES.urlInvalid),
  ),
  headers: v.optional(v.pipe(v.array(FunctionHeaderSchema), v.maxLength(20)), () => []),
  /** the saved agent whose stored header values stand for masked ones */
  agent_id: v.optional(v.pipe(v.string(), v.maxLength(64))),
  /** the function (its `id`) of that agent the headers belong to */
  function_id: v.optional(v.number()),
});
export type McpToolsBody = v.InferOutput<typeof McpToolsBodySchema>;

export const McpToolSchema = v.object({
  name: v.string(),
  description: v.string(),
  input_schema: v.record(v.string(), v.unknown()),
});
export type McpTool = v.InferOutput<typeof McpToolSchema>;

export const McpToolsResponseSchema = v.object({ success: v.literal(true), tools: v.array(McpToolSchema) });
export type McpToolsResponse = v.InferOutput<typeof McpToolsResponseSchema>;

export const MCP_TOOLS_MESSAGES = {
  headerAgain: (name: string) => `Enter the value of the ${name} header again`,
  unreachable: (reason: string) => `Could not load the tools: ${reason}`,
} as const;
