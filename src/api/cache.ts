/**
 * The client's query cache: answers are kept by key so a screen can paint the
 * last answer at once while it asks again (the previous page stays visible while the next loads).
 *
 * - `load(key, loader)` always asks the server (polling and refetch-on-focus are off, the specification),
 *   shares one request between callers of the same key, and stores the answer.
 * - `peek(key)` is the stored answer, if any.
 * - `invalidate(prefix)` drops every entry whose key starts with `prefix` and tells subscribers, so a
 *   list on screen reloads after any change to its resource ("any change invalidates the cached list").
 * - An entry nobody has read for 60 s is dropped (spec: cached unused data is kept 60 s).
 *
 * Keys are plain strings, resource first: `agents?page=1&limit=10`, `agent:<id>`, `numbers:assigned?...`.
 *
 *   const page = await queryCache.load(`agents?${qs}`, () => agents.list(q));
 *   await agents.remove(id); queryCache.invalidate('agent');   // agents?… and agent:<id>
 */
export const CACHE_UNUSED_MS = 60_000;

interface Entry {
  data?: unknown;
  pending?: Promise<unknown>;
  /** last time the entry was read or written */
  touched: number;
}

export interface QueryCache {
  load<T>(key: string, loader: () => Promise<T>): Promise<T>;
  peek<T>(key: string): T | undefined;
  invalidate(prefix: string): void;
  /** Calls `listener(prefix)` after every invalidation; returns the unsubscribe function. */
  subscribe(listener: (prefix: string) => void): () => void;
  clear(): void;
}

export function createQueryCache(now: () => number = Date.now, unusedMs = CACHE_UNUSED_MS): QueryCache {
  const entries = new Map<string, Entry>();
  const listeners = new Set<(prefix: string) => void>();

  const sweep = () => {
    const t = now();
    for (const [key, e] of entries) if (!e.pending && t - e.touched > unusedMs) entries.delete(key);
  };

  return {
    load<T>(key: string, loader: () => Promise<T>): Promise<T> {
      sweep();
      const existing = entries.get(key);
      if (existing?.pending) {
        existing.touched = now();
        return existing.pending as Promise<T>;
      }
      const entry: Entry = existing ?? { touched: now() };
      const pending = loader().then(
        (data) => {
          // an invalidation while loading dropped the entry: the answer may be stale, keep it out
          if (entries.get(key) === entry) {
            entry.data = data;
            entry.pending = undefined;
            entry.touched = now();
          }
          return data;
        },
        (error: unknown) => {
          if (entries.get(key) === entry) entry.pending = undefined;
          throw error;
        },
      );
      entry.pending = pending;
      entry.touched = now();
      entries.set(key, entry);
      return pending;
    },
    peek<T>(key: string): T | undefined {
      sweep();
      const e = entries.get(key);
      if (!e || !('data' in e)) return undefined;
      e.touched = now();
      return e.data as T;
    },
    invalidate(prefix: string) {
      for (const key of [...entries.keys()]) if (key.startsWith(prefix)) entries.delete(key);
      for (const l of listeners) l(prefix);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    clear() {
      entries.clear();
    },
  };
}

/** The app's cache (cleared at logout by the session). */
export const queryCache = createQueryCache();
