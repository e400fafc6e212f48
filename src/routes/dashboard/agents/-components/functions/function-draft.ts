/**
 * The function dialog's form: a draft of one function as the user types it (text for every input), turned
 * into an AgentFunction with the contract's schema (AgentFunctionSchema) before it joins the list, and back.
 * Errors are keyed by the draft's field ('name', 'url', 'headers.0.name', 'params.1.name', 'parameters', ...)
 * so each shows at its input.
 */
import * as v from 'valibot';
import {
  type AgentFunction,
  AgentFunctionSchema,
  FUNCTION_LABELS,
  FUNCTION_MESSAGES,
  FUNCTION_NAME_PATTERN,
  type FunctionHeader,
  type FunctionType,
  type HttpMethod,
  SINGLE_FUNCTION_TYPES,
  TOOL_TIMEOUT_MS,
  type TRANSFER_MODES,
} from '../../../../../api/contract/agent/functions';

export const PARAMETER_TYPES = ['string', 'number', 'integer', 'boolean'] as const;
export type ParameterType = (typeof PARAMETER_TYPES)[number];

export const PARAMETER_MESSAGES = {
  nameRequired: 'Parameter name is required',
  namePattern: 'Parameter names: letters, digits, _ and - only, at most 64 characters',
  nameUnique: 'Each parameter needs its own name',
  /** JSON the list of properties cannot show (nested objects, enums, ...): it stays in the JSON editor */
  notAList: 'These parameters use JSON Schema features the list cannot show: edit them as JSON.',
} as const;

export interface ParameterRow {
  name: string;
  type: ParameterType;
  description: string;
  required: boolean;
}

export interface FunctionDraft {
  /** null: a function being added */
  id: number | null;
  type: FunctionType;
  name: string;
  description: string;
  speak_during: string;
  timeout_ms: string;
  number: string;
  mode: (typeof TRANSFER_MODES)[number];
  url: string;
  method: HttpMethod;
  headers: FunctionHeader[];
  /** how the parameters are edited: a list of typed properties or raw JSON */
  paramsMode: 'list' | 'json';
  params: ParameterRow[];
  paramsJson: string;
  allowed_tools: string[];
  event_type_id: string;
  timezone: string;
  event_type: string;
  template: string;
  template_name: string;
  language: string;
}

export type DraftErrors = Record<string, string>;

/** Types that run (and so have 'Speak during' and a timeout); end_call just hangs up. */
export const runs = (type: FunctionType) => type !== 'end_call';

const isCal = (t: FunctionType) => t === 'check_availability_cal' || t === 'book_appointment_cal';
const isCalendly = (t: FunctionType) => t === 'check_availability_calendly' || t === 'book_appointment_calendly';

/** The browser's own time zone, the default of a new Cal.com function. */
export function localTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/** Whether the runtime knows `tz` as an IANA time zone. */
export function isTimeZone(tz: string): boolean {
  if (!tz.trim()) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz.trim() });
    return true;
  } catch {
    return false;
  }
}

/** Every IANA time zone the browser knows (for the time zone combobox). */
export function timeZones(): string[] {
  const intl = Intl as { supportedValuesOf?: (key: string) => string[] };
  try {
    const zones = intl.supportedValuesOf?.('timeZone') ?? [];
    return zones.includes('UTC') ? zones : [...zones, 'UTC'];
  } catch {
    return ['UTC'];
  }
}

/** A name for a new function of `type` that no other function has (e.g. custom, custom_2). */
export function freshName(type: FunctionType, taken: readonly AgentFunction[]): string {
  const names = new Set(taken.map((f) => f.name));
  if (!names.has(type)) return type;
  for (let i = 2; ; i++) if (!names.has(`${type}_${i}`)) return `${type}_${i}`;
}

/** Types the 'Add function' menu cannot add again (single-use types already present). */
export const isTypeTaken = (type: FunctionType, functions: readonly AgentFunction[]) =>
  SINGLE_FUNCTION_TYPES.includes(type) && functions.some((f) => f.type === type);

// ---------------------------------------------------------------------------------------------
// Parameters: a list of typed properties <-> a JSON Schema object

/** The JSON Schema object of a list of properties. */
export function rowsToSchema(rows: readonly ParameterRow[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const r of rows) {
    properties[r.name.trim()] = r.description.trim() ? { type: r.type, description: r.description.trim() } : { type: r.type };
  }
  return { type: 'object', properties, required: rows.filter((r) => r.required).map((r) => r.name.trim()) };
}

const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/**
 * The list of properties of a JSON Schema object, or null when the schema says more than the list can
 * show (nested objects, arrays, enums, other keywords): editing it as a list would lose that.
 */
export function schemaToRows(schema: unknown): ParameterRow[] | null {
  if (!isRecord(schema) || schema.type !== 'object') return null;
  if (Object.keys(schema).some((k) => !['type', 'properties', 'required', 'additionalProperties'].includes(k))) return null;
  const properties = schema.properties ?? {};
  const required = schema.required ?? [];
  if (!isRecord(properties) || !Array.isArray(required) || !required.every((r) => typeof r === 'string')) return null;
  const rows: ParameterRow[] = [];
  for (const [name, prop] of Object.entries(properties)) {
    if (!isRecord(prop) || !(PARAMETER_TYPES as readonly unknown[]).includes(prop.type)) return null;
    if (Object.keys(prop).some((k) => k !== 'type' && k !== 'description')) return null;
    if (prop.description !== undefined && typeof prop.description !== 'string') return null;
    rows.push({ name, type: prop.type as ParameterType, description: prop.description ?? '', required: required.includes(name) });
  }
  if (required.some((r) => !(r in properties))) return null;
  return rows;
}

/** The parameters of the draft as a JSON Schema value, or the errors keyed to the inputs that caused them. */
function draftParameters(d: FunctionDraft): { value: unknown } | { errors: DraftErrors } {
  if (d.paramsMode === 'json') {
    try {
      const parsed: unknown = JSON.parse(d.paramsJson);
      if (!isRecord(parsed) || parsed.type !== 'object') return { errors: { parameters: FUNCTION_MESSAGES.parameters } };
      return { value: parsed };
    } catch {
      return { errors: { parameters: FUNCTION_MESSAGES.parameters } };
    }
  }
  const errors: DraftErrors = {};
  const seen = new Set<string>();
  d.params.forEach((r, i) => {
    const name = r.name.trim();
    if (!name) errors[`params.${i}.name`] = PARAMETER_MESSAGES.nameRequired;
    else if (!FUNCTION_NAME_PATTERN.test(name)) errors[`params.${i}.name`] = PARAMETER_MESSAGES.namePattern;
    else if (seen.has(name)) errors[`params.${i}.name`] = PARAMETER_MESSAGES.nameUnique;
    seen.add(name);
  });
  return Object.keys(errors).length > 0 ? { errors } : { value: rowsToSchema(d.params) };
}

/** Switches the parameters editor between list and JSON; null (with the reason) when the JSON cannot be a list. */
export function switchParamsMode(d: FunctionDraft, mode: 'list' | 'json'): { draft: FunctionDraft } | { error: string } {
  if (mode === d.paramsMode) return { draft: d };
  if (mode === 'json')
    return { draft: { ...d, paramsMode: 'json', paramsJson: JSON.stringify(rowsToSchema(d.params), null, 2) } };
  let parsed: unknown;
  try {
    parsed = JSON.parse(d.paramsJson);
  } catch {
    return { error: FUNCTION_MESSAGES.parameters };
  }
  if (!isRecord(parsed) || parsed.type !== 'object') return { error: FUNCTION_MESSAGES.parameters };
  const rows = schemaToRows(parsed);
  return rows ? { draft: { ...d, paramsMode: 'list', params: rows } } : { error: PARAMETER_MESSAGES.notAList };
}

// ---------------------------------------------------------------------------------------------
// Draft <-> function

/** The draft of a new function of `type`. */
export function newDraft(type: FunctionType, functions: readonly AgentFunction[]): FunctionDraft {
  return {
    id: null,
    type,
    name: freshName(type, functions),
    description: '',
    speak_during: '',
    timeout_ms: String(TOOL_TIMEOUT_MS.default),
    number: '',
    mode: 'cold',
    url: '',
    method: 'POST',
    headers: [],
    paramsMode: 'list',
    params: [],
    paramsJson: JSON.stringify({ type: 'object', properties: {}, required: [] }, null, 2),
    allowed_tools: [],
    event_type_id: '',
    timezone: isCal(type) ? localTimeZone() : '',
    event_type: '',
    template: '',
    template_name: '',
    language: 'en_US',
  };
}

/** The draft of a function of the list, to edit it. */
export function draftOf(f: AgentFunction): FunctionDraft {
  const d = newDraft(f.type, []);
  const out: FunctionDraft = { ...d, id: f.id, name: f.name, description: f.description };
  if ('timeout_ms' in f) out.timeout_ms = String(f.timeout_ms);
  if ('speak_during' in f) out.speak_during = f.speak_during;
  switch (f.type) {
    case 'transfer':
      return { ...out, number: f.number, mode: f.mode };
    case 'custom': {
      const rows = schemaToRows(f.parameters);
      return {
        ...out,
        url: f.url,
        method: f.method,
        headers: f.headers.map((h) => ({ ...h })),
        paramsMode: rows ? 'list' : 'json',
        params: rows ?? [],
        paramsJson: JSON.stringify(f.parameters, null, 2),
      };
    }
    case 'mcp':
      return { ...out, url: f.url, headers: f.headers.map((h) => ({ ...h })), allowed_tools: [...f.allowed_tools] };
    case 'check_availability_cal':
    case 'book_appointment_cal':
      return { ...out, event_type_id: String(f.event_type_id), timezone: f.timezone };
    case 'check_availability_calendly':
    case 'book_appointment_calendly':
      return { ...out, event_type: f.event_type };
    case 'send_sms':
      return { ...out, template: f.template };
    case 'send_whatsapp':
      return { ...out, template_name: f.template_name, language: f.language };
    default:
      return out;
  }
}

/** A number typed in an input: '' is undefined (the schema's default or its 'required' message), junk is NaN. */
const numberOf = (s: string): number | undefined => (s.trim() === '' ? undefined : Number(s.trim()));

/** Indexes of the header rows that say something (a row left blank is dropped, not an error). */
const keptHeaders = (d: FunctionDraft) => d.headers.flatMap((h, i) => (h.name.trim() || h.value ? [i] : []));

/** The object the contract's schema checks, with the fields of the draft's type only. */
function inputOf(d: FunctionDraft, id: number, parameters: unknown): Record<string, unknown> {
  const input: Record<string, unknown> = { id, type: d.type, name: d.name.trim(), description: d.description.trim() };
  if (runs(d.type)) {
    input.speak_during = d.speak_during.trim();
    input.timeout_ms = numberOf(d.timeout_ms);
  }
  const headers = keptHeaders(d).map((i) => ({ name: d.headers[i]?.name.trim() ?? '', value: d.headers[i]?.value ?? '' }));
  if (d.type === 'transfer') Object.assign(input, { number: d.number.trim(), mode: d.mode });
  if (d.type === 'custom') Object.assign(input, { url: d.url.trim(), method: d.method, headers, parameters });
  if (d.type === 'mcp') Object.assign(input, { url: d.url.trim(), headers, allowed_tools: d.allowed_tools });
  if (isCal(d.type)) Object.assign(input, { event_type_id: numberOf(d.event_type_id), timezone: d.timezone.trim() });
  if (isCalendly(d.type)) input.event_type = d.event_type.trim();
  if (d.type === 'send_sms') input.template = d.template.trim();
  if (d.type === 'send_whatsapp') Object.assign(input, { template_name: d.template_name.trim(), language: d.language.trim() });
  return input;
}

/** The key of the draft's input a schema issue belongs to (headers.0.value, timezone, ...). */
function errorKey(issue: v.BaseIssue<unknown>, d: FunctionDraft): string {
  const keys = (issue.path ?? []).map((p) => String(p.key));
  // a header's index among the rows sent -> its row on screen
  if (keys[0] === 'headers' && keys[1] !== undefined) keys[1] = String(keptHeaders(d)[Number(keys[1])] ?? keys[1]);
  return keys.length > 0 ? keys.join('.') : 'form';
}

/**
 * The function the draft describes, checked with the contract's schema and against the other functions of
 * the agent (unique name, single-use types); or the errors keyed by input.
 */
export function functionOf(
  d: FunctionDraft,
  others: readonly AgentFunction[],
): { ok: true; value: AgentFunction } | { ok: false; errors: DraftErrors } {
  const errors: DraftErrors = {};
  let parameters: unknown;
  if (d.type === 'custom') {
    const p = draftParameters(d);
    if ('errors' in p) Object.assign(errors, p.errors);
    else parameters = p.value;
  }
  const id = d.id ?? others.reduce((max, f) => Math.max(max, f.id), 0) + 1;
  const parsed = v.safeParse(AgentFunctionSchema, inputOf(d, id, parameters));
  if (!parsed.success) {
    for (const issue of parsed.issues) {
      const key = errorKey(issue, d);
      // the parameters' own errors (from the list or the JSON) already name the input
      if (key === 'parameters' && (errors.parameters || Object.keys(errors).some((k) => k.startsWith('params.')))) continue;
      errors[key] ??= issue.message;
    }
  }
  const name = d.name.trim();
  if (!errors.name && others.some((f) => f.name === name)) errors.name = FUNCTION_MESSAGES.nameUnique;
  if (isCal(d.type) && !errors.timezone && !isTimeZone(d.timezone)) errors.timezone = FUNCTION_MESSAGES.timezone;
  if (d.id === null && isTypeTaken(d.type, others)) errors.form = FUNCTION_MESSAGES.typeOnce;
  if (Object.keys(errors).length > 0 || !parsed.success) return { ok: false, errors };
  return { ok: true, value: parsed.output };
}

/** The short line under a function's name in the list (e.g. 'POST https://api.clinic.example/slots'). */
export function summaryOf(f: AgentFunction): string {
  switch (f.type) {
    case 'transfer':
      return [f.number, f.mode === 'warm' ? 'Warm' : 'Cold'].filter(Boolean).join(' · ');
    case 'custom':
      return `${f.method} ${f.url}`;
    case 'mcp':
      return f.allowed_tools.length > 0 ? `${f.url} · ${f.allowed_tools.join(', ')}` : f.url;
    case 'check_availability_cal':
    case 'book_appointment_cal':
      return `Event type ${f.event_type_id} · ${f.timezone}`;
    case 'check_availability_calendly':
    case 'book_appointment_calendly':
      return f.event_type;
    case 'send_sms':
      return f.template ? `Template: ${f.template}` : 'The agent writes the text';
    case 'send_whatsapp':
      return `${f.template_name} (${f.language})`;
    default:
      return f.description;
  }
}

/** What the list item's meta line says: the type's label and the summary. */
export const metaOf = (f: AgentFunction) => [FUNCTION_LABELS[f.type], summaryOf(f)].filter(Boolean).join(' · ');
