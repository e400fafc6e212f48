import { useCallback, useEffect, useRef, useState } from 'react';
import { queryCache } from '../../api/cache';

export interface QueryState<T> {
  /** the answer for `key`, or the last one stored in the cache while it reloads */
  data: T | undefined;
  /** the last failure (cleared by the next success) */
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/**
 * Reads one cached resource for a screen: shows what the cache holds at once, always asks the server
 * (through `load`, an api module call that goes through the query cache), and asks again whenever a
 * change invalidates a prefix of `key` (the api modules invalidate their resource after every write).
 * Options: `onError` runs once per failed load (a screen's failure toast, say); `keepPrevious` keeps the
 * last answer of another key on screen while a new key (the next page) loads.
 */
export function useQuery<T>(
  key: string,
  load: () => Promise<T>,
  { onError, keepPrevious = false }: { onError?: (error: unknown) => void; keepPrevious?: boolean } = {},
): QueryState<T> {
  const [state, setState] = useState<{ key: string; data: T | undefined; error: unknown; loading: boolean }>(() => ({
    key,
    data: queryCache.peek<T>(key),
    error: undefined,
    loading: true,
  }));
  const [round, setRound] = useState(0);
  const loader = useRef(load);
  loader.current = load;
  const failed = useRef(onError);
  failed.current = onError;

  // biome-ignore lint/correctness/useExhaustiveDependencies: `round` is the reload trigger
  useEffect(() => {
    let live = true;
    setState((s) => ({
      key,
      data: queryCache.peek<T>(key) ?? (s.key === key || keepPrevious ? s.data : undefined),
      error: undefined,
      loading: true,
    }));
    loader.current().then(
      (data) => live && setState({ key, data, error: undefined, loading: false }),
      (error: unknown) => {
        if (!live) return;
        failed.current?.(error);
        setState((s) => ({ ...s, key, error, loading: false }));
      },
    );
    return () => {
      live = false;
    };
  }, [key, round]);

  useEffect(() => {
    const off = queryCache.subscribe((prefix) => {
      if (key.startsWith(prefix)) setRound((r) => r + 1);
    });
    return () => {
      off();
    };
  }, [key]);

  const reload = useCallback(() => setRound((r) => r + 1), []);
  const current = state.key === key ? state : { data: keepPrevious ? state.data : undefined, error: undefined, loading: true };
  return { data: current.data, error: current.error, loading: current.loading, reload };
}
