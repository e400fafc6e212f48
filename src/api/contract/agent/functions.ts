/**
 * The agent's functions: what the LLM may call during a conversation. One schema per type (a valibot
 * variant on `type`), shared by the editor and the server. The server's tool registry
 * (server/voice/tools/registry.ts) runs each type; docs/call-runtime.md lists them with the request
 * Parley sends.
 *
 * | type                          | what it does                                                     | at most |
 * |-------------------------------|------------------------------------------------------------------|---------|
 * | end_call                      | hangs up once the goodbye is heard                               | once    |
 * | transfer                      | moves a phone caller to `number` (cold, or warm with a summary)  | many    |
 * | custom                        | calls the company's own HTTP API, signed like webhooks           | many    |
 * | mcp                           | offers a Streamable HTTP MCP server's tools (`<name>__<tool>`)   | many    |
 * | check_availability_cal        | free slots of a Cal.com event type (API v2 /v2/slots)            | many    |
 * | book_appointment_cal          | books a Cal.com event type for the caller (/v2/bookings)         | many    |
 * | check_availability_calendly   | available times of a Calendly event type                         | many    |
 * | book_appointment_calendly     | books a Calendly event type for the caller (/invitees)           | many    |
 * | web_search                    | a question answered by Perplexity (sonar) with citations         | once    |
 * | send_sms                      | a text message from the call's number (Twilio / Plivo)           | many    |
 * | send_whatsapp                 | a WhatsApp template message to the caller (Cloud API)            | many    |
 * | press_digit                   | plays DTMF tones into a phone call (IVR navigation)              | once    |
 *
 * Header values (`headers[].value`) are secrets: the server stores them encrypted and answers them as
 * SECRET_MASK; a save that sends the mask back keeps the stored value.
 */
import * as v from 'valibot';
import { isWebUrl, text } from './fields';
import { AGENT_MESSAGES } from './messages';

export const FUNCTION_TYPES = [
  'end_call',
  'transfer',
  'custom',
  'mcp',
  'check_availability_cal',
  'book_appointment_cal',
  'check_availability_calendly',
  'book_appointment_calendly',
  'web_search',
  'send_sms',
  'send_whatsapp',
  'press_digit',
] as const;
export type FunctionType = (typeof FUNCTION_TYPES)[number];

/** Types an agent may have at most once; every other type as many times as wanted, each with its own name. */
export const SINGLE_FUNCTION_TYPES: readonly FunctionType[] = ['end_call', 'web_search', 'press_digit'];

/** The editor's names of the types ('Add function' menu, list). */
export const FUNCTION_LABELS: Record<FunctionType, string> = {
  end_call: 'End Call',
  transfer: 'Transfer Call',
  custom: 'Custom Function',
  mcp: 'MCP Server',
  check_availability_cal: 'Check Availability (Cal.com)',
  book_appointment_cal: 'Book Appointment (Cal.com)',
  check_availability_calendly: 'Check Availability (Calendly)',
  book_appointment_calendly: 'Book Appointment (Calendly)',
  web_search: 'Web Search (Perplexity)',
  send_sms: 'Send SMS',
  send_whatsapp: 'Send WhatsApp Message',
  press_digit: 'Press Digits',
};

/** The provider card a type needs connected (Providers page), if any. */
export const FUNCTION_PROVIDER: Partial<Record<FunctionType, string>> = {
  check_availability_cal: 'calcom',
  book_appointment_cal: 'calcom',
  check_availability_calendly: 'calendly',
  book_appointment_calendly: 'calendly',
  web_search: 'perplexity',
  send_whatsapp: 'whatsapp',
};

export const FUNCTION_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
export const TRANSFER_MODES = ['cold', 'warm'] as const;
export const TOOL_TIMEOUT_MS = { min: 1_000, max: 30_000, default: 8_000 } as const;
/** A tool's answer given to the LLM is cut at this many bytes (and the cut said). */
export const TOOL_RESULT_MAX_BYTES = 16 * 1024;
/** How a stored secret (a header's value) is answered to the browser. */
export const SECRET_MASK = '••••••••';

export const FUNCTION_MESSAGES = {
  nameRequired: AGENT_MESSAGES.functionNameRequired,
  namePattern: 'Function name: letters, digits, _ and - only, at most 64 characters',
  nameUnique: 'Each function needs its own name',
  typeOnce: AGENT_MESSAGES.functionTypeOnce,
  urlInvalid: 'Enter a valid http(s) URL',
  timeout: `Timeout must be between ${TOOL_TIMEOUT_MS.min} and ${TOOL_TIMEOUT_MS.max} ms`,
  parameters: 'Parameters must be a JSON Schema object (type "object")',
  eventTypeId: 'Enter the Cal.com event type ID',
  timezone: 'Enter an IANA time zone, like America/New_York',
  eventTypeUri: 'Enter the Calendly event type URI',
  templateName: 'Enter the WhatsApp template name',
  language: 'Enter the template language code, like en_US',
  headerName: 'Header names: letters, digits and - only',
} as const;

const name = v.pipe(
  v.optional(v.string(FUNCTION_MESSAGES.nameRequired), ''),
  v.trim(),
  v.nonEmpty(FUNCTION_MESSAGES.nameRequired),
  v.regex(FUNCTION_NAME_PATTERN, FUNCTION_MESSAGES.namePattern),
);
const webUrl = v.pipe(
  v.string(FUNCTION_MESSAGES.urlInvalid),
  v.trim(),
  v.maxLength(2048),
  v.check(isWebUrl, FUNCTION_MESSAGES.urlInvalid),
);
const timeoutMs = v.optional(
  v.pipe(
    v.number(FUNCTION_MESSAGES.timeout),
    v.integer(FUNCTION_MESSAGES.timeout),
    v.minValue(TOOL_TIMEOUT_MS.min, FUNCTION_MESSAGES.timeout),
    v.maxValue(TOOL_TIMEOUT_MS.max, FUNCTION_MESSAGES.timeout),
  ),
  TOOL_TIMEOUT_MS.default,
);
/** the sentence said when the function has not answered within 500 ms */
const speakDuring = v.optional(text(500), '');
const e164 = v.pipe(v.string(), v.regex(/^\+[1-9]\d{7,14}$/, 'Transfer number must be in E.164 format, like +14155550123'));

export const FunctionHeaderSchema = v.object({
  name: v.pipe(v.string(), v.trim(), v.regex(/^[A-Za-z0-9-]{1,100}$/, FUNCTION_MESSAGES.headerName)),
  /** a secret: answered as SECRET_MASK */
  value: text(4000),
});
export type FunctionHeader = v.InferOutput<typeof FunctionHeaderSchema>;
const headers = v.optional(v.pipe(v.array(FunctionHeaderSchema), v.maxLength(20)), () => []);

/** A JSON Schema object of a function's arguments (checked as JSON Schema by the server on save). */
export const ParametersSchema = v.pipe(
  v.record(v.string(), v.unknown()),
  v.check((s) => s.type === 'object', FUNCTION_MESSAGES.parameters),
  v.check((s) => JSON.stringify(s).length <= 20_000, FUNCTION_MESSAGES.parameters),
);
export const EMPTY_PARAMETERS = { type: 'object', properties: {}, required: [] } as const;

const base = {
  id: v.number(),
  name,
  description: v.optional(text(2000), ''),
};
const runs = { speak_during: speakDuring, timeout_ms: timeoutMs };
/** A Cal.com function's event type and the time zone its times are said in. */
const calEventType = {
  event_type_id: v.pipe(
    v.number(FUNCTION_MESSAGES.eventTypeId),
    v.integer(FUNCTION_MESSAGES.eventTypeId),
    v.minValue(1, FUNCTION_MESSAGES.eventTypeId),
  ),
  timezone: v.pipe(v.string(FUNCTION_MESSAGES.timezone), v.trim(), v.nonEmpty(FUNCTION_MESSAGES.timezone), v.maxLength(64)),
};

export const AgentFunctionSchema = v.variant(
  'type',
  [
    v.object({ ...base, type: v.literal('end_call') }),
    v.object({
      ...base,
      ...runs,
      type: v.literal('transfer'),
      /** the number the caller is moved to (E.164), on phone calls */
      number: v.optional(v.union([v.literal(''), e164]), ''),
      mode: v.optional(v.picklist(TRANSFER_MODES), 'cold'),
    }),
    v.object({
      ...base,
      ...runs,
      type: v.literal('custom'),
      url: webUrl,
      method: v.optional(v.picklist(HTTP_METHODS), 'POST'),
      headers,
      parameters: v.optional(ParametersSchema, () => ({ ...EMPTY_PARAMETERS, properties: {}, required: [] })),
    }),
    v.object({
      ...base,
      ...runs,
      type: v.literal('mcp'),
      url: webUrl,
      headers,
      /** tool names offered to the LLM; empty = all the server lists */
      allowed_tools: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(128))), v.maxLength(200)), () => []),
    }),
    v.object({
      ...base,
      ...runs,
      type: v.literal('check_availability_cal'),
      ...calEventType,
    }),
    v.object({
      ...base,
      ...runs,
      type: v.literal('book_appointment_cal'),
      ...calEventType,
    }),
    v.object({
      ...base,
      ...runs,
      type: v.literal('check_availability_calendly'),
      event_type: v.pipe(webUrl, v.nonEmpty(FUNCTION_MESSAGES.eventTypeUri)),
    }),
    v.object({
      ...base,
      ...runs,
      type: v.literal('book_appointment_calendly'),
      event_type: v.pipe(webUrl, v.nonEmpty(FUNCTION_MESSAGES.eventTypeUri)),
    }),
    v.object({ ...base, ...runs, type: v.literal('web_search') }),
    v.object({
      ...base,
      ...runs,
      type: v.literal('send_sms'),
      /** fixed text with {{variables}}; empty = the model writes the text */
      template: v.optional(text(1600), ''),
    }),
    v.object({
      ...base,
      ...runs,
      type: v.literal('send_whatsapp'),
      template_name: v.pipe(
        v.string(FUNCTION_MESSAGES.templateName),
        v.trim(),
        v.regex(/^[a-z0-9_]{1,512}$/, FUNCTION_MESSAGES.templateName),
      ),
      language: v.optional(
        v.pipe(v.string(), v.trim(), v.regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, FUNCTION_MESSAGES.language)),
        'en_US',
      ),
    }),
    v.object({ ...base, ...runs, type: v.literal('press_digit') }),
  ],
  'Unknown function type',
);
export type AgentFunction = v.InferOutput<typeof AgentFunctionSchema>;
export type AgentFunctionOf<T extends FunctionType> = Extract<AgentFunction, { type: T }>;

/** The list of an agent's functions: single-use types once, names unique. */
export const AgentFunctionsSchema = v.pipe(
  v.array(AgentFunctionSchema),
  v.maxLength(50),
  v.check((fs) => SINGLE_FUNCTION_TYPES.every((t) => fs.filter((f) => f.type === t).length <= 1), FUNCTION_MESSAGES.typeOnce),
  v.check((fs) => new Set(fs.map((f) => f.name)).size === fs.length, FUNCTION_MESSAGES.nameUnique),
);

/** Keypad input from the caller (agent settings): digits are collected until '#', this many digits, or this much silence. */
export const DTMF_DEFAULTS = { dtmf_max_digits: 0, dtmf_timeout_ms: 3_000 } as const;
