/**
 * Typed calls of the provider resource: the paged catalogue, the connection
 * status, one provider's fields (masked), connect, update and disconnect. The catalogue and the status are
 * cached (`provider` prefix of the query cache); every change invalidates them, so the grid on screen
 * reloads. Fields are never cached: the dialog always shows what the server holds now.
 */

import { type QueryCache, queryCache } from './cache';
import { type ApiClient, api, type CallOptions } from './client';
import {
  type ConnectProviderBody,
  PROVIDER_PATHS,
  ProviderDisconnectResponseSchema,
  ProviderFieldsResponseSchema,
  ProviderListResponseSchema,
  ProviderSaveResponseSchema,
  ProviderStatusResponseSchema,
  type UpdateProviderBody,
} from './contract/provider';

export interface ProviderListParams {
  /** 1-based, as the server takes it */
  page: number;
  limit: number;
  search?: string;
}

export type ProviderCallOptions = CallOptions;

/** Cache key prefix of everything provider-shaped (the catalogue pages and the status). */
export const PROVIDER_CACHE_PREFIX = 'provider';
const listQuery = (q: ProviderListParams): Record<string, string> => ({
  page: String(q.page),
  limit: String(q.limit),
  ...(q.search ? { search: q.search } : {}),
});
export const providerListKey = (q: ProviderListParams) => `providers?${new URLSearchParams(listQuery(q)).toString()}`;
export const PROVIDER_STATUS_KEY = 'provider-status';

export function providersApi(client: ApiClient, cache: QueryCache) {
  const changed = <T>(result: T): T => {
    cache.invalidate(PROVIDER_CACHE_PREFIX);
    return result;
  };
  return {
    /** GET /user/providers?page&limit&search (cached by its parameters; always asks the server) */
    list: (q: ProviderListParams, options?: ProviderCallOptions) =>
      cache.load(providerListKey(q), () =>
        client.get(PROVIDER_PATHS.list, ProviderListResponseSchema, { query: listQuery(q), ...options }),
      ),

    /** GET /provider?name= : every provider's connection status (sent with an empty name, as the spec does) */
    status: (options?: ProviderCallOptions) =>
      cache.load(PROVIDER_STATUS_KEY, () => client.get(`${PROVIDER_PATHS.status}?name=`, ProviderStatusResponseSchema, options)),

    /** GET /provider/fields?name= : the fields, '' when not connected, else the mask of the stored value */
    fields: (name: string, options?: ProviderCallOptions) =>
      client.get(PROVIDER_PATHS.fields, ProviderFieldsResponseSchema, { query: { name }, ...options }),

    /** POST /provider/values {name, keys} */
    connect: async (body: ConnectProviderBody, options?: ProviderCallOptions) =>
      changed(await client.post(PROVIDER_PATHS.connect, ProviderSaveResponseSchema, { ...body }, options)),

    /** PUT /provider/{id} {keys}: a value sent back as its mask keeps the stored secret */
    update: async (id: string, body: UpdateProviderBody, options?: ProviderCallOptions) =>
      changed(await client.put(PROVIDER_PATHS.update(id), ProviderSaveResponseSchema, { ...body }, options)),

    /** DELETE /provider/disconnect {name} */
    disconnect: async (name: string, options?: ProviderCallOptions) =>
      changed(await client.delete(PROVIDER_PATHS.disconnect, ProviderDisconnectResponseSchema, { ...options, body: { name } })),
  };
}

export type ProvidersApi = ReturnType<typeof providersApi>;

export const providers = providersApi(api, queryCache);
