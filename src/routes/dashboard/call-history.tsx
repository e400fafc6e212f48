import { createFileRoute, Link, stripSearchParams } from '@tanstack/react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { CALL_CACHE_PREFIX, calls } from '../../api/calls';
import { type Call, hasCallFilters } from '../../api/contract/call';
import { CALL_SORT_FIELDS } from '../../api/contract/call-values';
import { type CallDialogFilters, callFiltersMachine } from '../../machines/callFilters.machine';
import type { ListPage } from '../../machines/listQuery.machine';
import { Button } from '../../ui/button/button';
import { TABLE_FIRST_PAGE_INDEX } from '../../ui/constants';
import { DataTable } from '../../ui/data-table/data-table';
import { parseSort, type TableQuery } from '../../ui/data-table/table-query';
import { HistoryIcon, LayersIcon } from '../../ui/icons';
import { firstPageLoader } from '../-lib/first-page';
import { useListQuery } from '../-lib/use-list-query';
import { CallAnalyticsOverview } from './-components/call-history/CallAnalytics';
import { CustomizeFieldsDialog } from './-components/call-history/CustomizeFieldsDialog';
import { CALL_COLUMN_IDS, callColumnLabel, callColumns } from './-components/call-history/call-columns';
import * as s from './-components/call-history/call-history.css';
import {
  CALL_HISTORY_SEARCH_DEFAULTS,
  type CallHistorySearch,
  callHistorySearchSchema,
} from './-components/call-history/call-search';
import { columnLayoutKey, useColumnLayout } from './-components/call-history/column-layout';
import { DateRangePicker } from './-components/call-history/DateRangePicker';
import { FilterDialog } from './-components/call-history/FilterDialog';
import { DownloadButton } from './-components/DownloadButton';
import { EmptyState, PageHeader } from './-components/PageHeader';

/**
 * Call History: the company's calls, filtered by a date range, a
 * phone number, the call type and status, searched by the start or the end of the caller's number, sorted and paged by the
 * server. Everything is in the URL (see call-search.ts), so a view can be bookmarked and reloaded.
 */
export const Route = createFileRoute('/dashboard/call-history')({
  validateSearch: callHistorySearchSchema,
  search: { middlewares: [stripSearchParams(CALL_HISTORY_SEARCH_DEFAULTS)] },
  // The first page is asked for while the page's code loads. The loader is a chunk of its own (beside the
  // page's): left in the entry chunk it would carry the call and phone contracts into every page's first
  // load (+1.3 KiB gzip measured with both list pages); split, the entry grows by 0.3 KiB.
  codeSplitGroupings: [['loader'], ['component']],
  loaderDeps: ({ search }) => search,
  loader: firstPageLoader(loadCalls),
  component: CallHistoryPage,
});

/** One page of calls from GET /call/ (ZERO-based page; sort as field -> 1 / -1) through the query cache. */
function loadCalls(q: CallHistorySearch): Promise<ListPage<Call>> {
  const sort = parseSort(q.sort, CALL_SORT_FIELDS).map((s): [(typeof s)['id'], 1 | -1] => [s.id, s.desc ? -1 : 1]);
  return calls
    .list(
      {
        page: q.page,
        limit: q.size,
        search: q.search || undefined,
        sort,
        dateFrom: q.dateFrom,
        dateTo: q.dateTo,
        phoneNumber: q.phoneNumber,
        type: q.type,
        status: q.status,
        node: q.node,
      },
      { notify: false },
    )
    .then((r) => ({ rows: r.data.calls, total: r.data.pagination.totalCalls }));
}

/** The view's filters, search and date range (what the export and the overview follow; not its page or order). */
const filtersOf = (query: CallHistorySearch) => ({
  search: query.search || undefined,
  dateFrom: query.dateFrom,
  dateTo: query.dateTo,
  phoneNumber: query.phoneNumber,
  type: query.type,
  status: query.status,
});

/**
 * 'Export': the calls matching the filters, date range and search as CSV. The server answers a short-lived
 * signed link and the browser downloads it (streamed to disk, however many rows).
 */
function ExportButton({ query }: { query: CallHistorySearch }) {
  return <DownloadButton link={() => calls.exportLink(filtersOf(query))}>Export</DownloadButton>;
}

function CallHistoryPage() {
  const query = Route.useSearch();
  const navigate = Route.useNavigate();
  const { session } = Route.useRouteContext();
  const accountId = useSelector(session, (snap) => snap.context.accountId);
  const data = useListQuery({ query, load: loadCalls, resource: CALL_CACHE_PREFIX, initial: Route.useLoaderData() });
  const filtersActor = useActorRef(callFiltersMachine);
  const [layout, saveLayout] = useColumnLayout(columnLayoutKey(accountId), CALL_COLUMN_IDS);
  const [customizing, setCustomizing] = useState(false);

  const onQueryChange = useCallback(
    (patch: Partial<CallHistorySearch>, options?: { replace?: boolean }) =>
      void navigate({ search: (prev) => ({ ...prev, ...patch }), replace: options?.replace }),
    [navigate],
  );
  /** a new filter starts at the first page */
  const setFilters = useCallback(
    (patch: Partial<CallHistorySearch>) => onQueryChange({ ...patch, page: TABLE_FIRST_PAGE_INDEX }),
    [onQueryChange],
  );

  useEffect(() => {
    const sub = filtersActor.on('filters.applied', ({ filters }) =>
      setFilters({
        phoneNumber: filters.phoneNumber || undefined,
        type: filters.type || undefined,
        status: filters.status || undefined,
      }),
    );
    return () => sub.unsubscribe();
  }, [filtersActor, setFilters]);

  const filtered = hasCallFilters(query) || Boolean(query.node);
  /**
   * A company without a single call: the table alone says so (pointing at Test and phone numbers); the
   * overview, which would only repeat it, is left out. Without a date range or filters the table lists every
   * call the company has, so an empty first page means none. The overview waits for that first page (the
   * route's loader asks for it while the page's code loads).
   */
  const noCallsYet = !filtered && !query.search && data.loaded && !data.error && data.total === 0;
  const dialogFilters: CallDialogFilters = {
    phoneNumber: query.phoneNumber ?? '',
    type: query.type ?? '',
    status: query.status ?? '',
  };
  const visibility = useMemo(() => Object.fromEntries(layout.hidden.map((id) => [id, false])), [layout.hidden]);

  return (
    <>
      <PageHeader title="Call History" description="Every inbound and outbound call your agents handled." />
      <div className={s.filterBar}>
        <DateRangePicker
          value={{ from: query.dateFrom, to: query.dateTo }}
          onChange={(range) => setFilters({ dateFrom: range?.from, dateTo: range?.to })}
        />
        <Button variant="secondary" onClick={() => filtersActor.send({ type: 'dialog.open', filters: dialogFilters })}>
          {filtered ? 'Filters Applied' : 'Filter'}
        </Button>
        <Button variant="secondary" onClick={() => setCustomizing(true)}>
          <LayersIcon />
          Customize Field
        </Button>
        <ExportButton query={query} />
      </div>
      {query.node ? (
        <p className={s.nodeFilter}>
          Calls that reached the flow node <code>{query.node}</code>
          <Button variant="secondary" onClick={() => setFilters({ node: undefined })}>
            Show all calls
          </Button>
        </p>
      ) : null}
      {noCallsYet || !data.loaded ? null : (
        <CallAnalyticsOverview
          filters={{
            dateFrom: query.dateFrom,
            dateTo: query.dateTo,
            phoneNumber: query.phoneNumber,
            type: query.type,
            status: query.status,
          }}
          searching={Boolean(query.search)}
        />
      )}
      <DataTable<Call>
        label="Call history"
        columns={callColumns}
        data={data}
        getRowId={(call) => call._id}
        query={query as TableQuery}
        onQueryChange={onQueryChange}
        sortFields={CALL_SORT_FIELDS}
        searchLabel="Search calls by phone number"
        searchPlaceholder="Search by phone number..."
        columnOrder={layout.order}
        columnVisibility={visibility}
        onColumnVisibilityChange={(next) => saveLayout({ ...layout, hidden: CALL_COLUMN_IDS.filter((id) => next[id] === false) })}
        empty={
          <EmptyState
            icon={HistoryIcon}
            title={filtered ? 'No calls match these filters' : 'No calls yet'}
            text={
              filtered
                ? 'Try another date range, or clear the filters.'
                : "Your company hasn't made or taken a call yet. Try an agent from your browser with Test in its editor, or give it a phone number so people can call it: every call will be listed here."
            }
            action={
              filtered ? (
                <Button
                  variant="secondary"
                  onClick={() =>
                    setFilters({
                      dateFrom: undefined,
                      dateTo: undefined,
                      phoneNumber: undefined,
                      type: undefined,
                      status: undefined,
                      node: undefined,
                    })
                  }
                >
                  Clear filters
                </Button>
              ) : (
                <div className={s.emptyActions}>
                  <Button render={<Link to="/dashboard" />}>Open your agents</Button>
                  <Button variant="secondary" render={<Link to="/dashboard/phone-numbers" />}>
                    Phone Numbers
                  </Button>
                </div>
              )
            }
          />
        }
      />
      <FilterDialog actor={filtersActor} />
      <CustomizeFieldsDialog
        open={customizing}
        onClose={() => setCustomizing(false)}
        layout={layout}
        columnIds={CALL_COLUMN_IDS}
        labelOf={callColumnLabel}
        onSave={saveLayout}
      />
    </>
  );
}
