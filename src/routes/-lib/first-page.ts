import type { ListPage } from '../../machines/listQuery.machine';

/** What a list route's loader hands its table (`useListQuery({ initial })`): the page and the query it answers. */
export interface FirstPage<Q, Row> {
  query: Q;
  page: ListPage<Row>;
}

/**
 * A list route's `loader` (with `loaderDeps: ({ search }) => search`): entering the page, its first rows
 * are asked for while its code loads, and the page paints once, with them. Later search changes are the
 * table's own machine's (search, sort, pages, reloads), so the loader answers nothing then; a failure
 * here is left to the table too, which asks again and shows the error with Retry.
 */
export const firstPageLoader =
  <Q, Row>(load: (query: Q) => Promise<ListPage<Row>>) =>
  async ({ cause, deps }: { cause: 'enter' | 'stay' | 'preload'; deps: Q }): Promise<FirstPage<Q, Row> | undefined> => {
    if (cause !== 'enter') return undefined;
    try {
      return { query: deps, page: await load(deps) };
    } catch {
      return undefined;
    }
  };
