/**
 * Typed calls of the batch-call resource. Every change (create, upload, send, schedule, cancel) invalidates the `batch` prefix of
 * the query cache, so the list and the detail on screen reload.
 */
import { type QueryCache, queryCache } from './cache';
import { type ApiClient, api, type CallOptions } from './client';
import {
  BATCH_PATHS,
  BatchDetailResponseSchema,
  BatchListResponseSchema,
  BatchResponseSchema,
  type CreateBatchBody,
  RecipientsExportResponseSchema,
  RecipientsResponseSchema,
  type UpdateBatchBody,
  UploadResponseSchema,
} from './contract/batch';

export type BatchCallOptions = Omit<CallOptions, 'idempotencyKey'>;

/** The upload streams up to 50 MB: give it longer than a form's request. */
export const UPLOAD_TIMEOUT_MS = 10 * 60_000;

export const BATCH_CACHE_PREFIX = 'batch';
/** Batch calls per page of the list. */
export const BATCH_PAGE_SIZE = 10;
export const batchKeys = {
  list: (page: number, limit: number) => `batches?page=${page}&limit=${limit}`,
  one: (id: string) => `batch:${id}`,
  recipients: (id: string, page: number, limit: number) => `batch:${id}:recipients?page=${page}&limit=${limit}`,
} as const;

export function batchesApi(client: ApiClient, cache: QueryCache) {
  const changed = <T>(result: T): T => {
    cache.invalidate(BATCH_CACHE_PREFIX);
    return result;
  };
  return {
    /** GET /batch-call?page&limit (page 1-based), newest first */
    list: (page: number, limit: number, options?: BatchCallOptions) =>
      cache.load(batchKeys.list(page, limit), () =>
        client.get(BATCH_PATHS.list, BatchListResponseSchema, { query: { page, limit }, ...options }),
      ),

    /** GET /batch-call/{id}: the batch with its first recipients, estimate and concurrency limit */
    get: (id: string, options?: BatchCallOptions) =>
      cache.load(batchKeys.one(id), () => client.get(BATCH_PATHS.one(id), BatchDetailResponseSchema, options)),

    recipients: (id: string, page: number, limit: number, options?: BatchCallOptions) =>
      cache.load(batchKeys.recipients(id, page, limit), () =>
        client.get(BATCH_PATHS.recipients(id), RecipientsResponseSchema, { query: { page, limit }, ...options }),
      ),

    /** POST /batch-call with the Idempotency-Key: a repeat answers the batch the first request created */
    create: async (body: CreateBatchBody, idempotencyKey: string, options?: BatchCallOptions) =>
      changed(await client.post(BATCH_PATHS.create, BatchResponseSchema, { ...body }, { ...options, idempotencyKey })),

    /** POST /batch-call/{id}/recipients with the file itself as text/csv (streamed by the browser) */
    upload: async (id: string, file: Blob, options?: BatchCallOptions) =>
      changed(
        await client.post(BATCH_PATHS.recipients(id), UploadResponseSchema, file, {
          ...options,
          headers: { 'Content-Type': 'text/csv' },
          timeout: UPLOAD_TIMEOUT_MS,
        }),
      ),

    send: async (id: string, options?: BatchCallOptions) =>
      changed(await client.post(BATCH_PATHS.send(id), BatchResponseSchema, undefined, options)),

    /** `scheduledAt`: ISO-8601 with an offset, in the future */
    schedule: async (id: string, scheduledAt: string, options?: BatchCallOptions) =>
      changed(await client.post(BATCH_PATHS.schedule(id), BatchResponseSchema, { scheduledAt }, options)),

    /** PATCH /batch-call/{id}: the dialling rules (calling window, time zone, attempts, retry delay) */
    update: async (id: string, body: UpdateBatchBody, options?: BatchCallOptions) =>
      changed(await client.patch(BATCH_PATHS.one(id), BatchResponseSchema, { ...body }, options)),

    cancel: async (id: string, options?: BatchCallOptions) =>
      changed(await client.post(BATCH_PATHS.cancel(id), BatchResponseSchema, undefined, options)),
    /** POST /batch-call/:id/pause: calls in progress finish, no new ones */
    pause: async (id: string, options?: BatchCallOptions) =>
      changed(await client.post(BATCH_PATHS.pause(id), BatchResponseSchema, undefined, options)),
    /** POST /batch-call/:id/recipients/export: a signed link that downloads every recipient with its outcome (CSV) */
    recipientsExportLink: (id: string, options?: BatchCallOptions) =>
      client.post(BATCH_PATHS.recipientsExport(id), RecipientsExportResponseSchema, undefined, options),
    /** Asks the server for the batch again (the live progress of a sending batch). */
    refresh: (id: string) => cache.invalidate(batchKeys.one(id)),
    /** POST /batch-call/:id/resume */
    resume: async (id: string, options?: BatchCallOptions) =>
      changed(await client.post(BATCH_PATHS.resume(id), BatchResponseSchema, undefined, options)),
  };
}

export type BatchesApi = ReturnType<typeof batchesApi>;

export const batches = batchesApi(api, queryCache);
