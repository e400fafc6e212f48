/**
 * The tool registry: every function type the engine runs as a tool (types.ts), keyed by type. end_call
 * and transfer are not here: the engine itself ends or moves the call (settings.ts agentTools).
 * A new function type is a schema in src/api/contract/agent/functions.ts, a folder here with its ToolKind,
 * and one line below.
 */
import type { FunctionType } from '@contract/agent/functions.js';
import { customTool } from './custom/index.js';
import { mcpTool } from './mcp/index.js';
import type { ToolKind } from './types.js';

type RunnableType = Exclude<FunctionType, 'end_call' | 'transfer'>;

export const TOOL_KINDS: Partial<{ [T in RunnableType]: ToolKind<T> }> = {
  custom: customTool,
  mcp: mcpTool,
  // check_availability_cal, book_appointment_cal: (./calcom)
  // check_availability_calendly, book_appointment_calendly: (./calendly)
  // web_search: (./perplexity)
  // send_sms: (./sms), send_whatsapp: (./whatsapp)
  // press_digit: (./press-digit)
};

export function toolKindOf<T extends RunnableType>(type: T): ToolKind<T> | undefined {
  return TOOL_KINDS[type] as ToolKind<T> | undefined;
}
