/**
 * Contract of the batch call calls. Imported by the client (form,
 * CSV worker) AND the server. Dialling is out of scope: a sent batch waits in 'scheduled' or 'sending'.
 *
 * Flow: `POST /batch-call` (header `Idempotency-Key`, required) creates the batch; `POST /batch-call/:id/recipients`
 * (body: the CSV as text/csv, streamed, at most BATCH_CSV_MAX_BYTES, else 413) stores its valid recipients,
 * replacing an earlier upload; `POST /batch-call/:id/send`, `/schedule {scheduledAt}`, `/cancel` move it on;
 * `/pause` (sending -> paused: calls in progress finish, no new ones) and `/resume` (paused -> sending).
 * The client saves a draft, uploads, then sends or schedules. A batch created directly as 'scheduled' or
 * 'sending' still accepts its recipients while nothing has been dialled.
 *
 * Idempotency (src/api/contract/idempotency.ts, server/platform/http/idempotency.ts): the key is required and unique
 * per company. Repeating a create with the same key and body answers the first answer (201, the batch as it
 * was created) with `Idempotent-Replayed: true`; the same key with another body answers 422. Concurrent
 * repeats create one batch. The batch also keeps its key for good (a unique index), so a key sent again
 * after the middleware has forgotten it still never creates a second batch (422).
 *
 * The From number is one of the company's assigned numbers (GET /phone/assigned offers them).
 * Other paths: GET /batch-call?page&limit&status (page 1-based), GET /batch-call/:id (with the first
 * RECIPIENTS_PREVIEW recipients), GET /batch-call/:id/recipients?page&limit, GET /batch-call/template.csv
 * (public: the template holds no data).
 */
import * as v from 'valibot';
import { toCsv, unescapeCsvCell } from './csv';
import { destinationRefusal } from './destinations';
import { groupThousands } from './number';
import { objectRequiring } from './required';

export const BATCH_STATUSES = ['draft', 'scheduled', 'sending', 'paused', 'completed', 'canceled'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];
export const BATCH_STATUS_LABELS: Record<BatchStatus, string> = {
  draft: 'Draft',
  scheduled: 'Scheduled',
  sending: 'Sending',
  paused: 'Paused',
  completed: 'Completed',
  canceled: 'Canceled',
};
/** The badge of a completed batch whose every recipient failed. */
export const BATCH_FAILED_LABEL = 'Failed';
export const SEND_MODES = ['now', 'scheduled'] as const;
export type SendMode = (typeof SEND_MODES)[number];

/** Spec section 9: 50 MB, counted in bytes (52,428,800). */
export const BATCH_CSV_MAX_BYTES = 50 * 1024 * 1024;
/** Spec section 9: $0.005 per dial. */
export const BATCH_DIAL_COST = 0.005;
export const BATCH_NAME_MAX = 100;
/** The upload answer lists at most this many row errors. */
export const BATCH_ERRORS_MAX = 100;
export const RECIPIENTS_PREVIEW = 100;
/** One CSV record may not be longer than this (a row of a phone list is tiny); longer is unreadable. */
export const RECIPIENT_RECORD_MAX_CHARS = 64 * 1024;
export const PHONE_COLUMN = 'phone_number';
/** The template (written through csvCell: its `+` phone starts with an apostrophe, which the reader drops). */
export const BATCH_TEMPLATE_CSV = toCsv([
  [PHONE_COLUMN, 'first_name'],
  ['+14155550123', 'Ada'],
]);
export const BATCH_TEMPLATE_FILENAME = 'batch-call-template.csv';

export const BATCH_MESSAGES = {
  nameRequired: 'Batch call name is required',
  nameTooLong: `Batch call name must be at most ${BATCH_NAME_MAX} characters`,
  fromRequired: 'Please choose the number to call from',
  fromNotOwned: 'The from number must be one of your assigned phone numbers',
  sendMode: 'Send timing must be now or scheduled',
  status: 'Status must be draft, scheduled or sending',
  scheduledAtInvalid: 'Scheduled time must be a valid date and time',
  scheduledAtRequired: 'Please choose when to send',
  scheduledAtPast: 'Scheduled time must be in the future',
  scheduledNeedsMode: 'A scheduled batch needs the Schedule send timing',
  sendingNeedsMode: 'A batch sent now needs the Send Now timing',
  notFound: 'Batch call not found',
  tooLarge: 'The CSV file is larger than 50 MB',
  notCsv: 'Please upload a CSV file (text/csv)',
  missingPhoneColumn: 'The CSV header must include a phone_number column',
  emptyFile: 'The CSV file is empty',
  duplicateColumn: (name: string) => `The CSV header repeats the column ${name}`,
  unreadable: (row: number) => `The CSV file could not be read near row ${row}`,
  noRecipients: 'Please upload recipients first',
  notEditable: (status: string) => `A ${status.toLowerCase()} batch call can no longer be changed`,
  overSpendLimit: 'This batch would exceed your monthly spend limit',
  uploaded: (valid: number) => `${groupThousands(valid)} recipients saved.`,
  created: 'Batch call saved.',
  sent: 'Batch call is sending.',
  scheduled: 'Batch call scheduled.',
  canceled: 'Batch call canceled.',
  paused: 'Batch call paused. Calls in progress finish; no new calls are placed.',
  resumed: 'Batch call resumed.',
  missingPhone: 'Missing phone number',
  invalidPhone: 'Invalid phone number',
  duplicatePhone: 'Duplicate phone number',
  callingWindowDays: 'Choose at least one day of the week to call on',
  callingWindowTime: 'Times must be written HH:MM (24-hour clock)',
  callingWindowOrder: 'The calling window must end after it starts',
  timeZone: 'Please choose a known time zone',
  maxAttempts: 'Attempts must be a whole number from 1 to 5',
  retryDelay: 'The retry delay must be a whole number of seconds from 30 to 86,400',
  pausedAutomatically: (failed: number, finished: number) =>
    `Paused automatically: ${groupThousands(failed)} of ${groupThousands(finished)} calls in the last 2 minutes failed.`,
} as const;

/**
 * Normalises a phone number to E.164: drops a '(0)' trunk prefix after the country code, strips spaces,
 * dashes, dots and parentheses; a leading 00 becomes
 * +; 10 digits (or 11 starting with 1) are taken as a North American number (+1). The result must be
 * `+` and 8 to 15 digits; +1 numbers must also have a valid area code and exchange (first digits 2-9).
 * Returns null when it is not a phone number.
 */
const E164 = /^\+[1-9]\d{7,14}$/;
const NANP = /^\+1[2-9]\d{2}[2-9]\d{6}$/;

export function normalizePhone(raw: string): string | null {
  // fast path: already E.164 (most lists are), one test instead of the rewrites below
  if (E164.test(raw)) return raw.charCodeAt(1) !== 49 || NANP.test(raw) ? raw : null;
  // '+44 (0)20 ...': the (0) is the national trunk prefix, not part of the international number
  let s = raw
    .trim()
    .replace(/^(\+\d{1,3})[\s\-.]*\(0\)/, '$1')
    .replace(/[\s\-().]/g, '');
  if (s.startsWith('00')) s = `+${s.slice(2)}`;
  else if (/^\d{10}$/.test(s)) s = `+1${s}`;
  else if (/^1\d{10}$/.test(s)) s = `+${s}`;
  if (!E164.test(s)) return null;
  if (s.startsWith('+1') && !NANP.test(s)) return null;
  return s;
}

/** The outcome of one CSV data row's phone cell. */
export function checkRecipientPhone(raw: string | undefined): { phone: string } | { reason: string } {
  if (raw === undefined || raw.trim() === '') return { reason: BATCH_MESSAGES.missingPhone };
  // a phone written by a CSV export ("'+1415...") reads as the phone
  const phone = normalizePhone(unescapeCsvCell(raw.trim()));
  return phone ? { phone } : { reason: BATCH_MESSAGES.invalidPhone };
}

/**
 * A data row's phone cell as the upload stores it: a phone number (checkRecipientPhone) that the company may
 * call, by the same rules as `POST /call/create` (destinations.ts: blocked ranges, assigned country codes,
 * `allowed` countries). The reason is the refusal the call would get.
 */
export function checkRecipient(raw: string | undefined, allowed: readonly string[]): { phone: string } | { reason: string } {
  const check = checkRecipientPhone(raw);
  if ('reason' in check) return check;
  const refused = destinationRefusal(check.phone, allowed);
  return refused ? { reason: refused } : check;
}

// ---------------------------------------------------------------------------------------------
// Recipients CSV rules, shared by the browser's worker (papaparse) and the server's ingest (csv-parse)
//
// - The file is CSV (a .csv name or a text/csv type) of at most BATCH_CSV_MAX_BYTES bytes.
// - The first record is the header: it must name a `phone_number` column (any case); names are trimmed
//   and may not repeat. Every other named column becomes a dynamic variable {{column}} of the row.
// - A record whose cells are all blank is skipped and not counted.
// - Rows are numbered as records: the header is row 1, the first data record row 2.
// - The phone is normalised to E.164 (normalizePhone); a row that repeats an earlier row's normalised
//   phone is a duplicate (the first one is kept). Reasons: BATCH_MESSAGES.missingPhone, invalidPhone,
//   duplicatePhone.
// - On upload, the server also refuses a phone the company may not call (checkRecipient: the destination
//   policy of destinations.ts, the reason a call there would get). The browser's preview does not know the
//   company's allowed countries; the upload's answer lists those rows.

/** Why a file cannot be a recipients list (too large or not CSV), or null when it may be read. */
export function checkRecipientsFile(file: { name: string; size: number; type: string }): string | null {
  const type = file.type.split(';')[0]?.trim().toLowerCase() ?? '';
  const csv = /\.csv$/i.test(file.name) || type === 'text/csv' || type === 'application/csv';
  if (!csv) return BATCH_MESSAGES.notCsv;
  if (file.size > BATCH_CSV_MAX_BYTES) return BATCH_MESSAGES.tooLarge;
  if (file.size === 0) return BATCH_MESSAGES.emptyFile;
  return null;
}

export interface RecipientsHeader {
  /** trimmed column names, in file order */
  columns: string[];
  phoneIndex: number;
}

/** Reads the header record: its columns and where the phone is, or the reason it is refused. */
export function readRecipientsHeader(record: readonly string[]): RecipientsHeader | { reason: string } {
  const columns = record.map((c) => c.trim());
  const seen = new Set<string>();
  for (const name of columns) {
    if (name === '') continue;
    if (seen.has(name)) return { reason: BATCH_MESSAGES.duplicateColumn(name.slice(0, 64)) };
    seen.add(name);
  }
  const phoneIndex = columns.findIndex((n) => n.toLowerCase() === PHONE_COLUMN);
  if (phoneIndex < 0) return { reason: BATCH_MESSAGES.missingPhoneColumn };
  return { columns, phoneIndex };
}

/** A record whose cells are all blank: skipped, not counted. */
export const isBlankRecord = (record: readonly string[]): boolean => record.every((cell) => cell.trim() === '');

/** The dynamic variables of a data record: every named column but the phone, trimmed. */
export function recipientVariables(header: RecipientsHeader, record: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  header.columns.forEach((name, i) => {
    if (i !== header.phoneIndex && name !== '') out[name] = (record[i] ?? '').trim();
  });
  return out;
}

/** The variables a recipients file offers to the agent, as `{{column}}`. */
export const dynamicVariables = (header: RecipientsHeader): string[] =>
  header.columns.filter((name, i) => i !== header.phoneIndex && name !== '').map((name) => `{{${name}}}`);

/**
 * Average length of one call, used only for the estimate of how long a batch takes:
 * ceil(recipients / concurrency limit) rounds of this many seconds.
 */
export const BATCH_AVG_CALL_SECONDS = 120;

/** Estimated duration (seconds) and cost (USD) of dialling `recipients` with `concurrency` lines. */
export function batchEstimate(recipients: number, concurrency: number): { seconds: number; cost: number } {
  const lines = Math.max(1, Math.floor(concurrency));
  return {
    seconds: Math.ceil(recipients / lines) * BATCH_AVG_CALL_SECONDS,
    cost: Math.round(recipients * BATCH_DIAL_COST * 100) / 100,
  };
}

// ---------------------------------------------------------------------------------------------
// Dialling rules: the calling window, the time zone, attempts and the retry delay

/** One try, or retries of busy and no answer: 2 = one retry. */
export const BATCH_MAX_ATTEMPTS = { min: 1, max: 5, default: 2 } as const;
/** Seconds before a busy or unanswered recipient is called again. */
export const BATCH_RETRY_DELAY_SECONDS = { min: 30, max: 86_400, default: 120 } as const;
export const BATCH_DEFAULT_TIME_ZONE = 'UTC';
/** The self-pause (server/modules/batches/dispatcher.ts): this share of failed calls ... */
export const BATCH_FAILURE_PAUSE = { share: 0.5, minFinished: 4, windowMs: 2 * 60_000 } as const;

/**
 * When a batch may dial: days of the week (0 = Sunday ... 6 = Saturday) and hours, start inclusive, end
 * exclusive ('HH:MM', end may be '24:00'), read in the recipient's time zone (from the number), else the
 * batch's. null = any time.
 */
export interface CallingWindow {
  days: number[];
  start: string;
  end: string;
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** An IANA time zone name the platform's Intl knows ('Europe/London', 'UTC'). */
export function isTimeZone(zone: string): boolean {
  if (zone === '' || zone.length > 64 || /^[+-]/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const zoneClocks = new Map<string, Intl.DateTimeFormat>();
const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** The day of the week (0 = Sunday) and the minute of the day at `at` in `zone`. */
export function localTime(zone: string, at: Date): { day: number; minute: number } {
  let clock = zoneClocks.get(zone);
  if (!clock) {
    clock = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    zoneClocks.set(zone, clock);
  }
  let day = 0;
  let hour = 0;
  let minute = 0;
  for (const part of clock.formatToParts(at)) {
    if (part.type === 'weekday') day = WEEKDAYS.indexOf(part.value);
    else if (part.type === 'hour') hour = Number(part.value) % 24;
    else if (part.type === 'minute') minute = Number(part.value);
  }
  return { day, minute: hour * 60 + minute };
}

/** Whether `at` falls inside the window in `zone` (no window: always). */
export function insideCallingWindow(window: CallingWindow | null, zone: string, at: Date): boolean {
  if (!window) return true;
  const local = localTime(zone, at);
  return window.days.includes(local.day) && local.minute >= minutesOf(window.start) && local.minute < minutesOf(window.end);
}

const HHMM = (max24: boolean) =>
  v.pipe(
    v.string(BATCH_MESSAGES.callingWindowTime),
    v.trim(),
    v.regex(max24 ? /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/ : /^([01]\d|2[0-3]):[0-5]\d$/, BATCH_MESSAGES.callingWindowTime),
  );

export const CallingWindowSchema = v.pipe(
  v.object({
    days: v.pipe(
      v.array(
        v.pipe(
          v.number(BATCH_MESSAGES.callingWindowDays),
          v.integer(BATCH_MESSAGES.callingWindowDays),
          v.minValue(0),
          v.maxValue(6),
        ),
        BATCH_MESSAGES.callingWindowDays,
      ),
      v.minLength(1, BATCH_MESSAGES.callingWindowDays),
      v.maxLength(7, BATCH_MESSAGES.callingWindowDays),
      v.transform((days) => [...new Set(days)].sort((a, b) => a - b)),
    ),
    start: HHMM(false),
    end: HHMM(true),
  }),
  v.forward(
    // only once both times are readable (their own message says what is wrong otherwise)
    v.check((w) => !(minutesOf(w.start) >= minutesOf(w.end)), BATCH_MESSAGES.callingWindowOrder),
    ['end'],
  ),
);

export const TimeZoneSchema = v.pipe(v.string(BATCH_MESSAGES.timeZone), v.trim(), v.check(isTimeZone, BATCH_MESSAGES.timeZone));

/** The dialling rules a batch is created or updated with; every one optional. */
const DialRules = {
  callingWindow: v.optional(v.nullable(CallingWindowSchema)),
  timeZone: v.optional(TimeZoneSchema),
  maxAttempts: v.optional(
    v.pipe(
      v.number(BATCH_MESSAGES.maxAttempts),
      v.integer(BATCH_MESSAGES.maxAttempts),
      v.minValue(BATCH_MAX_ATTEMPTS.min, BATCH_MESSAGES.maxAttempts),
      v.maxValue(BATCH_MAX_ATTEMPTS.max, BATCH_MESSAGES.maxAttempts),
    ),
  ),
  retryDelaySeconds: v.optional(
    v.pipe(
      v.number(BATCH_MESSAGES.retryDelay),
      v.integer(BATCH_MESSAGES.retryDelay),
      v.minValue(BATCH_RETRY_DELAY_SECONDS.min, BATCH_MESSAGES.retryDelay),
      v.maxValue(BATCH_RETRY_DELAY_SECONDS.max, BATCH_MESSAGES.retryDelay),
    ),
  ),
};

/**
 * `PATCH /batch-call/:id`: changes the dialling rules of a batch that has not ended (draft, scheduled,
 * sending, paused); a field left out keeps its value, `callingWindow: null` removes the window.
 */
export const UpdateBatchBodySchema = v.object(DialRules);
export type UpdateBatchBody = v.InferInput<typeof UpdateBatchBodySchema>;

// ---------------------------------------------------------------------------------------------
// Requests

const IsoDateTime = v.pipe(
  v.string(BATCH_MESSAGES.scheduledAtInvalid),
  v.trim(),
  v.regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/, BATCH_MESSAGES.scheduledAtInvalid),
  v.check((s) => !Number.isNaN(Date.parse(s)), BATCH_MESSAGES.scheduledAtInvalid),
  v.transform((s) => new Date(s).toISOString()),
);

export const CreateBatchBodySchema = v.pipe(
  objectRequiring(
    {
      name: v.pipe(
        v.string(BATCH_MESSAGES.nameRequired),
        v.trim(),
        v.nonEmpty(BATCH_MESSAGES.nameRequired),
        v.maxLength(BATCH_NAME_MAX, BATCH_MESSAGES.nameTooLong),
      ),
      /** one of the company's assigned numbers, E.164 */
      fromNumber: v.pipe(
        v.string(BATCH_MESSAGES.fromRequired),
        v.trim(),
        v.nonEmpty(BATCH_MESSAGES.fromRequired),
        v.maxLength(32, BATCH_MESSAGES.fromNotOwned),
      ),
      sendMode: v.picklist(SEND_MODES, BATCH_MESSAGES.sendMode),
      scheduledAt: v.optional(v.nullable(IsoDateTime)),
      status: v.optional(v.picklist(['draft', 'scheduled', 'sending'], BATCH_MESSAGES.status), 'draft'),
      ...DialRules,
    },
    { name: BATCH_MESSAGES.nameRequired, fromNumber: BATCH_MESSAGES.fromRequired, sendMode: BATCH_MESSAGES.sendMode },
  ),
  v.forward(
    v.check((b) => b.status !== 'scheduled' || b.sendMode === 'scheduled', BATCH_MESSAGES.scheduledNeedsMode),
    ['sendMode'],
  ),
  v.forward(
    v.check((b) => b.status !== 'sending' || b.sendMode === 'now', BATCH_MESSAGES.sendingNeedsMode),
    ['sendMode'],
  ),
  v.forward(
    v.check((b) => b.status !== 'scheduled' || !!b.scheduledAt, BATCH_MESSAGES.scheduledAtRequired),
    ['scheduledAt'],
  ),
);
export type CreateBatchBody = v.InferInput<typeof CreateBatchBodySchema>;

export const ScheduleBatchBodySchema = objectRequiring(
  {
    scheduledAt: v.pipe(
      v.string(BATCH_MESSAGES.scheduledAtRequired),
      v.nonEmpty(BATCH_MESSAGES.scheduledAtRequired),
      IsoDateTime,
    ),
  },
  { scheduledAt: BATCH_MESSAGES.scheduledAtRequired },
);
export type ScheduleBatchBody = v.InferInput<typeof ScheduleBatchBodySchema>;

const PositiveInt = (name: string, fallback: number, max: number) =>
  v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,6}$/, `${name} must be a whole number from 1 to ${max}`),
      v.transform(Number),
      v.minValue(1, `${name} must be a whole number from 1 to ${max}`),
      v.maxValue(max, `${name} must be a whole number from 1 to ${max}`),
    ),
    String(fallback),
  );

export const BatchListQuerySchema = v.object({
  page: PositiveInt('page', 1, 100_000),
  limit: PositiveInt('limit', 10, 100),
  status: v.optional(v.picklist(BATCH_STATUSES, 'Unknown status')),
});
export const RecipientsQuerySchema = v.object({
  page: PositiveInt('page', 1, 1_000_000),
  limit: PositiveInt('limit', RECIPIENTS_PREVIEW, 500),
});

// ---------------------------------------------------------------------------------------------
// Responses

export const BatchSchema = v.object({
  _id: v.string(),
  name: v.string(),
  status: v.picklist(BATCH_STATUSES),
  fromNumber: v.string(),
  sendMode: v.picklist(SEND_MODES),
  scheduledAt: v.nullable(v.string()),
  /** valid recipients stored */
  recipients: v.number(),
  invalid: v.number(),
  duplicates: v.number(),
  sent: v.number(),
  createdAt: v.string(),
  updatedAt: v.string(),
  /** dialling rules: null = any time */
  callingWindow: v.nullable(v.object({ days: v.array(v.number()), start: v.string(), end: v.string() })),
  /** IANA zone for recipients whose number tells none */
  timeZone: v.string(),
  maxAttempts: v.number(),
  retryDelaySeconds: v.number(),
  /** why the batch paused itself ("Paused automatically: ..."); null when not, or paused by hand */
  pausedReason: v.nullable(v.string()),
  /** a completed batch whose every recipient failed (no call went through): not shown as a success */
  allFailed: v.optional(v.boolean(), false),
});
export type Batch = v.InferOutput<typeof BatchSchema>;

// ---------------------------------------------------------------------------------------------
// Live progress: the recipients are the dispatcher's queue, each in one of these states

export const RECIPIENT_STATES = ['queued', 'calling', 'completed', 'busy', 'no_answer', 'failed', 'voicemail'] as const;
export type RecipientState = (typeof RECIPIENT_STATES)[number];
export const RECIPIENT_STATE_LABELS: Record<RecipientState, string> = {
  queued: 'Queued',
  calling: 'Calling',
  completed: 'Completed',
  busy: 'Busy',
  no_answer: 'No answer',
  failed: 'Failed',
  voicemail: 'Voicemail',
};
/** The detail answers at most this many of the batch's calls (rows), with their total. */
export const BATCH_CALLS_PREVIEW = 100;

export const BatchProgressSchema = v.object({
  /** recipients per state */
  counts: v.object(
    Object.fromEntries(RECIPIENT_STATES.map((s) => [s, v.number()])) as Record<RecipientState, v.NumberSchema<undefined>>,
  ),
  /** every recipient of the batch's list */
  total: v.number(),
  /** recipients with an outcome (neither queued nor calling) */
  finished: v.number(),
});
export type BatchProgress = v.InferOutput<typeof BatchProgressSchema>;

/** A recipient with its dialling so far: its state and attempts, and its last call when it has one. */
export const BatchCallRowSchema = v.object({
  row: v.number(),
  phone: v.string(),
  /** one of RECIPIENT_STATES (a string, so a newer server's state still reads) */
  state: v.string(),
  attempts: v.number(),
  callId: v.nullable(v.string()),
  /** the call's status (registered, ongoing, ended, error) when there is a call */
  callStatus: v.nullable(v.string()),
  /** seconds, when the call has ended */
  duration: v.nullable(v.number()),
  /** why the last dial was refused or failed before the carrier rang (e.g. the carrier not connected) */
  reason: v.optional(v.nullable(v.string()), null),
});
export type BatchCallRow = v.InferOutput<typeof BatchCallRowSchema>;

/** Recipients still to finish: queued or calling. */
export const finishedOf = (counts: Record<RecipientState, number>, total: number): number =>
  Math.max(0, total - counts.queued - counts.calling);

export const RecipientSchema = v.object({
  row: v.number(),
  phone: v.string(),
  variables: v.record(v.string(), v.string()),
});
export type Recipient = v.InferOutput<typeof RecipientSchema>;

export const BatchResponseSchema = v.object({ success: v.boolean(), msg: v.optional(v.string()), batch: BatchSchema });
export type BatchResponse = v.InferOutput<typeof BatchResponseSchema>;

export const BatchDetailResponseSchema = v.object({
  success: v.boolean(),
  batch: BatchSchema,
  /** the first RECIPIENTS_PREVIEW recipients in file order */
  recipients: v.array(RecipientSchema),
  /** dials x BATCH_DIAL_COST, USD */
  estimatedCost: v.number(),
  concurrencyLimit: v.number(),
  /** counts per state (live while the batch is sending) */
  progress: BatchProgressSchema,
  /** the batch's recipients with their calls: the first BATCH_CALLS_PREVIEW that have been dialled, and how many have */
  calls: v.object({ rows: v.array(BatchCallRowSchema), total: v.number() }),
});
export type BatchDetailResponse = v.InferOutput<typeof BatchDetailResponseSchema>;

export const BatchListResponseSchema = v.object({
  success: v.boolean(),
  data: v.object({ batches: v.array(BatchSchema), total: v.number() }),
});
export type BatchListResponse = v.InferOutput<typeof BatchListResponseSchema>;

export const RecipientsResponseSchema = v.object({
  success: v.boolean(),
  data: v.object({ recipients: v.array(RecipientSchema), total: v.number() }),
});
export type RecipientsResponse = v.InferOutput<typeof RecipientsResponseSchema>;

export const UploadResponseSchema = v.object({
  success: v.boolean(),
  msg: v.string(),
  /** data rows read (blank lines skipped) */
  total: v.number(),
  valid: v.number(),
  invalid: v.number(),
  duplicates: v.number(),
  /** the first BATCH_ERRORS_MAX invalid or duplicate rows */
  errors: v.array(v.object({ row: v.number(), reason: v.string() })),
  batch: BatchSchema,
});
export type UploadResponse = v.InferOutput<typeof UploadResponseSchema>;

export const BATCH_PATHS = {
  list: '/batch-call',
  create: '/batch-call',
  template: '/batch-call/template.csv',
  one: (id: string) => `/batch-call/${encodeURIComponent(id)}`,
  recipients: (id: string) => `/batch-call/${encodeURIComponent(id)}/recipients`,
  send: (id: string) => `/batch-call/${encodeURIComponent(id)}/send`,
  schedule: (id: string) => `/batch-call/${encodeURIComponent(id)}/schedule`,
  cancel: (id: string) => `/batch-call/${encodeURIComponent(id)}/cancel`,
  pause: (id: string) => `/batch-call/${encodeURIComponent(id)}/pause`,
  resume: (id: string) => `/batch-call/${encodeURIComponent(id)}/resume`,
  /** POST: a signed link (valid a few minutes) that downloads the recipients with their outcome */
  recipientsExport: (id: string) => `/batch-call/${encodeURIComponent(id)}/recipients/export`,
  /** GET (bearer, or the signed link's token): the recipients with their outcome as CSV, streamed */
  recipientsCsv: (id: string) => `/batch-call/${encodeURIComponent(id)}/recipients.csv`,
} as const;

export const RecipientsExportResponseSchema = v.object({
  success: v.boolean(),
  data: v.object({ url: v.string() }),
});

/** The header of the recipients export; the upload's own columns follow Phone Number. */
export const RECIPIENTS_EXPORT_COLUMNS = {
  before: ['Row', 'Phone Number'],
  after: ['State', 'Attempts', 'Call ID', 'Call Status', 'Duration', 'Disconnection Reason', 'Failure Reason'],
} as const;
