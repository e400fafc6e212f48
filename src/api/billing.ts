/**
 * Typed calls of the billing resource: statements and the printable invoice, usage per month,
 * limits and the billing contact. Saving limits or the contact invalidates everything billing-shaped in
 * the query cache (`billing` prefix), so screens showing them reload.
 */
import { type QueryCache, queryCache } from './cache';
import { type ApiClient, api } from './client';
import {
  BILLING_PATHS,
  type BillingContact,
  type BillingLimitsBody,
  ContactResponseSchema,
  InvoiceResponseSchema,
  LimitsResponseSchema,
  StatementsResponseSchema,
  UsageResponseSchema,
} from './contract/billing';

export interface BillingCallOptions {
  /** show the automatic 'Error' toast for a server msg (default true) */
  notify?: boolean;
  signal?: AbortSignal;
}

export const BILLING_CACHE_PREFIX = 'billing';
export const billingKeys = {
  statements: 'billing:statements',
  invoice: (month: string) => `billing:invoice:${month}`,
  usage: (month: string) => `billing:usage:${month}`,
  limits: 'billing:limits',
  contact: 'billing:contact',
} as const;

export function billingApi(client: ApiClient, cache: QueryCache) {
  const changed = <T>(result: T): T => {
    cache.invalidate(BILLING_CACHE_PREFIX);
    return result;
  };
  return {
    /** GET /billing/statements: one per month, newest first */
    statements: (options?: BillingCallOptions) =>
      cache.load(billingKeys.statements, () => client.get(BILLING_PATHS.statements, StatementsResponseSchema, options)),

    /** GET /billing/statements/{yyyy-MM}: the printable invoice */
    invoice: (month: string, options?: BillingCallOptions) =>
      cache.load(billingKeys.invoice(month), () => client.get(BILLING_PATHS.statement(month), InvoiceResponseSchema, options)),

    /** GET /billing/usage?month=yyyy-MM */
    usage: (month: string, options?: BillingCallOptions) =>
      cache.load(billingKeys.usage(month), () =>
        client.get(BILLING_PATHS.usage, UsageResponseSchema, { query: { month }, ...options }),
      ),

    limits: (options?: BillingCallOptions) =>
      cache.load(billingKeys.limits, () => client.get(BILLING_PATHS.limits, LimitsResponseSchema, options)),

    saveLimits: async (limits: BillingLimitsBody, options?: BillingCallOptions) =>
      changed(await client.put(BILLING_PATHS.limits, LimitsResponseSchema, { ...limits }, options)),

    contact: (options?: BillingCallOptions) =>
      cache.load(billingKeys.contact, () => client.get(BILLING_PATHS.contact, ContactResponseSchema, options)),

    saveContact: async (contact: BillingContact, options?: BillingCallOptions) =>
      changed(await client.put(BILLING_PATHS.contact, ContactResponseSchema, { ...contact }, options)),
  };
}

export type BillingApi = ReturnType<typeof billingApi>;

export const billing = billingApi(api, queryCache);
