import { createFileRoute, stripSearchParams } from '@tanstack/react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { useCallback, useMemo } from 'react';
import * as v from 'valibot';
import {
  type FreeNumber,
  PHONE_PROVIDER_LABELS,
  PHONE_PROVIDERS,
  PHONE_TEXTS,
  type PhoneNumber,
  type PhoneSortField,
} from '../../api/contract/phone';
import { PHONE_CACHE_PREFIX, type PhoneListParams, phone, TELEPHONY_STATUS_KEY } from '../../api/phone';
import { notify } from '../../app/toaster';
import { assignAgentMachine } from '../../machines/assignAgent.machine';
import type { ListPage } from '../../machines/listQuery.machine';
import { numberImportMachine } from '../../machines/numberImport.machine';
import { phoneNumberDeleteMachine } from '../../machines/phoneNumberDelete.machine';
import { phoneNumberUpdateMachine } from '../../machines/phoneNumberUpdate.machine';
import { phoneRequestMachine } from '../../machines/phoneRequest.machine';
import { Button } from '../../ui/button/button';
import { TABLE_DEBOUNCE_MS } from '../../ui/constants';
import { DataTable } from '../../ui/data-table/data-table';
import { parseSort, TABLE_QUERY_DEFAULTS, type TableQuery, tableSearchSchema } from '../../ui/data-table/table-query';
import { PhoneIcon } from '../../ui/icons';
import { Tab, TabList, TabPanel, Tabs } from '../../ui/tabs/tabs';
import { firstPageLoader } from '../-lib/first-page';
import { useListQuery } from '../-lib/use-list-query';
import { useQuery } from '../-lib/useQuery';
import { EmptyState, PageHeader } from './-components/PageHeader';
import * as pc from './-components/page.css';
import { AssignAgentDialog } from './-components/phone/AssignAgentDialog';
import { DeletePhoneNumberDialog } from './-components/phone/DeletePhoneNumberDialog';
import { ImportNumbersDialog } from './-components/phone/ImportNumbersDialog';
import * as phoneCss from './-components/phone/phone.css';
import { assignedColumns, availableColumns } from './-components/phone/phone-columns';
import { UpdatePhoneNumberDialog } from './-components/phone/UpdatePhoneNumberDialog';

// toasts go to the app's toaster (the machines declare `notify`; src/app/toaster.ts supplies it)
const assignAgentLogic = assignAgentMachine.provide({
  actions: { notify },
  // the agent picker waits after typing like every search box of the tables
  delays: { searchDelay: TABLE_DEBOUNCE_MS },
});
const phoneNumberUpdateLogic = phoneNumberUpdateMachine.provide({ actions: { notify } });
const phoneNumberDeleteLogic = phoneNumberDeleteMachine.provide({ actions: { notify } });
const phoneRequestLogic = phoneRequestMachine.provide({ actions: { notify } });
const numberImportLogic = numberImportMachine.provide({ actions: { notify } });

/**
 * The columns that sort: the two of the contract's PHONE_SORT_FIELDS that have a column of their own
 * (nickname shows under the number, the assignment date nowhere), checked against the contract's type.
 */
const SORT_FIELDS = ['phone', 'provider'] as const satisfies readonly PhoneSortField[];

/** The two tabs; the URL keeps the one on screen. */
const TABS = ['assigned', 'available'] as const;
type PhoneTab = (typeof TABS)[number];
const DEFAULT_TAB: PhoneTab = 'assigned';
const tabId = (tab: PhoneTab) => `phone-numbers-${tab}`;

/**
 * ?tab=available&search=415&sort=phone:desc&page=0&size=10: the tab and its table's state; switching
 * tabs starts the other table at its first page. Bad values fall back (a hand-edited URL never breaks).
 */
const searchSchema = v.object({
  ...tableSearchSchema({ sortFields: SORT_FIELDS }).entries,
  tab: v.fallback(v.optional(v.picklist(TABS), DEFAULT_TAB), DEFAULT_TAB),
});

export const Route = createFileRoute('/dashboard/phone-numbers')({
  validateSearch: searchSchema,
  search: { middlewares: [stripSearchParams({ ...TABLE_QUERY_DEFAULTS, tab: DEFAULT_TAB })] },
  // the first page of the tab on screen, asked for while the page's code loads (the loader is a chunk of
  // its own, as on Call History)
  codeSplitGroupings: [['loader'], ['component']],
  loaderDeps: ({ search }) => search,
  loader: ({ cause, deps: { tab, ...query } }) =>
    tab === 'assigned'
      ? firstPageLoader(loadAssigned)({ cause, deps: query }).then((assigned) => ({ assigned, available: undefined }))
      : firstPageLoader(loadAvailable)({ cause, deps: query }).then((available) => ({ assigned: undefined, available })),
  component: PhoneNumbersPage,
});

/** The table's URL state as an object type (a ListQuery for useListQuery). */
type PhoneQuery = { [K in keyof TableQuery]: TableQuery[K] };

/** The list call's parameters for the table's URL state (page zero-based on both sides). */
const listParams = (q: TableQuery): PhoneListParams => ({
  page: q.page,
  limit: q.size,
  search: q.search || undefined,
  sort: parseSort(q.sort, SORT_FIELDS).map((s): [(typeof s)['id'], 1 | -1] => [s.id, s.desc ? -1 : 1]),
});

/** GET /phone/assigned through the query cache. */
const loadAssigned = (q: PhoneQuery): Promise<ListPage<PhoneNumber>> =>
  phone.assigned(listParams(q), { notify: false }).then((r) => ({ rows: r.data.numbers, total: r.data.total }));

/** GET /phone/free through the query cache. */
const loadAvailable = (q: PhoneQuery): Promise<ListPage<FreeNumber>> =>
  phone.free(listParams(q), { notify: false }).then((r) => ({ rows: r.data.numbers, total: r.data.total }));

/** What both tabs' tables share: their URL state and sorting. */
const tableProps = (query: PhoneQuery, onQueryChange: QueryChange) => ({
  query,
  onQueryChange,
  sortFields: SORT_FIELDS,
  getRowId: (n: { _id: string }) => n._id,
});

type QueryChange = (patch: Partial<TableQuery>, options?: { replace?: boolean }) => void;

function PhoneNumbersPage() {
  const { tab, search, sort, page, size } = Route.useSearch();
  const navigate = Route.useNavigate();
  const query = useMemo(() => ({ search, sort, page, size }), [search, sort, page, size]);
  const onQueryChange: QueryChange = useCallback(
    (patch, options) => void navigate({ search: (prev) => ({ ...prev, ...patch }), replace: options?.replace }),
    [navigate],
  );
  const showTab = useCallback(
    (next: PhoneTab) => void navigate({ search: () => ({ ...TABLE_QUERY_DEFAULTS, tab: next }) }),
    [navigate],
  );

  return (
    <>
      <PageHeader title="Phone Numbers" description="Numbers your agents answer and call from, and numbers you can request." />
      <CallbacksWarning />
      <Tabs selectedId={tabId(tab)} onChange={(id) => showTab(id === tabId('available') ? 'available' : 'assigned')}>
        <TabList aria-label="Phone numbers">
          <Tab id={tabId('assigned')}>Assigned Numbers</Tab>
          <Tab id={tabId('available')}>Available Numbers</Tab>
        </TabList>
        <TabPanel tabId={tabId('assigned')}>
          {tab === 'assigned' ? (
            <AssignedNumbers query={query} onQueryChange={onQueryChange} onBrowse={() => showTab('available')} />
          ) : null}
        </TabPanel>
        <TabPanel tabId={tabId('available')}>
          {tab === 'available' ? <AvailableNumbers query={query} onQueryChange={onQueryChange} /> : null}
        </TabPanel>
      </Tabs>
    </>
  );
}

/**
 * With Twilio or Plivo connected and PUBLIC_URL on localhost, the carriers cannot call this
 * server back, so inbound calls never arrive. Advisory: while it loads or if it fails, nothing is shown.
 */
function CallbacksWarning() {
  const status = useQuery(TELEPHONY_STATUS_KEY, () => phone.telephonyStatus({ notify: false }));
  if (!status.data?.data.callbacksUnreachable) return null;
  return (
    <p role="alert" className={pc.alert}>
      {PHONE_TEXTS.callbacksUnreachable}
    </p>
  );
}

/** The company's numbers, with the row menu's Assign Agent, Edit and Delete. */
function AssignedNumbers({
  query,
  onQueryChange,
  onBrowse,
}: {
  query: PhoneQuery;
  onQueryChange: QueryChange;
  onBrowse: () => void;
}) {
  const data = useListQuery({
    query,
    load: loadAssigned,
    resource: PHONE_CACHE_PREFIX,
    initial: Route.useLoaderData({ select: (d) => d.assigned }),
    // the specification: after a change (assign, edit, delete) the list is fetched again from its first page
    onInvalidate: (reload) => (query.page === 0 ? reload() : onQueryChange({ page: 0 }, { replace: true })),
  });
  const assigner = useActorRef(assignAgentLogic);
  const updater = useActorRef(phoneNumberUpdateLogic);
  const deleter = useActorRef(phoneNumberDeleteLogic);
  const importer = useActorRef(numberImportLogic);
  const columns = useMemo(
    () =>
      assignedColumns({
        onAssign: (number) => assigner.send({ type: 'dialog.open', number }),
        onEdit: (number) => updater.send({ type: 'dialog.open', number }),
        onDelete: (number) => deleter.send({ type: 'dialog.open', number }),
      }),
    [assigner, updater, deleter],
  );
  return (
    <>
      <div className={phoneCss.importToolbar}>
        {PHONE_PROVIDERS.map((p) => (
          <Button key={p} variant="secondary" size="sm" onClick={() => importer.send({ type: 'dialog.open', provider: p })}>
            {PHONE_TEXTS.importFrom(PHONE_PROVIDER_LABELS[p])}
          </Button>
        ))}
      </div>
      <DataTable
        label="Assigned Numbers"
        columns={columns}
        data={data}
        {...tableProps(query, onQueryChange)}
        searchLabel="Search assigned numbers"
        searchPlaceholder="Search by number or nickname..."
        columnsKey="parley.table.assigned-numbers.columns"
        empty={
          <EmptyState
            icon={PhoneIcon}
            title="No phone numbers yet"
            text="Request a number on the Available Numbers tab (it appears here once it is granted to your account), or import one from your own Twilio or Plivo account."
            action={<Button onClick={onBrowse}>Browse available numbers</Button>}
          />
        }
      />
      <AssignAgentDialog actor={assigner} />
      <UpdatePhoneNumberDialog actor={updater} />
      <DeletePhoneNumberDialog actor={deleter} />
      <ImportNumbersDialog actor={importer} />
    </>
  );
}

/** The free pool, with a Request button per row (or a green 'Requested'). */
function AvailableNumbers({ query, onQueryChange }: { query: PhoneQuery; onQueryChange: QueryChange }) {
  const loaded = useListQuery({
    query,
    load: loadAvailable,
    resource: PHONE_CACHE_PREFIX,
    initial: Route.useLoaderData({ select: (d) => d.available }),
  });
  // the specification: the inline message of a failed load, with Retry
  const data = loaded.error ? { ...loaded, error: PHONE_TEXTS.availableLoadFailed } : loaded;
  const requester = useActorRef(phoneRequestLogic);
  const requesting = useSelector(requester, (snap) => snap.context.phone);
  const requested = useSelector(requester, (snap) => snap.context.requested);
  const columns = useMemo(
    () =>
      availableColumns({
        requested,
        requesting,
        onRequest: (p) => requester.send({ type: 'number.request', phone: p }),
      }),
    [requester, requested, requesting],
  );
  // a request waits for an operator of this server (or REQUEST_AUTO_GRANT): say how it is granted
  const pending = requested.length > 0 || loaded.rows.some((n) => n.requested);
  return (
    <>
      {pending ? <p className={phoneCss.muted}>{PHONE_TEXTS.requestPendingHint}</p> : null}
      <DataTable
        label="Available Numbers"
        columns={columns}
        data={data}
        {...tableProps(query, onQueryChange)}
        searchLabel="Search available numbers"
        searchPlaceholder="Search by number, e.g. 415..."
        columnsKey="parley.table.available-numbers.columns"
        empty={<EmptyState icon={PhoneIcon} title={PHONE_TEXTS.availableEmptyTitle} text={PHONE_TEXTS.availableEmptyText} />}
      />
    </>
  );
}
