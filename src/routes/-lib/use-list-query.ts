import { useActorRef, useSelector } from '@xstate/react';
import { useEffect, useMemo, useRef } from 'react';
import { fromPromise } from 'xstate';
import { type QueryCache, queryCache } from '../../api/cache';
import { type ListPage, type ListQuery, listQueryMachine, sameQuery } from '../../machines/listQuery.machine';
import type { TableData } from '../../ui/data-table/data-table';

export interface UseListQueryOptions<Q extends ListQuery, Row> {
  /** the table's query (its URL state) */
  query: Q;
  /** loads one page through the query cache, e.g. `(q) => agents.list(...).then(...)` */
  load: (query: Q) => Promise<ListPage<Row>>;
  /** the cache key prefix of the resource (`'agent'`): its invalidation reloads the page on screen */
  resource: string;
  /**
   * What an invalidation does instead of reloading the page on screen, given the reload: e.g. go back
   * to the first page (a new query, which loads) and reload only when already there.
   */
  onInvalidate?: (reload: () => void) => void;
  /**
   * A page the route's loader fetched while the screen's code loaded (`Route.useLoaderData()`): the first
   * render shows it, with no skeleton and no second request, when it answers the query on screen.
   */
  initial?: { query: Q; page: ListPage<Row> } | undefined;
  cache?: QueryCache;
}

/**
 * Binds a listQuery machine to a screen: sends every new `query`, reloads when the resource is
 * invalidated in the query cache (any change invalidates the cached list), and answers `TableData`
 * for `<DataTable data={...} />`.
 */
export function useListQuery<Q extends ListQuery, Row>({
  query,
  load,
  resource,
  onInvalidate,
  initial,
  cache = queryCache,
}: UseListQueryOptions<Q, Row>): TableData<Row> {
  const loadRef = useRef(load);
  loadRef.current = load;
  const invalidatedRef = useRef(onInvalidate);
  invalidatedRef.current = onInvalidate;
  const logic = useMemo(
    () =>
      listQueryMachine.provide({
        actors: { loadPage: fromPromise<ListPage, ListQuery>(({ input }) => loadRef.current(input as Q)) },
      }),
    [],
  );
  const actor = useActorRef(logic, {
    input: { query, page: initial && sameQuery(initial.query, query) ? initial.page : undefined },
  });

  useEffect(() => {
    actor.send({ type: 'query.change', query });
  }, [actor, query]);

  useEffect(
    () =>
      cache.subscribe((prefix) => {
        if (!(prefix.startsWith(resource) || resource.startsWith(prefix))) return;
        const reload = () => actor.send({ type: 'list.reload' });
        if (invalidatedRef.current) invalidatedRef.current(reload);
        else reload();
      }),
    [actor, cache, resource],
  );

  const page = useSelector(actor, (s) => s.context.page);
  const loading = useSelector(actor, (s) => s.hasTag('loading'));
  const error = useSelector(actor, (s) => (s.hasTag('error') ? s.context.error : undefined));
  const retry = useMemo(() => () => actor.send({ type: 'list.reload' }), [actor]);
  return {
    rows: (page?.rows ?? []) as readonly Row[],
    total: page?.total ?? 0,
    loaded: page !== undefined,
    loading,
    error,
    retry,
  };
}
