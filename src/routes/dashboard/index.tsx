import { createFileRoute, Link, stripSearchParams } from '@tanstack/react-router';
import { useActorRef } from '@xstate/react';
import { Suspense, useCallback, useMemo, useState } from 'react';
import { AGENT_CACHE_PREFIX, agents } from '../../api/agents';
import type { AgentListItem } from '../../api/contract/agent/responses';
import { AGENT_SORT_FIELDS } from '../../api/contract/agent/sort';
import { notify } from '../../app/toaster';
import { agentDeleteMachine } from '../../machines/agentDelete.machine';
import { agentImportMachine } from '../../machines/agentImport.machine';
import { agentUpdateMachine } from '../../machines/agentUpdate.machine';
import type { ListPage } from '../../machines/listQuery.machine';
import { DataTable } from '../../ui/data-table/data-table';
import { parseSort, TABLE_QUERY_DEFAULTS, type TableQuery, tableSearchSchema } from '../../ui/data-table/table-query';
import { BotIcon, PlusIcon } from '../../ui/icons';
import { reportLoadFailure } from '../../ui/lazy-control';
import { Menu, MenuItem } from '../../ui/menu/menu';
import { firstPageLoader } from '../-lib/first-page';
import { lazyNamed } from '../-lib/lazy';
import { OnceOpened } from '../-lib/once-opened';
import { useListQuery } from '../-lib/use-list-query';
import { agentColumns, exportAgent } from './-components/agent-columns';
import { ImportAgentButton } from './-components/ImportAgentButton';
import { EmptyState, PageHeader } from './-components/PageHeader';

// toasts go to the app's toaster (the machines declare `notify`; src/app/toaster.ts supplies it)
const agentUpdateLogic = agentUpdateMachine.provide({ actions: { notify } });
const agentDeleteLogic = agentDeleteMachine.provide({ actions: { notify } });
const agentImportLogic = agentImportMachine.provide({ actions: { notify } });

// The row actions' dialogs load the first time one opens (they carry Ariakit's dialog, select and slider).
const UpdateAgentDialog = lazyNamed(() => import('./-components/UpdateAgentDialog'), 'UpdateAgentDialog');
const DeleteAgentDialog = lazyNamed(() => import('./-components/DeleteAgentDialog'), 'DeleteAgentDialog');
const AgentAnalyticsDialog = lazyNamed(() => import('./-components/AgentAnalyticsDialog'), 'AgentAnalyticsDialog');

/** The agents table's URL state: ?search=&sort=agent_name:asc,voice_id:desc&page=0&size=10 (sort over the API's whitelist). */
export const Route = createFileRoute('/dashboard/')({
  validateSearch: tableSearchSchema({ sortFields: AGENT_SORT_FIELDS }),
  search: { middlewares: [stripSearchParams(TABLE_QUERY_DEFAULTS)] },
  loaderDeps: ({ search }) => search,
  // the Agents page is where a login lands: its loader stays in the entry chunk, so the rows are asked
  // for at once, while the page's code loads
  loader: firstPageLoader(loadAgents),
  // a return to the list (after creating an agent) loads it again rather than showing the rows it had:
  // the router would keep the earlier visit's page and reload it only in the background
  gcTime: 0,
  component: AgentsPage,
});

/** One page of agents from GET /agent (1-based page, sort as field -> 1 / -1) through the query cache. */
function loadAgents(q: TableQuery): Promise<ListPage<AgentListItem>> {
  const sort = parseSort(q.sort, AGENT_SORT_FIELDS).map((s): [(typeof s)['id'], 1 | -1] => [s.id, s.desc ? -1 : 1]);
  return agents
    .list({ page: q.page + 1, limit: q.size, search: q.search || undefined, sort }, { notify: false })
    .then((r) => ({ rows: r.data.agents, total: r.data.total }));
}

/** 'Create an Agent' asks which kind: a single prompt, or a conversation flow drawn on a canvas. */
function CreateAgentButton() {
  return (
    <Menu
      label={
        <>
          <PlusIcon />
          Create an Agent
        </>
      }
      buttonVariant="primary"
      placement="bottom-end"
    >
      <MenuItem render={<Link to="/dashboard/agents/single-prompt" />}>Single Prompt</MenuItem>
      <MenuItem render={<Link to="/dashboard/agents/conversation-flow" />}>Conversation Flow</MenuItem>
    </Menu>
  );
}

function AgentsPage() {
  const query = Route.useSearch();
  const navigate = Route.useNavigate();
  const data = useListQuery({ query, load: loadAgents, resource: AGENT_CACHE_PREFIX, initial: Route.useLoaderData() });
  const updater = useActorRef(agentUpdateLogic);
  const deleter = useActorRef(agentDeleteLogic);
  const importer = useActorRef(agentImportLogic);
  /** the agent whose 'Analytics' is open (its dialog's code is loaded first) */
  const [analyticsOf, setAnalyticsOf] = useState<AgentListItem | null>(null);

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
        onAnalytics: (agent) => void AgentAnalyticsDialog.preload().then(() => setAnalyticsOf(agent), reportLoadFailure),
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
        sortFields={AGENT_SORT_FIELDS}
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
      {analyticsOf ? (
        <Suspense fallback={null}>
          <AgentAnalyticsDialog agent={analyticsOf} onClose={() => setAnalyticsOf(null)} />
        </Suspense>
      ) : null}
    </>
  );
}
