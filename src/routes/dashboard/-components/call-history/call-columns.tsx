import { Link } from '@tanstack/react-router';
import type { ColumnDef } from '@tanstack/react-table';
import {
  CALL_STATUS_LABELS,
  CALL_TYPE_LABELS,
  type Call,
  callStatusTone,
  disconnectionReasonLabel,
  formatCallCost,
  formatCallDuration,
  formatCallTime,
} from '../../../../api/contract/call';
import { prettyPhoneNumber } from '../../../../api/contract/phone';
import { Badge } from '../../../../ui/badge/badge';
import { CheckIcon, XIcon } from '../../../../ui/icons';
import * as pn from '../../../../ui/panel/panel.css';
import * as s from './call-history.css';

/** Words for a status ('No answer'); an unknown one is shown as sent. */
export const callStatusLabel = (status: string) => (CALL_STATUS_LABELS as Record<string, string>)[status] ?? status;

/** The status as a coloured badge (the specification's 'Call status colours'); the text is always there, not colour alone. */
export function CallStatusBadge({ status }: { status: string }) {
  return <Badge tone={callStatusTone(status)}>{callStatusLabel(status)}</Badge>;
}

/** A tick or a cross, named for assistive technology. */
export function SuccessMark({ successful }: { successful: boolean }) {
  return (
    <span
      role="img"
      aria-label={successful ? 'Successful' : 'Not successful'}
      className={successful ? s.tick : s.cross}
      title={successful ? 'Successful' : 'Not successful'}
    >
      {successful ? <CheckIcon size={16} /> : <XIcon size={16} />}
    </span>
  );
}

/**
 * The Call History table's columns, in their default order. Ids are the API's sort
 * fields where the column sorts (time, from, duration, cost, status); formats of the specification.
 */
export const callColumns: ColumnDef<Call, unknown>[] = [
  {
    id: 'time',
    accessorKey: 'time',
    header: 'Time',
    // the call's detail opens from its time
    cell: ({ row }) => (
      <Link to="/dashboard/call-history/$callId" params={{ callId: row.original._id }} className={s.timeLink}>
        <time dateTime={row.original.time}>{formatCallTime(row.original.time)}</time>
      </Link>
    ),
  },
  {
    id: 'from',
    accessorKey: 'from',
    header: 'Phone Number',
    cell: ({ row }) => <span className={s.number}>{prettyPhoneNumber(row.original.from)}</span>,
  },
  {
    id: 'duration',
    accessorKey: 'duration',
    header: 'Call Duration',
    meta: { align: 'end' },
    cell: ({ row }) => <span className={pn.num}>{formatCallDuration(row.original.duration)}</span>,
  },
  {
    id: 'type',
    accessorKey: 'type',
    header: 'Type',
    cell: ({ row }) => CALL_TYPE_LABELS[row.original.type],
  },
  {
    id: 'cost',
    accessorKey: 'cost',
    header: 'Cost',
    meta: { align: 'end' },
    cell: ({ row }) => <span className={pn.num}>{formatCallCost(row.original.cost)}</span>,
  },
  {
    id: 'disconnectionReason',
    accessorKey: 'disconnectionReason',
    header: 'Disconnection Reason',
    cell: ({ row }) => disconnectionReasonLabel(row.original.disconnectionReason) || '—',
  },
  {
    id: 'status',
    accessorKey: 'status',
    header: 'Call Status',
    cell: ({ row }) => <CallStatusBadge status={row.original.status} />,
  },
  {
    id: 'callSuccessful',
    accessorKey: 'callSuccessful',
    header: 'Successful',
    cell: ({ row }) => <SuccessMark successful={row.original.callSuccessful} />,
  },
];

export const CALL_COLUMN_IDS = callColumns.map((c) => c.id as string);
/** Header text of a column id (the Customize Field list). */
export const callColumnLabel = (id: string) => {
  const header = callColumns.find((c) => c.id === id)?.header;
  return typeof header === 'string' ? header : id;
};
