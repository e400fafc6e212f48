/**
 * The tool registry: every function type the engine runs as a tool (types.ts), keyed by type. end_call
 * and transfer are not here: the engine itself ends or moves the call (settings.ts agentTools).
 * A new function type is a schema in src/api/contract/agent/functions.ts, a folder here with its ToolKind,
 * and one line below.
 */
import type { FunctionType } from '@contract/agent/functions.js';
import { bookAppointmentCal, checkAvailabilityCal } from './calcom/index.js';
import { bookAppointmentCalendly, checkAvailabilityCalendly } from './calendly/index.js';
import { customTool } from './custom/index.js';
import { mcpTool } from './mcp/index.js';
import { webSearch } from './perplexity/index.js';
import { pressDigitTool } from './press-digit/index.js';
import { smsTool } from './sms/index.js';
import type { ToolKind } from './types.js';
import { whatsappTool } from './whatsapp/index.js';

type RunnableType = Exclude<FunctionType, 'end_call' | 'transfer'>;

export const TOOL_KINDS: Partial<{ [T in RunnableType]: ToolKind<T> }> = {
  custom: customTool,
  mcp: mcpTool,
  check_availability_cal: checkAvailabilityCal,
  book_appointment_cal: bookAppointmentCal,
  check_availability_calendly: checkAvailabilityCalendly,
  book_appointment_calendly: bookAppointmentCalendly,
  web_search: webSearch,
  send_sms: smsTool,
  send_whatsapp: whatsappTool,
  press_digit: pressDigitTool,
};

export function toolKindOf<T extends RunnableType>(type: T): ToolKind<T> | undefined {
  return TOOL_KINDS[type] as ToolKind<T> | undefined;
}
