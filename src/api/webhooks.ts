/**
 * Typed calls of the webhook resource (src/api/contract/webhook.ts): the company-wide webhook,
 * the signing secret (its answer is the only time it is shown: never cached), the delivery log and Resend.
 * The settings and the log are cached under the `webhook` prefix; every change invalidates them.
 */
import { type QueryCache, queryCache } from './cache';
import { type ApiClient, api, type CallOptions } from './client';
import {
  DeliveryDetailResponseSchema,
  DeliveryListResponseSchema,
  DeliveryResendResponseSchema,
  WEBHOOK_PATHS,
  WebhookSaveResponseSchema,
  WebhookSecretResponseSchema,
  WebhookSettingsResponseSchema,
} from './contract/webhook';

export const WEBHOOK_CACHE_PREFIX = 'webhook';
export const WEBHOOK_SETTINGS_KEY = 'webhook-settings';
export const deliveriesKey = (page: number, webhook?: string) =>
  `webhook-deliveries?page=${page}${webhook ? `&webhook=${encodeURIComponent(webhook)}` : ''}`;

export function webhooksApi(client: ApiClient, cache: QueryCache) {
  const changed = <T>(result: T): T => {
    cache.invalidate(WEBHOOK_CACHE_PREFIX);
    return result;
  };
  return {
    settings: (options?: CallOptions) =>
      cache.load(WEBHOOK_SETTINGS_KEY, () => client.get(WEBHOOK_PATHS.settings, WebhookSettingsResponseSchema, options)),
    save: async (url: string, options?: CallOptions) =>
      changed(await client.put(WEBHOOK_PATHS.settings, WebhookSaveResponseSchema, { url }, options)),
    rotateSecret: async (options?: CallOptions) =>
      changed(await client.post(WEBHOOK_PATHS.secret, WebhookSecretResponseSchema, {}, options)),
    /** the delivery log, newest first, 10 a page; `webhook`: 'company' or an agent id (all when absent) */
    deliveries: (page: number, webhook?: string, options?: CallOptions) =>
      cache.load(deliveriesKey(page, webhook), () =>
        client.get(WEBHOOK_PATHS.deliveries, DeliveryListResponseSchema, {
          query: { page: String(page), limit: '10', ...(webhook ? { webhook } : {}) },
          ...options,
        }),
      ),
    delivery: (id: string, options?: CallOptions) =>
      client.get(WEBHOOK_PATHS.delivery(id), DeliveryDetailResponseSchema, options),
    resend: async (id: string, options?: CallOptions) =>
      changed(await client.post(WEBHOOK_PATHS.resend(id), DeliveryResendResponseSchema, {}, options)),
  };
}

export const webhooks = webhooksApi(api, queryCache);
