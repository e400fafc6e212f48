/**
 * Contract of the phone-number calls. Imported by the client
 * (typed calls, the Update Phone Number and Assign Agent forms, the two tabs) AND the server.
 *
 * The platform has a POOL of numbers. A number with no company is free ("available" to every company);
 * a company's own numbers are "assigned". Routes (all under /api/v1, all need the access token):
 *
 * | call                          | answer                                                                 |
 * |-------------------------------|------------------------------------------------------------------------|
 * | GET /phone/free               | `{ data: { numbers: FreeNumber[], total } }`: the pool; `requested: true` on the numbers the caller's company has asked for |
 * | GET /phone/assigned           | `{ data: { numbers: PhoneNumber[], total } }`: the company's numbers (full records, so edit and assign need no second read) |
 * | POST /request/ {phone}        | 201 `{ msg, data: { request } }` the first time; 200 with the same request afterwards (idempotent); 404 when `phone` is not in the free pool. With REQUEST_AUTO_GRANT=true the number is granted at once (`request.granted` true) |
 * | GET /number/                  | same as /phone/assigned, but without `limit` it answers ALL the company's numbers (up to 1000): the Call History filter dialog loads it with empty params |
 * | GET /number/{id}              | `{ data: { number } }` |
 * | POST /number/create           | 201 `{ msg, data: { number } }`: a number the company brings itself (origin 'company'); 409 when the number is already on the platform |
 * | PUT /number/{id}              | `{ msg, data: { number } }`: any subset of the form's fields (the assign dialog sends only the agent ids) |
 * | DELETE /number/{id}           | `{ msg, data: { _id, released } }`: a pool number goes back to the pool (`released` true, settings reset), a company's own number is removed |
 *
 * Lists: `page` is ZERO-based (the specification: "refetched with page 0 and limit 10"; the data table's URL page is
 * zero-based too), unlike GET /agent whose page is 1-based. `limit` 1..100 (default 10), `search` matches
 * the digits of the number (formatting ignored) or, for assigned numbers, the nickname
 * (case-insensitive), `sort` a JSON object over PHONE_SORT_FIELDS (default: number ascending).
 *
 * Rules of a company's number (server-enforced):
 * - section 5: phone_number at least 10 characters and a real number, else 'Invalid phone number'
 *   (stored E.164: formatting is removed, 10 digits without '+' are read as North American +1);
 *   phone_number_type, phone_number_pretty and termination_uri required with the spec's messages.
 * - `accountId` and `companyId` are read-only: they come from the token; a body's values are ignored.
 * - `inbound_agent_id` / `outbound_agent_id` must name agents of the caller's company, else 400.
 * - ONE direction at a time (the specification's 'Assign agent'): a number has an inbound agent OR an outbound
 *   agent. Setting one clears the other unless the same body sets that one too; a body setting BOTH to
 *   an agent answers 400. Hence the assign mode of a number is `assignModeOf(number)`.
 * - the number of a pool number (origin 'pool') cannot be changed (400); a company's own can.
 * - deleting an agent clears it from every number (foreign key `on delete set null`).
 */
import * as v from 'valibot';
import { intParam, PAGE_MAX, queryParams, type SortPairs, searchParam, sortParam, sortToParam } from './list';

// ---------------------------------------------------------------------------------------------
// Constants and messages

export const PHONE_PROVIDERS = ['twilio', 'plivo'] as const;
export type PhoneProvider = (typeof PHONE_PROVIDERS)[number];
export const PHONE_PROVIDER_LABELS: Record<PhoneProvider, string> = { twilio: 'Twilio', plivo: 'Plivo' };

/** Kinds of number (the form's phone_number_type select). */
export const PHONE_NUMBER_TYPES = ['local', 'toll-free', 'mobile'] as const;
export type PhoneNumberType = (typeof PHONE_NUMBER_TYPES)[number];
export const PHONE_NUMBER_TYPE_LABELS: Record<PhoneNumberType, string> = {
  local: 'Local',
  'toll-free': 'Toll-free',
  mobile: 'Mobile',
};

export const CALL_DIRECTIONS = ['inbound', 'outbound'] as const;
export type CallDirection = (typeof CALL_DIRECTIONS)[number];

/** the specification: phone_number minimum 10 characters */
export const PHONE_NUMBER_MIN = 10;
export const PHONE_NUMBER_MAX = 32;
export const PHONE_TEXT_MAX = 200;
export const TERMINATION_URI_MAX = 2048;

export const PHONE_MESSAGES = {
  // the specification: Phone number form
  invalidPhoneNumber: 'Invalid phone number',
  typeRequired: 'Phone number type is required',
  prettyRequired: 'Pretty phone number is required',
  terminationUriRequired: 'Termination URI is required',
  // the specification: Assign form
  agentRequired: 'Please select an agent',
  callTypeRequired: 'Choose inbound or outbound',
  // further server rules
  unknownType: 'Choose one of the listed phone number types',
  unknownProvider: 'Provider must be twilio or plivo',
  invalidAreaCode: 'Area code must be a whole number from 0 to 99999',
  tooLong: (max: number) => `Must be at most ${max} characters`,
  agentNotFound: 'Agent not found',
  bothDirections: 'A phone number has an inbound or an outbound agent, not both',
  nothingToUpdate: 'Nothing to update',
  notFound: 'Phone number not found',
  notAvailable: 'This phone number is not available',
  alreadyRegistered: 'This phone number is already registered',
  poolNumberFixed: 'The number of a phone number from the Parley pool cannot be changed',
  // answers (msg) of the server
  created: 'Phone number created',
  updated: 'Phone number updated',
  agentsUpdated: 'Phone number agents updated',
  deleted: 'Phone number deleted',
  requestSent: (phone: string) => `Request for phone number ${phone} has been sent.`,
  importChoose: 'Choose at least one number',
  importTooMany: (max: number) => `Import at most ${max} numbers at a time`,
  importNotOnAccount: (phone: string, label: string) => `${phone} is not a number of your ${label} account`,
  imported: (n: number) => `${n} number${n === 1 ? '' : 's'} imported`,
} as const;

/** The screen's texts of the specification (toasts, empty and error states). */
export const PHONE_TEXTS = {
  requestSentTitle: 'Request Sent',
  requestSent: PHONE_MESSAGES.requestSent,
  requestFailed: 'Failed to request phone number',
  updated: 'Phone number updated',
  updateFailed: 'Failed to update phone number',
  agentsUpdated: 'Phone number agents updated',
  assignFailed: 'Failed to update phone number agent.',
  deleted: 'Phone number deleted',
  deleteFailed: 'An error occurred while deleting the phone number',
  availableEmptyTitle: 'No available phone numbers found',
  availableEmptyText: 'Contact support to add more phone numbers to your account.',
  availableLoadFailed: 'Error loading available phone numbers. Please try again.',
  importFrom: (label: string) => `Import from ${label}`,
  importTitle: (label: string) => `Import numbers from ${label}`,
  importLead: (label: string) =>
    `Numbers on your own ${label} account. Importing one points its voice webhook at Parley; give it an agent with Assign Agent and it rings that agent. Deleting it here sets back what it had.`,
  importEmpty: (label: string) => `No phone numbers on this ${label} account.`,
  importLoadFailed: (label: string) => `Could not read the numbers of your ${label} account.`,
  importAlready: 'Already in Parley',
  importNoVoice: 'Cannot take calls',
  importSubmit: 'Import selected',
  importedTitle: 'Numbers imported',
  imported: (n: number) => `${n} number${n === 1 ? '' : 's'} imported.`,
  importFailed: 'Failed to import phone numbers',
  /** a pending request for a pool number, on a self-hosted server */
  requestPendingHint: 'An operator of this server grants requests with: npm run admin -- grant-number-requests',
  /** A carrier is connected but PUBLIC_URL is on localhost */
  callbacksUnreachable:
    'PUBLIC_URL is on localhost, so inbound calls cannot reach this server (nor can call status from Twilio or Plivo). Set PUBLIC_URL to the public https address of this server.',
} as const;

// ---------------------------------------------------------------------------------------------
// Phone number text

/**
 * The E.164 form of a typed number, or null when it is not one: spaces, dots, dashes and parentheses
 * are ignored; '+' and 8..15 digits (+1, North America, exactly 11); without '+', 10 digits (or 11
 * starting with 1) are North American.
 */
export function normalizePhoneNumber(input: string): string | null {
  const compact = input.trim().replace(/[\s().-]/g, '');
  if (compact.startsWith('+1')) return /^\+1[2-9]\d{9}$/.test(compact) ? compact : null;
  if (/^\+[2-9]\d{7,14}$/.test(compact)) return compact;
  if (/^[2-9]\d{9}$/.test(compact)) return `+1${compact}`;
  if (/^1[2-9]\d{9}$/.test(compact)) return `+${compact}`;
  return null;
}

/** '(415) 555-0123' for a North American number, else the E.164 text. */
export function prettyPhoneNumber(e164: string): string {
  const m = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(e164);
  return m ? `(${m[1]}) ${m[2]}-${m[3]}` : e164;
}

/** The area code of a North American number (415 of +14155550123), else null. */
export function areaCodeOf(e164: string): number | null {
  const m = /^\+1(\d{3})\d{7}$/.exec(e164);
  return m ? Number(m[1]) : null;
}

/** The digits of a search text ('' when it has none): searches match numbers whatever their formatting. */
export const searchDigits = (search: string) => search.replace(/\D/g, '');

// ---------------------------------------------------------------------------------------------
// Fields (the specification's 'Phone number', the specification's 'Phone number form')

const required = (msg: string, max: number) =>
  v.pipe(v.optional(v.string(msg), ''), v.trim(), v.nonEmpty(msg), v.maxLength(max, PHONE_MESSAGES.tooLong(max)));

/** Optional text: '' or null clear it (stored null). */
const optionalText = (max: number) =>
  v.optional(
    v.pipe(
      v.nullable(v.string()),
      v.transform((s) => (s ?? '').trim()),
      v.maxLength(max, PHONE_MESSAGES.tooLong(max)),
      v.transform((s) => (s === '' ? null : s)),
    ),
  );

export const PhoneNumberFieldSchema = v.pipe(
  v.optional(v.string(PHONE_MESSAGES.invalidPhoneNumber), ''),
  v.trim(),
  v.minLength(PHONE_NUMBER_MIN, PHONE_MESSAGES.invalidPhoneNumber),
  v.maxLength(PHONE_NUMBER_MAX, PHONE_MESSAGES.invalidPhoneNumber),
  // one message per field: the length rules above already said it
  v.check(
    (s) => s.length < PHONE_NUMBER_MIN || s.length > PHONE_NUMBER_MAX || normalizePhoneNumber(s) !== null,
    PHONE_MESSAGES.invalidPhoneNumber,
  ),
  v.transform((s) => normalizePhoneNumber(s) as string),
);

const PhoneNumberTypeSchema = v.pipe(
  required(PHONE_MESSAGES.typeRequired, 50),
  v.check((s) => s === '' || (PHONE_NUMBER_TYPES as readonly string[]).includes(s), PHONE_MESSAGES.unknownType),
  v.transform((s) => s as PhoneNumberType),
);

/** An agent id, or null / '' for none. */
const AgentRefSchema = v.optional(
  v.pipe(
    v.nullable(v.string(PHONE_MESSAGES.agentNotFound)),
    v.transform((s) => (s ?? '').trim()),
    v.maxLength(64, PHONE_MESSAGES.agentNotFound),
    v.transform((s) => (s === '' ? null : s)),
  ),
);

/** A whole number 0..99999, given as a number or the text of one; null or '' clear it. */
const AreaCodeSchema = v.optional(
  v.pipe(
    v.nullable(v.union([v.number(), v.string()], PHONE_MESSAGES.invalidAreaCode)),
    v.transform((x) => {
      if (x === null || typeof x === 'number') return x;
      const t = x.trim();
      return t === '' ? null : /^\d{1,5}$/.test(t) ? Number(t) : Number.NaN;
    }),
    v.check((x) => x === null || (Number.isInteger(x) && x >= 0 && x <= 99_999), PHONE_MESSAGES.invalidAreaCode),
  ),
);

const fieldEntries = {
  phone_number: PhoneNumberFieldSchema,
  phone_number_type: PhoneNumberTypeSchema,
  phone_number_pretty: required(PHONE_MESSAGES.prettyRequired, 50),
  termination_uri: required(PHONE_MESSAGES.terminationUriRequired, TERMINATION_URI_MAX),
  assistantId: optionalText(PHONE_TEXT_MAX),
  nickname: optionalText(PHONE_TEXT_MAX),
  inbound_agent_id: AgentRefSchema,
  outbound_agent_id: AgentRefSchema,
  area_code: AreaCodeSchema,
};

const DIRECTION_KEYS: [['inbound_agent_id'], ['outbound_agent_id']] = [['inbound_agent_id'], ['outbound_agent_id']];
/** Not an inbound AND an outbound agent (the specification: one direction at a time). */
const oneDirection = (x: { inbound_agent_id?: string | null; outbound_agent_id?: string | null }) =>
  !(x.inbound_agent_id && x.outbound_agent_id);

/**
 * The Update Phone Number dialog's form and the body of POST /number/create (the specification's messages).
 * accountId / companyId may be present (shown read-only) and are ignored.
 */
export const PhoneNumberFormSchema = v.pipe(
  v.object({
    ...fieldEntries,
    provider: v.optional(v.picklist(PHONE_PROVIDERS, PHONE_MESSAGES.unknownProvider), 'twilio'),
  }),
  v.forward(v.partialCheck(DIRECTION_KEYS, oneDirection, PHONE_MESSAGES.bothDirections), ['outbound_agent_id']),
);
export type PhoneNumberForm = v.InferOutput<typeof PhoneNumberFormSchema>;
export type PhoneNumberFormInput = v.InferInput<typeof PhoneNumberFormSchema>;
export const PhoneNumberCreateBodySchema = PhoneNumberFormSchema;
export type PhoneNumberCreateBody = PhoneNumberForm;

/** The Update Phone Number dialog's starting values for a number (the specification: the form resets from the record). */
export function phoneNumberFormValues(n: PhoneNumber): PhoneNumberFormInput {
  return {
    phone_number: n.phone_number,
    phone_number_type: n.phone_number_type,
    phone_number_pretty: n.phone_number_pretty,
    termination_uri: n.termination_uri,
    assistantId: n.assistantId,
    nickname: n.nickname,
    inbound_agent_id: n.inbound_agent_id,
    outbound_agent_id: n.outbound_agent_id,
    area_code: n.area_code === null ? '' : String(n.area_code),
    provider: n.provider,
  };
}

/** PUT /number/{id}: any non-empty subset of the form's fields (the assign dialog sends only agent ids). */
export const PhoneNumberUpdateBodySchema = v.pipe(
  v.partial(v.object(fieldEntries)),
  v.check((x) => Object.values(x).some((val) => val !== undefined), PHONE_MESSAGES.nothingToUpdate),
  v.forward(v.partialCheck(DIRECTION_KEYS, oneDirection, PHONE_MESSAGES.bothDirections), ['outbound_agent_id']),
);
export type PhoneNumberUpdateBody = v.InferOutput<typeof PhoneNumberUpdateBodySchema>;
export type PhoneNumberUpdateInput = v.InferInput<typeof PhoneNumberUpdateBodySchema>;

/** True when an update body changes nothing but the agents (its answer reads 'Phone number agents updated'). */
export const isAgentsOnlyUpdate = (body: Record<string, unknown>) =>
  Object.entries(body).every(([k, val]) => val === undefined || k === 'inbound_agent_id' || k === 'outbound_agent_id');

// ---------------------------------------------------------------------------------------------
// Assign form (the specification's 'Assign agent', the specification's 'Assign form')

export const AssignAgentFormSchema = v.object({
  agent_id: v.pipe(v.optional(v.string(PHONE_MESSAGES.agentRequired), ''), v.trim(), v.nonEmpty(PHONE_MESSAGES.agentRequired)),
  call_type: v.picklist(CALL_DIRECTIONS, PHONE_MESSAGES.callTypeRequired),
});
export type AssignAgentForm = v.InferOutput<typeof AssignAgentFormSchema>;

/** Spec 4: a number is in inbound mode when it has no outbound agent, otherwise outbound. */
export const assignModeOf = (n: { outbound_agent_id: string | null }): CallDirection =>
  n.outbound_agent_id ? 'outbound' : 'inbound';

/** The agent the assign dialog starts with: the one of the number's mode. */
export const assignedAgentOf = (n: { inbound_agent_id: string | null; outbound_agent_id: string | null }) =>
  n.outbound_agent_id ?? n.inbound_agent_id ?? '';

/** The PUT body of the assign dialog: the chosen direction set, the other cleared. */
export function assignPatch(form: AssignAgentForm): { inbound_agent_id: string | null; outbound_agent_id: string | null } {
  return form.call_type === 'inbound'
    ? { inbound_agent_id: form.agent_id, outbound_agent_id: null }
    : { inbound_agent_id: null, outbound_agent_id: form.agent_id };
}

// ---------------------------------------------------------------------------------------------
// Answers

/** A row of the Available tab. */
export const FreeNumberSchema = v.object({
  _id: v.string(),
  /** E.164 */
  phone: v.string(),
  provider: v.picklist(PHONE_PROVIDERS),
  phone_number_pretty: v.string(),
  phone_number_type: v.string(),
  area_code: v.nullable(v.number()),
  /** the caller's company has asked for it (the row shows 'Requested') */
  requested: v.boolean(),
});
export type FreeNumber = v.InferOutput<typeof FreeNumberSchema>;

/** A company's number (the specification's 'Phone number'): a row of the Assigned tab and of GET /number. */
export const PhoneNumberSchema = v.object({
  _id: v.string(),
  /** E.164 (same as phone_number; the lists show it) */
  phone: v.string(),
  provider: v.picklist(PHONE_PROVIDERS),
  phone_number: v.string(),
  phone_number_type: v.string(),
  phone_number_pretty: v.string(),
  /** '' when none */
  nickname: v.string(),
  /** '' when none */
  assistantId: v.string(),
  termination_uri: v.string(),
  area_code: v.nullable(v.number()),
  inbound_agent_id: v.nullable(v.string()),
  outbound_agent_id: v.nullable(v.string()),
  /** names of those agents, for display */
  inbound_agent_name: v.nullable(v.string()),
  outbound_agent_name: v.nullable(v.string()),
  /** read-only: the account that requested or added it ('' when that account is gone) */
  accountId: v.string(),
  /** read-only */
  companyId: v.string(),
  /** 'pool': from the Parley pool (deleting returns it); 'company': added by the company */
  origin: v.picklist(['pool', 'company']),
  /** ISO-8601 UTC: when the company got it */
  assignedAt: v.string(),
  createdAt: v.string(),
  updatedAt: v.string(),
});
export type PhoneNumber = v.InferOutput<typeof PhoneNumberSchema>;

/** GET /phone/free */
export const FreeNumberListResponseSchema = v.object({
  success: v.literal(true),
  data: v.object({ numbers: v.array(FreeNumberSchema), total: v.number() }),
});
export type FreeNumberListResponse = v.InferOutput<typeof FreeNumberListResponseSchema>;

/** GET /phone/assigned, GET /number */
export const PhoneNumberListResponseSchema = v.object({
  success: v.literal(true),
  data: v.object({ numbers: v.array(PhoneNumberSchema), total: v.number() }),
});
export type PhoneNumberListResponse = v.InferOutput<typeof PhoneNumberListResponseSchema>;

/** GET /number/{id}, POST /number/create (201), PUT /number/{id} */
export const PhoneNumberResponseSchema = v.object({
  success: v.literal(true),
  msg: v.optional(v.string()),
  data: v.object({ number: PhoneNumberSchema }),
});
export type PhoneNumberResponse = v.InferOutput<typeof PhoneNumberResponseSchema>;

/** DELETE /number/{id} */
export const PhoneNumberDeleteResponseSchema = v.object({
  success: v.literal(true),
  msg: v.string(),
  /** released: true when a pool number went back to the pool */
  data: v.object({ _id: v.string(), released: v.boolean() }),
});
export type PhoneNumberDeleteResponse = v.InferOutput<typeof PhoneNumberDeleteResponseSchema>;

// ---------------------------------------------------------------------------------------------
// Requests (POST /request/)

export const NumberRequestBodySchema = v.object({
  phone: v.pipe(
    v.optional(v.string(PHONE_MESSAGES.invalidPhoneNumber), ''),
    v.trim(),
    v.nonEmpty(PHONE_MESSAGES.invalidPhoneNumber),
    v.maxLength(PHONE_NUMBER_MAX, PHONE_MESSAGES.invalidPhoneNumber),
  ),
});
export type NumberRequestBody = v.InferOutput<typeof NumberRequestBodySchema>;

export const NumberRequestSchema = v.object({
  _id: v.string(),
  phone: v.string(),
  phoneNumberId: v.string(),
  /** ISO-8601 UTC */
  requestedAt: v.string(),
  /** true once granted (at once with REQUEST_AUTO_GRANT=true): the number is then under Assigned */
  granted: v.boolean(),
});
export type NumberRequest = v.InferOutput<typeof NumberRequestSchema>;

export const NumberRequestResponseSchema = v.object({
  success: v.literal(true),
  /** 'Request for phone number {phone} has been sent.' */
  msg: v.string(),
  data: v.object({ request: NumberRequestSchema }),
});
export type NumberRequestResponse = v.InferOutput<typeof NumberRequestResponseSchema>;

// ---------------------------------------------------------------------------------------------
// List queries

export const PHONE_LIST_LIMIT_DEFAULT = 10;
export const PHONE_LIST_LIMIT_MAX = 100;
/** GET /number without `limit` answers up to this many (the whole list of the filter dialog). */
export const NUMBER_LIST_ALL = 1000;
export const PHONE_SEARCH_MAX = 100;
export const PHONE_SORT_FIELDS = ['phone', 'provider', 'nickname', 'assignedAt'] as const;
export type PhoneSortField = (typeof PHONE_SORT_FIELDS)[number];
export type PhoneSort = SortPairs<PhoneSortField>;

const listEntries = {
  /** ZERO-based */
  page: intParam(0, 0, PAGE_MAX),
  search: searchParam(PHONE_SEARCH_MAX),
  sort: sortParam(PHONE_SORT_FIELDS),
};

/** GET /phone/free, GET /phone/assigned: page (0-based), limit (1..100, default 10), search, sort */
export const PhoneListQuerySchema = v.object({
  ...listEntries,
  limit: intParam(PHONE_LIST_LIMIT_DEFAULT, 1, PHONE_LIST_LIMIT_MAX),
});
/** GET /number: as above, but `limit` defaults to (and may be up to) 1000 */
export const NumberListQuerySchema = v.object({ ...listEntries, limit: intParam(NUMBER_LIST_ALL, 1, NUMBER_LIST_ALL) });
export type PhoneListQuery = v.InferOutput<typeof PhoneListQuerySchema>;

export interface PhoneListParams {
  /** ZERO-based */
  page?: number;
  limit?: number;
  search?: string;
  sort?: PhoneSort;
}

/** The query-string values of the phone lists (sort as the JSON object, keys in order). */
export const phoneListParams = (q: PhoneListParams): Record<string, string> =>
  queryParams({ page: q.page, limit: q.limit, search: q.search, sort: sortToParam(q.sort) });

/**
 * GET /phone/telephony-status: `callbacksUnreachable` is true when the company has Twilio or Plivo
 * connected and the server's PUBLIC_URL is on localhost (the carriers cannot call it back).
 */
export const TelephonyStatusResponseSchema = v.object({
  success: v.boolean(),
  data: v.object({ callbacksUnreachable: v.boolean() }),
});
export type TelephonyStatusResponse = v.InferOutput<typeof TelephonyStatusResponseSchema>;

export const PHONE_PATHS = {
  telephonyStatus: '/phone/telephony-status',
  free: '/phone/free',
  assigned: '/phone/assigned',
  request: '/request/',
  numbers: '/number/',
  create: '/number/create',
  one: (id: string) => `/number/${encodeURIComponent(id)}`,
  importList: (provider: string) => `/number/import/${encodeURIComponent(provider)}`,
  import: '/number/import',
} as const;

// ---------------------------------------------------------------------------------------------
// Import from the company's carrier account

/**
 * GET /number/import/{provider}: the numbers of the company's own Twilio or Plivo account (its Providers
 * card), `{ data: { numbers: CarrierNumber[] } }`; 400 naming the card when it is not connected.
 * POST /number/import: imports the chosen ones: each number's voice webhook (Twilio `VoiceUrl` and
 * `StatusCallback`; Plivo an application's Answer URL) is pointed at Parley and the number added as the
 * company's own (origin 'company'), with `inbound_agent_id` when given. 201 `{ msg, data: { numbers } }`.
 * DELETE /number/{id} of an imported number sets back what the carrier had before.
 */
/** A number of the account: `in_parley` when already on the platform (imported, added by hand, or in the pool); `voice` when it can take calls. */
export type CarrierNumber = v.InferOutput<typeof CarrierNumberSchema>;
export const CarrierNumberSchema = v.object({
  phone_number: v.string(),
  friendly_name: v.string(),
  voice: v.boolean(),
  in_parley: v.boolean(),
});
export const CarrierNumberListResponseSchema = v.object({
  success: v.literal(true),
  data: v.object({ numbers: v.array(CarrierNumberSchema) }),
});
export const NumberImportResponseSchema = v.object({
  success: v.literal(true),
  msg: v.string(),
  data: v.object({ numbers: v.array(PhoneNumberSchema) }),
});
export type NumberImportResponse = v.InferOutput<typeof NumberImportResponseSchema>;
export const NUMBER_IMPORT_MAX = 50;
export const NumberImportBodySchema = v.object({
  provider: v.picklist(PHONE_PROVIDERS, PHONE_MESSAGES.unknownProvider),
  phone_numbers: v.pipe(
    v.array(v.pipe(v.string(), v.regex(/^\+[1-9]\d{6,14}$/, PHONE_MESSAGES.invalidPhoneNumber)), PHONE_MESSAGES.importChoose),
    v.minLength(1, PHONE_MESSAGES.importChoose),
    v.maxLength(NUMBER_IMPORT_MAX, PHONE_MESSAGES.importTooMany(NUMBER_IMPORT_MAX)),
  ),
  inbound_agent_id: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(64)))),
});
export type NumberImportBody = v.InferOutput<typeof NumberImportBodySchema>;
