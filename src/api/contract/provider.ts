/**
 * Contract of the provider calls. Imported by the client AND the server.
 *
 * - `GET /user/providers?page&limit&search`: the catalogue below (in its order), filtered by `search`
 *   (case-insensitive, on the slug and the label) and paged (`page` 1-based). `_id` is the connection id
 *   when the company has connected the provider, otherwise the provider's slug; `company` is the company id
 *   when connected, else null. `keys` lists the credential field names (never values).
 * - `GET /provider?name=`: connection status of every provider (`name` empty or absent) or of one.
 * - `GET /provider/fields?name=`: the fields of one provider with `value` '' when not connected, else the
 *   MASK of the stored value (never the value). Every stored value is masked, identifiers included.
 * - `POST /provider/values {name, keys}`: connects; every field required (but the `optional` ones), unknown
 *   or repeated field names answer 400; a provider that is already connected answers 409 (use PUT).
 * - `PUT /provider/:id {keys}`: updates the connection `:id`; a field omitted, or sent with exactly the mask
 *   that `GET /provider/fields` returned, keeps its stored value; an empty value answers 400, except for an
 *   optional field, where it removes the stored value.
 * - A `url` field (OpenAI's Base URL) is refused with 400 when it is not an http(s) URL, or is or resolves to
 *   a loopback, private or link-local address, unless the server runs with ALLOW_PRIVATE_PROVIDER_URLS=true.
 * - Connect and update try the credentials with the provider before saving: a refused key answers 400 with
 *   the provider's reason and `errors` naming its field (nothing is saved); an unreachable provider saves
 *   with `warning` in the answer (ProviderSaveResponseSchema).
 * - `DELETE /provider/disconnect {name}`: forgets the connection and its secrets; 404 when not connected.
 */
import * as v from 'valibot';
import { PROVIDER_DEFAULT_PAGE_SIZE, PROVIDER_PAGE_SIZES } from './provider-pages';

// ---------------------------------------------------------------------------------------------
// Catalogue

export interface ProviderField {
  /** the field's name: shown as the input's label and sent back in `keys[].name` */
  name: string;
  /** true for credentials (password input); false for plain identifiers (still masked once stored) */
  secret: boolean;
  /**
   * May be left empty (not part of 'Missing information'): on connect nothing is stored; on update an
   * empty value removes the stored one. Absent = required, as the spec has every credential.
   */
  optional?: boolean;
  /**
   * An http(s) URL the server will connect to: normalised when saved, and refused when it is, or resolves
   * to, a loopback, private or link-local address (unless the server allows private provider URLs).
   */
  url?: boolean;
}

/**
 * What a provider serves: speech-to-text, a chat LLM, text-to-speech, speech-to-speech ('realtime'), a tool
 * an agent calls, or a phone carrier. The server's provider registry (server/voice/providers/registry.ts)
 * runs the first four; carriers are server/carriers'.
 */
export const PROVIDER_KINDS = ['stt', 'llm', 'tts', 'realtime', 'tool', 'carrier'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

interface ProviderSpec {
  name: string;
  label: string;
  kinds: readonly ProviderKind[];
  fields: readonly ProviderField[];
}

const apiKey = [{ name: 'API Key', secret: true }] as const satisfies readonly ProviderField[];

/**
 * The providers a company can connect, with what they serve and their real credential fields: the data
 * half of the provider registry (the server adds URLs and adapters keyed by these names; docs/call-providers.md).
 */
const CATALOGUE = [
  { name: 'deepgram', label: 'Deepgram', kinds: ['stt'], fields: apiKey },
  { name: 'elevenlabs', label: 'ElevenLabs', kinds: ['tts'], fields: apiKey },
  { name: 'cartesia', label: 'Cartesia', kinds: ['tts'], fields: apiKey },
  {
    name: 'openai',
    label: 'OpenAI',
    kinds: ['llm', 'realtime'],
    // Base URL: an OpenAI-compatible server of the company's own (vLLM, Ollama); empty = OpenAI itself
    fields: [
      { name: 'API Key', secret: true },
      { name: 'Base URL', secret: false, optional: true, url: true },
    ],
  },
  { name: 'anthropic', label: 'Anthropic', kinds: ['llm'], fields: apiKey },
  { name: 'calcom', label: 'Cal.com', kinds: ['tool'], fields: apiKey },
  { name: 'calendly', label: 'Calendly', kinds: ['tool'], fields: [{ name: 'Personal Access Token', secret: true }] },
  {
    name: 'twilio',
    label: 'Twilio',
    kinds: ['carrier'],
    fields: [
      { name: 'Account SID', secret: false },
      { name: 'Auth Token', secret: true },
    ],
  },
  {
    name: 'plivo',
    label: 'Plivo',
    kinds: ['carrier'],
    fields: [
      { name: 'Auth ID', secret: false },
      { name: 'Auth Token', secret: true },
    ],
  },
  { name: 'perplexity', label: 'Perplexity', kinds: ['tool'], fields: apiKey },
  { name: 'smallest', label: 'Smallest', kinds: ['tts'], fields: apiKey },
  {
    name: 'whatsapp',
    label: 'WhatsApp',
    kinds: ['tool'],
    fields: [
      { name: 'Phone Number ID', secret: false },
      { name: 'Access Token', secret: true },
    ],
  },
] as const satisfies readonly ProviderSpec[];

/** The one name of a provider, server and browser alike. */
export type ProviderName = (typeof CATALOGUE)[number]['name'];

export interface ProviderInfo extends ProviderSpec {
  name: ProviderName;
}
export const PROVIDERS: readonly ProviderInfo[] = CATALOGUE;
export const PROVIDER_NAMES: readonly ProviderName[] = CATALOGUE.map((p) => p.name);

type NameIfServes<E, K> = E extends { name: infer N; kinds: infer Ks extends readonly ProviderKind[] }
  ? [Extract<Ks[number], K>] extends [never]
    ? never
    : N
  : never;
/** The providers that serve `K`, e.g. `ProviderOfKind<'llm'>` = 'openai' | 'anthropic'. */
export type ProviderOfKind<K extends ProviderKind> = NameIfServes<(typeof CATALOGUE)[number], K>;

export const isProviderName = (s: string): s is ProviderName => (PROVIDER_NAMES as readonly string[]).includes(s);

export function providerInfo(name: ProviderName): ProviderInfo {
  return PROVIDERS.find((p) => p.name === name) as ProviderInfo;
}

/** The label of a provider ('ElevenLabs'); a name outside the catalogue (a registered one) is its own label. */
export const providerLabel = (name: string): string => PROVIDERS.find((p) => p.name === name)?.label ?? name;

export { PROVIDER_DEFAULT_PAGE_SIZE, PROVIDER_PAGE_SIZES };
/** Spec section 9: provider search debounce. */
export const PROVIDER_SEARCH_DEBOUNCE_MS = 300;
export const PROVIDER_VALUE_MAX = 4096;

/**
 * The mask shown for a stored value: first 3 characters + '…' + last 4 for values of 16 characters or
 * more (`sk-…abcd`), '••••' + last 4 from 8 to 15 characters, and '••••••••' below that (revealing the
 * last 4 of a very short value would reveal most of it).
 */
export function maskValue(value: string): string {
  const chars = Array.from(value);
  if (chars.length >= 16) return `${chars.slice(0, 3).join('')}…${chars.slice(-4).join('')}`;
  if (chars.length >= 8) return `••••${chars.slice(-4).join('')}`;
  return '••••••••';
}

export const PROVIDER_MESSAGES = {
  connected: (label: string) => `${label} has been successfully connected.`,
  updated: (label: string) => `${label} has been updated.`,
  disconnected: (label: string) => `${label} has been disconnected.`,
  alreadyConnected: (label: string) => `${label} is already connected. Update it instead.`,
  notConnected: (label: string) => `${label} is not connected.`,
  unknownProvider: 'Unknown provider',
  nameRequired: 'Provider name is required',
  missingFields: (names: string[]) => `Please fill in the following fields: ${names.join(', ')}`,
  unknownField: (name: string, label: string) => `${label} has no field named ${name}`,
  duplicateField: (name: string) => `The field ${name} is given more than once`,
  valueTooLong: `A value must be at most ${PROVIDER_VALUE_MAX} characters`,
  valueRequired: 'A value is required',
  maskedValue: 'Enter the full value, not its masked form',
  fieldNameRequired: 'A field name is required',
  /** a URL field that is not an http(s) URL, or points at a place the server must not connect to */
  urlRefused: (field: string, reason: string) => `${field}: ${reason}`,
  urlInvalid: 'Enter an http:// or https:// URL without user name, query or fragment',
  // section 8 (client side)
  missingInformation: 'Missing information',
  statusLoadFailed: 'Failed to load connection status',
  listLoadFailedToast: 'Failed to load providers. Please try again.',
  listLoadFailedInline: 'Failed to load providers. Please refresh the page and try again.',
  fieldsLoadFailed: 'Failed to load provider fields. Please try again.',
  connectFailed: 'Failed to connect the provider. Please try again.',
  updateFailed: 'Failed to update the provider. Please try again.',
  disconnectFailed: 'Failed to disconnect the provider. Please try again.',
} as const;

// ---------------------------------------------------------------------------------------------
// Requests

const ProviderNameSchema = v.pipe(
  v.string(PROVIDER_MESSAGES.nameRequired),
  v.trim(),
  v.nonEmpty(PROVIDER_MESSAGES.nameRequired),
  v.maxLength(64, PROVIDER_MESSAGES.unknownProvider),
);

/** One credential as sent by the dialog. Messages never echo the value. */
export const KeyValueSchema = v.object({
  name: v.pipe(
    v.string(PROVIDER_MESSAGES.fieldNameRequired),
    v.trim(),
    v.nonEmpty(PROVIDER_MESSAGES.fieldNameRequired),
    v.maxLength(64, PROVIDER_MESSAGES.fieldNameRequired),
  ),
  value: v.pipe(
    v.string(PROVIDER_MESSAGES.valueRequired),
    v.trim(),
    v.maxLength(PROVIDER_VALUE_MAX, PROVIDER_MESSAGES.valueTooLong),
  ),
});
export type KeyValue = v.InferOutput<typeof KeyValueSchema>;

const KeysSchema = v.pipe(v.array(KeyValueSchema, 'keys must be a list'), v.maxLength(20, 'Too many keys'));

/** GET /user/providers */
export const ProviderListQuerySchema = v.object({
  page: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,6}$/, 'page must be a positive integer'),
      v.transform(Number),
      v.minValue(1, 'page must be a positive integer'),
    ),
    '1',
  ),
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,3}$/, 'limit must be between 1 and 100'),
      v.transform(Number),
      v.minValue(1, 'limit must be between 1 and 100'),
      v.maxValue(100, 'limit must be between 1 and 100'),
    ),
    String(PROVIDER_DEFAULT_PAGE_SIZE),
  ),
  search: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(100, 'search must be at most 100 characters')), ''),
});
export type ProviderListQuery = v.InferOutput<typeof ProviderListQuerySchema>;

/** GET /provider (name may be empty: status of every provider) */
export const ProviderStatusQuerySchema = v.object({
  name: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(64, PROVIDER_MESSAGES.unknownProvider)), ''),
});

/** GET /provider/fields */
export const ProviderFieldsQuerySchema = v.object({ name: ProviderNameSchema });

/** POST /provider/values */
export const ConnectProviderBodySchema = v.object({ name: ProviderNameSchema, keys: KeysSchema });
export type ConnectProviderBody = v.InferOutput<typeof ConnectProviderBodySchema>;

/** PUT /provider/:id */
export const UpdateProviderBodySchema = v.object({ keys: KeysSchema });
export type UpdateProviderBody = v.InferOutput<typeof UpdateProviderBodySchema>;

/** DELETE /provider/disconnect */
export const DisconnectProviderBodySchema = v.object({ name: ProviderNameSchema });
export type DisconnectProviderBody = v.InferOutput<typeof DisconnectProviderBodySchema>;

// ---------------------------------------------------------------------------------------------
// Responses

const ProviderNameOut = v.picklist(PROVIDER_NAMES);
/** present (true) only on the fields that have them: see ProviderField */
const FIELD_FLAGS = { optional: v.optional(v.boolean()), url: v.optional(v.boolean()) };

/** A field's flags as the API sends them: only those that are true. */
export const fieldFlags = (f: Pick<ProviderField, 'optional' | 'url'>) => ({
  ...(f.optional ? { optional: true } : {}),
  ...(f.url ? { url: true } : {}),
});

export const ProviderListItemSchema = v.object({
  /** connection id when connected, else the provider slug */
  _id: v.string(),
  name: ProviderNameOut,
  label: v.string(),
  /** the company id when connected, else null */
  company: v.nullable(v.string()),
  connected: v.boolean(),
  keys: v.array(v.object({ name: v.string(), secret: v.boolean(), ...FIELD_FLAGS })),
});
export type ProviderListItem = v.InferOutput<typeof ProviderListItemSchema>;

export const ProviderListResponseSchema = v.object({
  success: v.boolean(),
  providers: v.array(ProviderListItemSchema),
  total: v.number(),
});
export type ProviderListResponse = v.InferOutput<typeof ProviderListResponseSchema>;

export const ProviderStatusResponseSchema = v.object({
  success: v.boolean(),
  data: v.array(v.object({ name: ProviderNameOut, connected: v.boolean() })),
});
export type ProviderStatusResponse = v.InferOutput<typeof ProviderStatusResponseSchema>;

export const ProviderFieldsResponseSchema = v.object({
  success: v.boolean(),
  name: ProviderNameOut,
  label: v.string(),
  /** the connection id (for PUT /provider/:id), null when not connected */
  _id: v.nullable(v.string()),
  connected: v.boolean(),
  /** value: '' when not connected, else the mask of the stored value */
  keys: v.array(v.object({ name: v.string(), value: v.string(), secret: v.boolean(), ...FIELD_FLAGS })),
});
export type ProviderFieldsResponse = v.InferOutput<typeof ProviderFieldsResponseSchema>;

/**
 * POST /provider/values and PUT /provider/:id (201 on connect, 200 on update). Before saving, the server
 * tries the credentials with the provider's cheapest authenticated request: a refusal answers 400 with the
 * provider's reason in `msg` and `errors: {[field]: reason}` (nothing saved); a provider that could not be
 * asked (unreachable, timeout, 5xx) leaves the card saved with `warning`.
 */
export const ProviderSaveResponseSchema = v.object({
  success: v.boolean(),
  msg: v.string(),
  provider: ProviderListItemSchema,
  warning: v.optional(v.string()),
});
export type ProviderSaveResponse = v.InferOutput<typeof ProviderSaveResponseSchema>;

/** DELETE /provider/disconnect */
export const ProviderDisconnectResponseSchema = v.object({ success: v.boolean(), msg: v.string() });
export type ProviderDisconnectResponse = v.InferOutput<typeof ProviderDisconnectResponseSchema>;

export const PROVIDER_PATHS = {
  list: '/user/providers',
  status: '/provider',
  fields: '/provider/fields',
  connect: '/provider/values',
  update: (id: string) => `/provider/${encodeURIComponent(id)}`,
  disconnect: '/provider/disconnect',
} as const;

/** The kinds that make an agent talk, in the words of a provider's card ('speech recognition', 'LLM', 'voice'). */
export const CALL_KIND_LABELS = {
  stt: 'speech recognition',
  llm: 'LLM',
  tts: 'voice',
  realtime: 'speech-to-speech',
} as const satisfies Partial<Record<ProviderKind, string>>;

/**
 * The line on a provider's card that says what it does in an agent's calls, e.g. 'Used for calls: LLM /
 * speech-to-speech' for OpenAI; null for a provider that does not make an agent talk (a tool, a carrier).
 */
export function providerCallUse(name: ProviderName): string | null {
  const kinds = providerInfo(name).kinds;
  const parts = PROVIDER_KINDS.filter((k): k is keyof typeof CALL_KIND_LABELS => k in CALL_KIND_LABELS && kinds.includes(k));
  return parts.length === 0 ? null : `Used for calls: ${parts.map((k) => CALL_KIND_LABELS[k]).join(' / ')}`;
}
