import { Link } from '@tanstack/react-router';
import type { Batch } from '../../../../api/contract/batch';
import { Button } from '../../../../ui/button/button';
import * as pn from '../../../../ui/panel/panel.css';
import { formatCount, formatDateTime } from '../format';
import * as p from '../page.css';
import { BatchStatusBadge } from './status';

/** The company's batch calls, newest first; a name opens the detail view. */
export function BatchList({
  batches,
  total,
  page,
  pageSize,
  onPage,
}: {
  batches: Batch[];
  total: number;
  page: number;
  pageSize: number;
  onPage: (page: number) => void;
}) {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const first = (page - 1) * pageSize + 1;
  return (
    <div className={pn.panel}>
      <div className={pn.tableWrap}>
        <table className={pn.table} aria-label="Batch calls">
          <thead>
            <tr>
              {['Name', 'Status', 'Recipients', 'Sent', 'Created'].map((h, i) => (
                <th key={h} className={i === 2 || i === 3 ? `${pn.th} ${pn.num}` : pn.th} scope="col">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {batches.map((b) => (
              <tr key={b._id}>
                <th className={`${pn.td} ${pn.rowHeader}`} scope="row">
                  <Link to="/dashboard/batch-call" search={(prev) => ({ ...prev, batch: b._id })} className={p.link}>
                    {b.name}
                  </Link>
                </th>
                <td className={pn.td}>
                  <BatchStatusBadge status={b.status} allFailed={b.allFailed} />
                </td>
                <td className={`${pn.td} ${pn.num}`}>{formatCount(b.recipients)}</td>
                <td className={`${pn.td} ${pn.num}`}>{formatCount(b.sent)}</td>
                <td className={pn.td}>{formatDateTime(b.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className={p.row} style={{ padding: '0.75rem 1rem' }}>
        <span className={p.muted}>
          Showing {first}-{first + batches.length - 1} of {total} records
        </span>
        <span className={p.spacer} />
        <span className={p.muted}>
          Page {page} of {pages}
        </span>
        <Button variant="secondary" size="sm" disabled={page <= 1} onClick={() => onPage(page - 1)}>
          Previous
        </Button>
        <Button variant="secondary" size="sm" disabled={page >= pages} onClick={() => onPage(page + 1)}>
          Next
        </Button>
      </div>
    </div>
  );
}
