import { assign, fromPromise, setup } from 'xstate';
import { ApiError } from '../api/errors';

/** What a table asks the server for (its URL state, e.g. `TableQuery`); compared key by key. */
export type ListQuery = Readonly<Record<string, string | number | boolean | undefined>>;

/** One page of rows and the number of rows over all pages. */
export interface ListPage<Row = unknown> {
  rows: readonly Row[];
  total: number;
}

export interface ListQueryContext {
  /** the query asked for last (what is loading, or what `page` answers) */
  query: ListQuery;
  /** the last page that arrived: stays on screen while the next one loads */
  page: ListPage | undefined;
  /** the message of the last failure, until the next answer */
  error: string | undefined;
}

export type ListQueryEvent = { type: 'query.change'; query: ListQuery } | { type: 'list.reload' };

export interface ListQueryInput {
  query: ListQuery;
  /** a page of `query` already fetched (by the route's loader, alongside the screen's code): shown at once */
  page?: ListPage;
}

export const sameQuery = (a: ListQuery, b: ListQuery) => {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) if (a[k] !== b[k]) return false;
  return true;
};

/** The message a table shows for a failed load: the server's msg, else what kind of failure it was. */
export const listErrorMessage = (error: unknown): string =>
  error instanceof ApiError ? error.message : 'Could not load the list. Please try again.';

/**
 * Loads the pages of a server-side list (agents, phone numbers, call history) through the query
 * cache. The URL is the source of truth: every change of the table's URL state arrives as
 * `query.change`; a change while a page is loading abandons that load (its answer is never shown).
 * The last page stays in context while the next one loads, so a table can keep it visible. A change
 * of the resource anywhere (the cache invalidating it), or Retry after a failure, is `list.reload`.
 *
 * The `loadPage` actor is provided by the screen (`useListQuery`): `(query) => Promise<ListPage>`.
 */
export const listQueryMachine = setup({
  types: {
    context: {} as ListQueryContext,
    events: {} as ListQueryEvent,
    input: {} as ListQueryInput,
  },
  actors: {
    loadPage: fromPromise<ListPage, ListQuery>(async () => {
      throw new Error('listQuery: provide the loadPage actor');
    }),
  },
  actions: {
    rememberQuery: assign({ query: (_, params: { query: ListQuery }) => params.query }),
    showPage: assign({ page: (_, params: { page: ListPage<unknown> }) => params.page, error: undefined }),
    showError: assign({ error: (_, params: { error: unknown }) => listErrorMessage(params.error) }),
  },
  guards: {
    hasPage: ({ context }) => context.page !== undefined,
    isNewQuery: ({ context }, params: { query: ListQuery }) => !sameQuery(context.query, params.query),
  },
}).createMachine({
  id: 'listQuery',
  description: 'One page of a server-side list, reloaded when its query changes or the list is invalidated.',
  context: ({ input }) => ({ query: input.query, page: input.page, error: undefined }),
  initial: 'start',
  on: {
    'query.change': {
      guard: { type: 'isNewQuery', params: ({ event }) => ({ query: event.query }) },
      target: '.loading',
      description: 'Search, sort, page or page size changed (URL, back/forward): load that page; a load under way is dropped.',
      actions: { type: 'rememberQuery', params: ({ event }) => ({ query: event.query }) },
    },
    'list.reload': {
      target: '.loading',
      description: 'The resource changed (an edit, a delete, an import) or Retry: ask the server again for the same page.',
    },
  },
  states: {
    start: {
      description: 'A page handed over with the input (the route loader fetched it) is shown without asking again.',
      always: [
        { guard: 'hasPage', target: 'ready', description: 'The loader brought the page: show it.' },
        { target: 'loading', description: 'No page yet: ask for it.' },
      ],
    },
    loading: {
      tags: ['loading'],
      description: 'Asks for the page of `query`; the last page stays in context (and on screen) meanwhile.',
      invoke: {
        id: 'loadPage',
        src: 'loadPage',
        input: ({ context }) => context.query,
        onDone: {
          target: 'ready',
          description: 'The page arrives: its rows and the total replace the last ones.',
          actions: { type: 'showPage', params: ({ event }) => ({ page: event.output }) },
        },
        onError: {
          target: 'failed',
          description: 'The page could not be loaded: the message and Retry.',
          actions: { type: 'showError', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    ready: {
      description: 'The page in context answers the current query.',
    },
    failed: {
      tags: ['error'],
      description: 'The table shows the message and a Retry button.',
    },
  },
});
