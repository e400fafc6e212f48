import type { ColumnDef } from '@tanstack/react-table';
import {
  type FreeNumber,
  PHONE_PROVIDER_LABELS,
  type PhoneNumber,
  type PhoneProvider,
  prettyPhoneNumber,
} from '../../../../api/contract/phone';
import { Badge } from '../../../../ui/badge/badge';
import { Button } from '../../../../ui/button/button';
import { RowActions } from '../../../../ui/data-table/data-table';
import { CheckIcon } from '../../../../ui/icons';
import { MenuItem, MenuSeparator } from '../../../../ui/menu/menu';
import { visuallyHidden } from '../../../../ui/shared.css';
import * as s from './phone.css';

/** What a row of either tab shows first: the number, formatted for people. */
const phoneColumn = <Row extends { phone: string }>(note?: (row: Row) => string): ColumnDef<Row, string> => ({
  accessorKey: 'phone',
  header: 'Phone Number',
  cell: ({ row }) => (
    <span className={s.numberCell}>
      <span className={s.number}>{prettyPhoneNumber(row.original.phone)}</span>
      {note ? <span className={s.numberNote}>{note(row.original)}</span> : null}
    </span>
  ),
});

const providerColumn = <Row extends { provider: PhoneProvider }>(): ColumnDef<Row, string> => ({
  accessorKey: 'provider',
  header: 'Provider',
  cell: ({ row }) => <Badge>{PHONE_PROVIDER_LABELS[row.original.provider]}</Badge>,
});

/** 'Inbound: Ava', 'Outbound: Bea' or 'No agent', after the nickname if there is one. */
export function assignmentNote(n: PhoneNumber): string {
  const agent = n.outbound_agent_name
    ? `Outbound: ${n.outbound_agent_name}`
    : n.inbound_agent_name
      ? `Inbound: ${n.inbound_agent_name}`
      : 'No agent';
  return n.nickname ? `${n.nickname} · ${agent}` : agent;
}

export interface AssignedRowActions {
  onAssign: (n: PhoneNumber) => void;
  onEdit: (n: PhoneNumber) => void;
  onDelete: (n: PhoneNumber) => void;
}

/** The Assigned Numbers table: Phone Number, Provider, Actions. */
export function assignedColumns({ onAssign, onEdit, onDelete }: AssignedRowActions): ColumnDef<PhoneNumber, string>[] {
  return [
    phoneColumn<PhoneNumber>(assignmentNote),
    providerColumn<PhoneNumber>(),
    {
      id: 'actions',
      header: 'Actions',
      enableSorting: false,
      enableHiding: false,
      meta: { align: 'end' },
      cell: ({ row }) => (
        <RowActions label={`Actions for ${prettyPhoneNumber(row.original.phone)}`}>
          <MenuItem onClick={() => onAssign(row.original)}>Assign Agent</MenuItem>
          <MenuItem onClick={() => onEdit(row.original)}>Edit</MenuItem>
          <MenuSeparator />
          <MenuItem destructive onClick={() => onDelete(row.original)}>
            Delete
          </MenuItem>
        </RowActions>
      ),
    },
  ];
}

export interface AvailableRowState {
  /** numbers requested on this visit (the server's `requested` covers earlier visits) */
  requested: readonly string[];
  /** the number whose request is in flight */
  requesting: string | undefined;
  onRequest: (phone: string) => void;
}

/** The Available Numbers table: Phone Number, Provider and 'Request' (or a green 'Requested'). */
export function availableColumns({ requested, requesting, onRequest }: AvailableRowState): ColumnDef<FreeNumber, string>[] {
  return [
    phoneColumn<FreeNumber>(),
    providerColumn<FreeNumber>(),
    {
      id: 'request',
      header: 'Request',
      enableSorting: false,
      enableHiding: false,
      meta: { align: 'end' },
      cell: ({ row }) => {
        const n = row.original;
        const shown = prettyPhoneNumber(n.phone);
        if (n.requested || requested.includes(n.phone))
          return (
            <Badge tone="green">
              <CheckIcon size={12} aria-hidden="true" />
              Requested
            </Badge>
          );
        return (
          <Button
            size="sm"
            variant="secondary"
            loading={requesting === n.phone}
            disabled={requesting !== undefined && requesting !== n.phone}
            onClick={() => onRequest(n.phone)}
          >
            Request<span className={visuallyHidden}> {shown}</span>
          </Button>
        );
      },
    },
  ];
}
