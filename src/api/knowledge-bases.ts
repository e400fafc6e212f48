/**
 * Typed calls of the knowledge base resource: list, create (multipart,
 * array entries repeated) and delete. A change invalidates the cached list.
 */
import { type QueryCache, queryCache } from './cache';
import { type ApiClient, api, type CallOptions } from './client';
import {
  KB_FORM_FIELDS,
  KB_PATHS,
  KnowledgeBaseDeleteResponseSchema,
  KnowledgeBaseListResponseSchema,
  KnowledgeBaseResponseSchema,
} from './contract/knowledge-base';

export type KnowledgeBaseCallOptions = CallOptions;

/** What the upload dialog sends. */
export interface NewKnowledgeBase {
  name: string;
  files: File[];
  texts: { title: string; text: string }[];
  urls: string[];
  enableAutoRefresh: boolean;
}

export const KB_CACHE_PREFIX = 'knowledge-base';
const listKey = (page: number, limit: number) => `${KB_CACHE_PREFIX}?page=${page}&limit=${limit}`;

/** The multipart body of POST /knowledge-base. */
export function knowledgeBaseForm(kb: NewKnowledgeBase): FormData {
  const body = new FormData();
  body.set(KB_FORM_FIELDS.name, kb.name);
  for (const file of kb.files) body.append(KB_FORM_FIELDS.files, file, file.name);
  for (const text of kb.texts) body.append(KB_FORM_FIELDS.texts, JSON.stringify(text));
  for (const url of kb.urls) body.append(KB_FORM_FIELDS.urls, url);
  body.set(KB_FORM_FIELDS.autoRefresh, String(kb.enableAutoRefresh));
  return body;
}

export function knowledgeBasesApi(client: ApiClient, cache: QueryCache) {
  return {
    /** GET /knowledge-base (always asks the server; statuses change while bases are processed) */
    list: (q: { page?: number; limit?: number } = {}, options?: KnowledgeBaseCallOptions) => {
      const page = q.page ?? 1;
      const limit = q.limit ?? 100;
      return cache.load(listKey(page, limit), () =>
        client.get(KB_PATHS.list, KnowledgeBaseListResponseSchema, { query: { page, limit }, ...options }),
      );
    },

    /** POST /knowledge-base (multipart) */
    create: async (kb: NewKnowledgeBase, options?: KnowledgeBaseCallOptions) => {
      const res = await client.post(KB_PATHS.create, KnowledgeBaseResponseSchema, knowledgeBaseForm(kb), options);
      cache.invalidate(KB_CACHE_PREFIX);
      return res;
    },

    /** DELETE /knowledge-base/{id} */
    remove: async (id: string, options?: KnowledgeBaseCallOptions) => {
      const res = await client.delete(KB_PATHS.one(id), KnowledgeBaseDeleteResponseSchema, options);
      cache.invalidate(KB_CACHE_PREFIX);
      return res;
    },
  };
}

export const knowledgeBases = knowledgeBasesApi(api, queryCache);
