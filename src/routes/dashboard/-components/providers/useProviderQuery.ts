import { useEffect, useState } from 'react';
import { queryCache } from '../../../../api/cache';
import { PROVIDER_CACHE_PREFIX } from '../../../../api/providers';
import { toast } from '../../../../ui/toast/toast';

export interface QueryState<T> {
  /** the last answer (kept on screen while the next one loads) */
  data: T | undefined;
  loading: boolean;
  failed: boolean;
}

/**
 * Loads one provider resource for the screen: paints the cached answer at once, asks the server, shows
 * `failureToast` when that fails, and asks again whenever a provider change invalidates the cache
 * (connect, update, disconnect). `key` is the cache key of `load`.
 */
export function useProviderQuery<T>(
  key: string,
  load: () => Promise<T>,
  failureToast: string,
): QueryState<T> & { reload(): void } {
  const [state, setState] = useState<QueryState<T>>(() => ({
    data: queryCache.peek<T>(key),
    loading: true,
    failed: false,
  }));
  const [attempt, setAttempt] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` identifies `load`; `attempt` asks again
  useEffect(() => {
    let live = true;
    const run = () => {
      setState((s) => ({ data: queryCache.peek<T>(key) ?? s.data, loading: true, failed: false }));
      load().then(
        (data) => {
          if (live) setState({ data, loading: false, failed: false });
        },
        () => {
          if (!live) return;
          toast({ title: 'Error', description: failureToast, variant: 'destructive' });
          setState((s) => ({ ...s, loading: false, failed: true }));
        },
      );
    };
    run();
    const off = queryCache.subscribe((prefix) => {
      if (PROVIDER_CACHE_PREFIX.startsWith(prefix) || prefix.startsWith(PROVIDER_CACHE_PREFIX)) run();
    });
    return () => {
      live = false;
      off();
    };
  }, [key, attempt]);

  return { ...state, reload: () => setAttempt((n) => n + 1) };
}
