import { createFileRoute, Link, stripSearchParams } from '@tanstack/react-router';
import { useActorRef } from '@xstate/react';
import { useCallback, useMemo } from 'react';
import { AGENT_CACHE_PREFIX, agents } from '../../api/agents';
import type { AgentListItem, AgentSortField } from '../../api/contract/agent';
import { agentDeleteMachine } from '../../machines/agentDelete.machine';
import { agentImportMachine } from '../../machines/agentImport.machine';
import { agentUpdateMachine } from '../../machines/agentUpdate.machine';
import type { ListPage } from '../../machines/listQuery.machine';
import { Button } from '../../ui/button/button';
import { DataTable } from '../../ui/data-table/data-table';
import { parseSort, TABLE_QUERY_DEFAULTS, type TableQuery, tableSearchSchema } from '../../ui/data-table/table-query';
import { useListQuery } from '../../ui/data-table/use-list-query';
import { BotIcon, PlusIcon } from '../../ui/icons';
import { lazyNamed } from '../-lib/lazy';
import { OnceOpened } from '../-lib/once-opened';
import { agentColumns, exportAgent } from './-components/agent-columns';
import { ImportAgentButton } from './-components/ImportAgentButton';
import { EmptyState, PageHeader } from './-components/PageHeader';

// The row actions' dialogs load the first time one opens (they carry Ariakit's dialog, select and slider).
const UpdateAgentDialog = lazyNamed(() => import('./-components/UpdateAgentDialog'), 'UpdateAgentDialog');
const DeleteAgentDialog = lazyNamed(() => import('./-components/DeleteAgentDialog'), 'DeleteAgentDialog');

/**
 * The list API's sort whitelist (AGENT_SORT_FIELDS of the contract). Spelled out here, checked against
 * the contract's type both ways, because `validateSearch` stays in the entry chunk and importing the
 * contract module would carry all of it there.
 */
const SORT_FIELDS = [
  'agent_name',
  'updatedAt',
  'createdAt',
  'voice_id',
  'voice_model',
] as const satisfies readonly AgentSortField[];
const _everySortField: Exclude<AgentSortField, (typeof SORT_FIELDS)[number]> extends never ? true : never = true;

/** The agents table's URL state: ?search=&sort=agent_name:asc,voice_id:desc&page=0&size=10 (sort over the API's whitelist). */
export const Route = createFileRoute('/dashboard/')({
  validateSearch: tableSearchSchema({ sortFields: SORT_FIELDS }),
  search: { middlewares: [stripSearchParams(TABLE_QUERY_DEFAULTS)] },
  loaderDeps: ({ search }) => search,
  // Entering the page, its first rows are asked for while its code loads, and the page paints once, with
  // them (the table's own machine takes over from there: search, sort, pages, reloads). A failure here
  // is left to the table, which asks again and shows the error with Retry.
  loader: async ({ cause, deps }) => {
    if (cause !== 'enter') return undefined;
    try {
      return { query: deps, page: await loadAgents(deps) };
    } catch {
      return undefined;
    }
  },
  component: AgentsPage,
});

/** One page of agents from GET /agent (1-based page, sort as field -> 1 / -1) through the query cache. */
function loadAgents(q: TableQuery): Promise<ListPage<AgentListItem>> {
  const sort = parseSort(q.sort, SORT_FIELDS).map((s): [(typeof s)['id'], 1 | -1] => [s.id, s.desc ? -1 : 1]);
  return agents
    .list({ page: q.page + 1, limit: q.size, search: q.search || undefined, sort }, { notify: false })
    .then((r) => ({ rows: r.data.agents, total: r.data.total }));
}

function CreateAgentButton() {
  return (
    <Button render={<Link to="/dashboard/agents/single-prompt" />}>
      <PlusIcon />
      Create an Agent
    </Button>
  );
}

function AgentsPage() {
  const query = Route.useSearch();
  const navigate = Route.useNavigate();
  const data = useListQuery({ query, load: loadAgents, resource: AGENT_CACHE_PREFIX, initial: Route.useLoaderData() });
  const updater = useActorRef(agentUpdateMachine);
  const deleter = useActorRef(agentDeleteMachine);
  const importer = useActorRef(agentImportMachine);

  const onQueryChange = useCallback(
    (patch: Partial<TableQuery>, options?: { replace?: boolean }) =>
      void navigate({ search: (prev) => ({ ...prev, ...patch }), replace: options?.replace }),
    [navigate],
  );
  const columns = useMemo(
    () =>
      agentColumns({
        onEdit: (agent) => updater.send({ type: 'dialog.open', agent }),
        onDelete: (agent) => deleter.send({ type: 'dialog.open', agent: { _id: agent._id, name: agent.agent_name } }),
        onExport: (agent) => void exportAgent(agent._id),
      }),
    [updater, deleter],
  );

  return (
    <>
      <PageHeader
        title="Agents"
        description="Voice agents that answer and place your calls."
        actions={
          <>
            <ImportAgentButton actor={importer} />
            <CreateAgentButton />
          </>
        }
      />
      <DataTable
        label="Agents"
        columns={columns}
        data={data}
        getRowId={(agent) => agent._id}
        query={query}
        onQueryChange={onQueryChange}
        sortFields={SORT_FIELDS}
        searchPlaceholder="Search agents..."
        columnsKey="parley.table.agents.columns"
        empty={
          <EmptyState
            icon={BotIcon}
            title="No agents yet"
            text="Create your first voice agent, or import one exported from another workspace."
            action={<CreateAgentButton />}
          />
        }
      />
      <OnceOpened actor={updater} load={UpdateAgentDialog.preload}>
        <UpdateAgentDialog actor={updater} />
      </OnceOpened>
      <OnceOpened actor={deleter} load={DeleteAgentDialog.preload}>
        <DeleteAgentDialog actor={deleter} />
      </OnceOpened>
    </>
  );
}
