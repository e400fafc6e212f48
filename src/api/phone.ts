/**
 * Typed calls of the phone-number resources (the specification's "Phone numbers"; contract in
 * ./contract/phone.ts): the Available and Assigned tabs, number requests, and the company's numbers
 * (list, read, create, update, assign, delete). Lists are cached by their parameters; every change
 * (a request, a create, an update, a delete) invalidates every phone-number list and number, so the
 * tabs and the Call History filter dialog reload.
 *
 *   const { data } = await phone.assigned({ page: 0, limit: 10 });          // page is ZERO-based
 *   await phone.request('+14155550123');                                    // 'Request Sent'
 *   await phone.update(id, assignPatch({ agent_id, call_type: 'inbound' })); // 'Phone number agents updated'
 */

import { type QueryCache, queryCache } from './cache';
import { type ApiClient, api, type CallOptions } from './client';
import {
  CarrierNumberListResponseSchema,
  FreeNumberListResponseSchema,
  type NumberImportBody,
  NumberImportResponseSchema,
  NumberRequestResponseSchema,
  PHONE_PATHS,
  type PhoneListParams,
  PhoneNumberDeleteResponseSchema,
  type PhoneNumberFormInput,
  PhoneNumberListResponseSchema,
  PhoneNumberResponseSchema,
  type PhoneNumberUpdateInput,
  phoneListParams,
  TelephonyStatusResponseSchema,
} from './contract/phone';

export type { PhoneListParams };

export type PhoneCallOptions = CallOptions;

/** Cache key prefix of everything phone-number shaped (both tabs, GET /number and single numbers). */
export const PHONE_CACHE_PREFIX = 'phone';
const listKey = (which: 'free' | 'assigned' | 'numbers', q: PhoneListParams) =>
  `${PHONE_CACHE_PREFIX}:${which}?${new URLSearchParams(phoneListParams(q)).toString()}`;
export const freeNumbersKey = (q: PhoneListParams) => listKey('free', q);
export const assignedNumbersKey = (q: PhoneListParams) => listKey('assigned', q);
export const companyNumbersKey = (q: PhoneListParams) => listKey('numbers', q);
export const TELEPHONY_STATUS_KEY = `${PHONE_CACHE_PREFIX}:telephony-status`;
export const phoneNumberKey = (id: string) => `${PHONE_CACHE_PREFIX}:number:${id}`;

export function phoneApi(client: ApiClient, cache: QueryCache) {
  const changed = <T>(result: T): T => {
    cache.invalidate(PHONE_CACHE_PREFIX);
    return result;
  };
  return {
    /** GET /phone/telephony-status: whether the carriers can reach this server (a warning when not) */
    telephonyStatus: (options?: PhoneCallOptions) =>
      cache.load(TELEPHONY_STATUS_KEY, () => client.get(PHONE_PATHS.telephonyStatus, TelephonyStatusResponseSchema, options)),
    /** GET /phone/free: the pool, with `requested` on the numbers the company asked for */
    free: (q: PhoneListParams = {}, options?: PhoneCallOptions) =>
      cache.load(freeNumbersKey(q), () =>
        client.get(PHONE_PATHS.free, FreeNumberListResponseSchema, { query: phoneListParams(q), ...options }),
      ),

    /** GET /phone/assigned: the company's numbers (full records) */
    assigned: (q: PhoneListParams = {}, options?: PhoneCallOptions) =>
      cache.load(assignedNumbersKey(q), () =>
        client.get(PHONE_PATHS.assigned, PhoneNumberListResponseSchema, { query: phoneListParams(q), ...options }),
      ),

    /** GET /number/: the company's numbers; with empty params ALL of them (the filter dialog's list) */
    numbers: (q: PhoneListParams = {}, options?: PhoneCallOptions) =>
      cache.load(companyNumbersKey(q), () =>
        client.get(PHONE_PATHS.numbers, PhoneNumberListResponseSchema, { query: phoneListParams(q), ...options }),
      ),

    /** GET /number/{id} */
    get: (id: string, options?: PhoneCallOptions) =>
      cache.load(phoneNumberKey(id), () => client.get(PHONE_PATHS.one(id), PhoneNumberResponseSchema, options)),

    /** POST /request/ {phone}: idempotent (and takes an idempotencyKey); 404 when the number is no longer free */
    request: async (phone: string, options?: PhoneCallOptions) =>
      changed(await client.post(PHONE_PATHS.request, NumberRequestResponseSchema, { phone }, options)),

    /** POST /number/create: a number the company brings itself (pass the same idempotencyKey when retrying) */
    create: async (body: PhoneNumberFormInput, options?: PhoneCallOptions) =>
      changed(await client.post(PHONE_PATHS.create, PhoneNumberResponseSchema, { ...body }, options)),

    /** PUT /number/{id} with any subset of the form's fields (the assign dialog: `assignPatch(form)`) */
    update: async (id: string, body: PhoneNumberUpdateInput, options?: PhoneCallOptions) =>
      changed(await client.put(PHONE_PATHS.one(id), PhoneNumberResponseSchema, { ...body }, options)),

    /** GET /number/import/{provider}: the numbers of the company's own Twilio or Plivo account (never cached) */
    carrierNumbers: (provider: string, options?: PhoneCallOptions) =>
      client.get(PHONE_PATHS.importList(provider), CarrierNumberListResponseSchema, options),

    /** POST /number/import: the chosen numbers, pointed at Parley and added as the company's own */
    importNumbers: async (body: NumberImportBody, options?: PhoneCallOptions) =>
      changed(await client.post(PHONE_PATHS.import, NumberImportResponseSchema, { ...body }, options)),

    /** DELETE /number/{id}: a pool number returns to the pool, a company's own is removed */
    remove: async (id: string, options?: PhoneCallOptions) =>
      changed(await client.delete(PHONE_PATHS.one(id), PhoneNumberDeleteResponseSchema, options)),
  };
}

export type PhoneApi = ReturnType<typeof phoneApi>;

export const phone = phoneApi(api, queryCache);
