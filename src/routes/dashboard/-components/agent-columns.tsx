import { Link } from '@tanstack/react-router';
import type { ColumnDef } from '@tanstack/react-table';
import { agents } from '../../../api/agents';
import { agentExportFileName, agentExportOf } from '../../../api/contract/agent/export';
import type { AgentListItem } from '../../../api/contract/agent/responses';
import { VOICE_MODELS } from '../../../api/contract/models';
import { isApiError } from '../../../api/errors';
import { toast } from '../../../app/toaster';
import { Badge } from '../../../ui/badge/badge';
import { RowActions } from '../../../ui/data-table/data-table';
import { MenuItem, MenuSeparator } from '../../../ui/menu/menu';
import { downloadJson } from '../../-lib/download';
import * as s from './agents.css';

export interface AgentRowActions {
  onEdit: (agent: AgentListItem) => void;
  onDelete: (agent: AgentListItem) => void;
  onExport: (agent: AgentListItem) => void;
  /** 'Analytics': the agent's calls, success rate, average duration and cost */
  onAnalytics: (agent: AgentListItem) => void;
}

const voiceModelLabel = (id: string) => VOICE_MODELS.find((m) => m.id === id)?.label ?? id;

/**
 * The Agents table's columns: Agent Name, Type (single prompt or conversation flow), Voice ID, Voice Model, Actions. Column ids
 * are the list API's sort fields.
 */
export function agentColumns({ onEdit, onDelete, onExport, onAnalytics }: AgentRowActions): ColumnDef<AgentListItem, string>[] {
  return [
    {
      accessorKey: 'agent_name',
      header: 'Agent Name',
      cell: ({ row }) => (
        <Link to="/dashboard/agents/$agentId" params={{ agentId: row.original._id }} className={s.nameLink}>
          {row.original.agent_name}
        </Link>
      ),
    },
    {
      id: 'kind',
      header: 'Type',
      enableSorting: false,
      accessorFn: (agent) => agent.kind,
      cell: ({ row }) =>
        row.original.kind === 'conversation_flow' ? (
          <Badge tone="blue">Conversation flow</Badge>
        ) : (
          <Badge tone="grey">Single prompt</Badge>
        ),
    },
    {
      accessorKey: 'voice_id',
      header: 'Voice ID',
      cell: ({ getValue }) => <span className={s.mono}>{getValue()}</span>,
    },
    {
      accessorKey: 'voice_model',
      header: 'Voice Model',
      cell: ({ getValue }) => <Badge tone="blue">{voiceModelLabel(getValue())}</Badge>,
    },
    {
      id: 'actions',
      header: 'Actions',
      enableSorting: false,
      enableHiding: false,
      meta: { align: 'end' },
      cell: ({ row }) => (
        <RowActions label={`Actions for ${row.original.agent_name}`}>
          <MenuItem onClick={() => onEdit(row.original)}>Edit</MenuItem>
          <MenuItem onClick={() => onExport(row.original)}>Export</MenuItem>
          <MenuItem onClick={() => onAnalytics(row.original)}>Analytics</MenuItem>
          <MenuSeparator />
          <MenuItem destructive onClick={() => onDelete(row.original)}>
            Delete
          </MenuItem>
        </RowActions>
      ),
    },
  ];
}

/** 'Export': reads the full agent (GET /agent/{id}) and downloads it as an agent export file. */
export async function exportAgent(id: string): Promise<void> {
  try {
    const { data } = await agents.get(id, { notify: false });
    downloadJson(agentExportFileName(data.agent.name), agentExportOf(data.agent));
  } catch (error) {
    toast({
      title: 'Export failed',
      description: isApiError(error) ? error.message : 'Could not export the agent. Please try again.',
      variant: 'destructive',
    });
  }
}
