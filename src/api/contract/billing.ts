/**
 * Contract of the billing calls. Imported by the client AND the server.
 *
 * Statements are computed, never stored: one per calendar month (UTC), from the month the company was
 * created (or of its first call, if earlier) to the current month, newest first.
 * - Phone Number: PHONE_NUMBER_MONTHLY_FEE for every number the company holds that was assigned to it (or,
 *   without an assignment date, created) on or before the month's last day.
 * - Voice Engine and LLM: the month's call cost (sum of `calls.cost`) split with fixed shares,
 *   VOICE_ENGINE_SHARE for speech (recognition + synthesis + telephony) and the rest for the LLM. The LLM
 *   share is computed as the remainder, so the items always add up to the call cost to the cent.
 * Status is 'Open' for the current month and 'Closed' for past months. Parley takes no payments (the
 * providers bill the company directly for their keys), so no month is ever 'Paid' or due to Parley.
 *
 * Paths: GET /billing/statements, GET /billing/statements/:id (id = 'yyyy-MM'; the printable invoice),
 * GET /billing/usage?month=yyyy-MM, GET|PUT /billing/limits, GET|PUT /billing/contact.
 *
 * Limits also hold `allowedCountries`: the countries (ISO 3166 alpha-2) outbound calls may go to, [] = the
 * countries of the company's own numbers (answered as `numberCountries`); the rules are destinations.ts.
 * A PUT without `allowedCountries` keeps the stored ones.
 */
import * as v from 'valibot';
import { CALLABLE_COUNTRIES, DESTINATION_MESSAGES } from './destinations';
import { MONTH_INVALID, MONTH_TOO_EARLY, MonthSchema } from './month';
import { groupThousands } from './number';
import { objectRequiring } from './required';

export { MonthSchema };

export const PHONE_NUMBER_MONTHLY_FEE = 2;
export const VOICE_ENGINE_SHARE = 0.6;
export const LLM_SHARE = 1 - VOICE_ENGINE_SHARE;
export const STATEMENT_ITEMS = ['Phone Number', 'Voice Engine', 'LLM'] as const;

export const CONCURRENCY_LIMIT_MIN = 1;
export const CONCURRENCY_LIMIT_MAX = 100;
export const CONCURRENCY_LIMIT_DEFAULT = 10;
export const MONTHLY_SPEND_LIMIT_DEFAULT = 500;
export const MONTHLY_SPEND_LIMIT_MAX = 1_000_000;

export const BILLING_MESSAGES = {
  concurrencyLimit: `Concurrency limit must be a whole number from ${CONCURRENCY_LIMIT_MIN} to ${CONCURRENCY_LIMIT_MAX}`,
  monthlySpendLimit: 'Monthly spend limit must be 0 or more',
  monthlySpendLimitMax: `Monthly spend limit must be at most $${groupThousands(MONTHLY_SPEND_LIMIT_MAX)}`,
  monthlySpendLimitFormat: 'Monthly spend limit must be an amount in dollars, like 250 or 99.50',
  limitsSaved: 'Limits updated.',
  contactSaved: 'Billing information updated.',
  contactNameRequired: 'Name is required',
  contactEmailRequired: 'Email is required',
  contactEmailInvalid: 'Invalid email',
  tooLong: (field: string, max: number) => `${field} must be at most ${max} characters`,
  monthInvalid: MONTH_INVALID,
  monthTooEarly: MONTH_TOO_EARLY,
  statementNotFound: 'Statement not found',
  legacyNote: 'Earlier statements are available in the legacy dashboard.',
  paymentsOutOfScope: 'Card payments are not available yet. Your billing contact is used on invoices.',
  paymentMethodsTitle: 'Payment methods',
  paymentMethodsHowPaid:
    'Parley does not charge a card. Calls, voices and language models are billed to you by each provider, under the keys you connect on the Providers page.',
} as const;

// ---------------------------------------------------------------------------------------------
// Statements

export const StatementItemSchema = v.object({
  name: v.picklist(STATEMENT_ITEMS),
  /** USD, 2 decimals */
  amount: v.number(),
  details: v.string(),
});
export type StatementItem = v.InferOutput<typeof StatementItemSchema>;

export const StatementSchema = v.object({
  /** 'yyyy-MM' */
  id: v.string(),
  /** e.g. 'November 2026' */
  title: v.string(),
  /** first and last day of the month, yyyy-MM-dd */
  periodStart: v.string(),
  periodEnd: v.string(),
  /** USD, 2 decimals: the sum of the items */
  amount: v.number(),
  /** e.g. '42 calls · 120.5 min · 2 numbers' */
  details: v.string(),
  status: v.picklist(['Open', 'Closed']),
  items: v.array(StatementItemSchema),
});
export type Statement = v.InferOutput<typeof StatementSchema>;

export const StatementsResponseSchema = v.object({ success: v.boolean(), statements: v.array(StatementSchema) });
export type StatementsResponse = v.InferOutput<typeof StatementsResponseSchema>;

export const BillingContactSchema = objectRequiring(
  {
    name: v.pipe(
      v.string(BILLING_MESSAGES.contactNameRequired),
      v.trim(),
      v.nonEmpty(BILLING_MESSAGES.contactNameRequired),
      v.maxLength(200, BILLING_MESSAGES.tooLong('Name', 200)),
    ),
    email: v.pipe(
      v.string(BILLING_MESSAGES.contactEmailRequired),
      v.trim(),
      v.nonEmpty(BILLING_MESSAGES.contactEmailRequired),
      v.maxLength(254, BILLING_MESSAGES.tooLong('Email', 254)),
      v.email(BILLING_MESSAGES.contactEmailInvalid),
    ),
    address: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(1000, BILLING_MESSAGES.tooLong('Address', 1000))), ''),
    taxId: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(64, BILLING_MESSAGES.tooLong('Tax ID', 64))), ''),
  },
  { name: BILLING_MESSAGES.contactNameRequired, email: BILLING_MESSAGES.contactEmailRequired },
);
export type BillingContact = v.InferOutput<typeof BillingContactSchema>;

/** GET /billing/statements/:id: everything the printable invoice page shows. */
export const InvoiceResponseSchema = v.object({
  success: v.boolean(),
  invoice: v.object({
    /** e.g. 'INV-202611-1A2B3C' */
    number: v.string(),
    /** yyyy-MM-dd: the first day after the period (or today for the open month) */
    issuedOn: v.string(),
    company: v.object({ _id: v.string(), name: v.string() }),
    billTo: v.object({ name: v.string(), email: v.string(), address: v.string(), taxId: v.string() }),
    statement: StatementSchema,
  }),
});
export type InvoiceResponse = v.InferOutput<typeof InvoiceResponseSchema>;

// ---------------------------------------------------------------------------------------------
// Usage

export const UsageQuerySchema = v.object({ month: v.optional(MonthSchema) });

const UsageFigures = { minutes: v.number(), cost: v.number(), calls: v.number() };
export const UsageResponseSchema = v.object({
  success: v.boolean(),
  month: v.string(),
  /** every day of the month, yyyy-MM-dd, minutes rounded to 0.1, cost to the cent */
  days: v.array(v.object({ date: v.string(), ...UsageFigures })),
  totals: v.object(UsageFigures),
  /** agentId null = calls without an agent; agentName '(deleted agent)' for agents that no longer exist */
  byAgent: v.array(v.object({ agentId: v.nullable(v.string()), agentName: v.string(), ...UsageFigures })),
});
export type UsageResponse = v.InferOutput<typeof UsageResponseSchema>;

// ---------------------------------------------------------------------------------------------
// Limits and contact

export const ALLOWED_COUNTRIES_MAX = 100;

const COUNTRY_CODE = /^[A-Z]{2}$/;

/**
 * ISO 3166 alpha-2 codes of countries Parley can call: trimmed, upper-cased, without repeats, sorted. The
 * checks are on the whole list, so a form shows their message on its one field.
 */
export const AllowedCountriesSchema = v.pipe(
  v.array(v.string(DESTINATION_MESSAGES.allowedCountriesFormat), DESTINATION_MESSAGES.allowedCountriesFormat),
  v.transform((codes) => codes.map((c) => c.trim().toUpperCase())),
  v.check((codes) => codes.every((c) => COUNTRY_CODE.test(c)), DESTINATION_MESSAGES.allowedCountriesFormat),
  v.check(
    (codes) => codes.every((c) => CALLABLE_COUNTRIES.has(c)),
    (issue) =>
      DESTINATION_MESSAGES.allowedCountryUnknown(
        (issue.input as string[]).find((c) => !CALLABLE_COUNTRIES.has(c))?.slice(0, 8) ?? '',
      ),
  ),
  v.transform((codes) => [...new Set(codes)].sort()),
  v.maxLength(ALLOWED_COUNTRIES_MAX, DESTINATION_MESSAGES.allowedCountriesMax),
);

export const BillingLimitsSchema = objectRequiring(
  {
    concurrencyLimit: v.pipe(
      v.number(BILLING_MESSAGES.concurrencyLimit),
      v.integer(BILLING_MESSAGES.concurrencyLimit),
      v.minValue(CONCURRENCY_LIMIT_MIN, BILLING_MESSAGES.concurrencyLimit),
      v.maxValue(CONCURRENCY_LIMIT_MAX, BILLING_MESSAGES.concurrencyLimit),
    ),
    /** USD; stored in cents */
    monthlySpendLimit: v.pipe(
      v.number(BILLING_MESSAGES.monthlySpendLimit),
      v.finite(BILLING_MESSAGES.monthlySpendLimit),
      v.minValue(0, BILLING_MESSAGES.monthlySpendLimit),
      v.maxValue(MONTHLY_SPEND_LIMIT_MAX, BILLING_MESSAGES.monthlySpendLimitMax),
    ),
    /** ISO 3166 alpha-2; [] = the countries of the company's numbers; absent in a PUT = unchanged */
    allowedCountries: v.optional(AllowedCountriesSchema),
  },
  { concurrencyLimit: BILLING_MESSAGES.concurrencyLimit, monthlySpendLimit: BILLING_MESSAGES.monthlySpendLimit },
);
export type BillingLimitsBody = v.InferOutput<typeof BillingLimitsSchema>;
export type BillingLimits = BillingLimitsBody & { allowedCountries: string[] };

/** The Limits form: what the two inputs hold (text) in, the PUT /billing/limits body out. */
export const BillingLimitsFormSchema = objectRequiring(
  {
    concurrencyLimit: v.pipe(
      v.string(BILLING_MESSAGES.concurrencyLimit),
      v.trim(),
      v.regex(/^\d{1,6}$/, BILLING_MESSAGES.concurrencyLimit),
      v.transform(Number),
      BillingLimitsSchema.entries.concurrencyLimit,
    ),
    monthlySpendLimit: v.pipe(
      v.string(BILLING_MESSAGES.monthlySpendLimitFormat),
      v.trim(),
      v.regex(/^\$?\d{1,9}(\.\d{1,2})?$/, BILLING_MESSAGES.monthlySpendLimitFormat),
      v.transform((s) => Number(s.replace('$', ''))),
      BillingLimitsSchema.entries.monthlySpendLimit,
    ),
    /** 'US, GB' (commas or spaces between); '' = the countries of the company's numbers; absent = unchanged */
    allowedCountries: v.optional(
      v.pipe(
        v.string(DESTINATION_MESSAGES.allowedCountriesFormat),
        v.transform((s) => s.split(/[\s,;]+/).filter((c) => c !== '')),
        AllowedCountriesSchema,
      ),
    ),
  },
  { concurrencyLimit: BILLING_MESSAGES.concurrencyLimit, monthlySpendLimit: BILLING_MESSAGES.monthlySpendLimitFormat },
);

/** The limits as the form's text inputs show them. */
export const limitsToForm = (limits: BillingLimits) => ({
  concurrencyLimit: String(limits.concurrencyLimit),
  monthlySpendLimit: limits.monthlySpendLimit.toFixed(2),
  allowedCountries: limits.allowedCountries.join(', '),
});

export const LimitsResponseSchema = v.object({
  success: v.boolean(),
  msg: v.optional(v.string()),
  limits: v.object({ ...BillingLimitsSchema.entries, allowedCountries: AllowedCountriesSchema }),
  /** spend of the current month so far (USD), for the form's hint */
  monthToDateSpend: v.number(),
  /** the countries of the company's own numbers: the allowed countries while none are set */
  numberCountries: v.array(v.string()),
});
export type LimitsResponse = v.InferOutput<typeof LimitsResponseSchema>;

export const ContactResponseSchema = v.object({
  success: v.boolean(),
  msg: v.optional(v.string()),
  contact: v.object({ name: v.string(), email: v.string(), address: v.string(), taxId: v.string() }),
});
export type ContactResponse = v.InferOutput<typeof ContactResponseSchema>;

export const BILLING_PATHS = {
  statements: '/billing/statements',
  statement: (id: string) => `/billing/statements/${encodeURIComponent(id)}`,
  usage: '/billing/usage',
  limits: '/billing/limits',
  contact: '/billing/contact',
} as const;
