import { Link } from '@tanstack/react-router';
import { Fragment, useState } from 'react';
import { billing, billingKeys } from '../../../../api/billing';
import { BILLING_MESSAGES, type Statement } from '../../../../api/contract/billing';
import { Badge } from '../../../../ui/badge/badge';
import { cx } from '../../../../ui/cx';
import { ChevronRightIcon } from '../../../../ui/icons';
import * as pn from '../../../../ui/panel/panel.css';
import { useQuery } from '../../../-lib/useQuery';
import { formatUsd } from '../format';
import * as p from '../page.css';
import { QueryView } from '../QueryStates';

/** Billing History: one statement per month from the server; a row expands to its items. */
export function StatementsTable() {
  const query = useQuery(billingKeys.statements, () => billing.statements());
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string) =>
    setExpanded((prev) => {
      const next = new Set(prev);
      if (!next.delete(id)) next.add(id);
      return next;
    });

  return (
    <div className={p.section}>
      <div className={pn.panel}>
        <QueryView query={query} loadingLabel="Loading billing history" errorText="Could not load your billing history.">
          {({ statements }) =>
            statements.length === 0 ? (
              <p className={p.stateBox}>No statements yet.</p>
            ) : (
              <div className={pn.tableWrap}>
                <table className={pn.table} aria-label="Billing history">
                  <thead>
                    <tr>
                      <th className={pn.th} scope="col">
                        Title
                      </th>
                      <th className={cx(pn.th, pn.num)} scope="col">
                        Amount
                      </th>
                      <th className={pn.th} scope="col">
                        Details
                      </th>
                      <th className={pn.th} scope="col">
                        Status
                      </th>
                      <th className={pn.th} scope="col">
                        Invoice
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {statements.map((st) => (
                      <StatementRows key={st.id} statement={st} open={expanded.has(st.id)} onToggle={() => toggle(st.id)} />
                    ))}
                  </tbody>
                </table>
              </div>
            )
          }
        </QueryView>
      </div>
      <p className={p.muted}>{BILLING_MESSAGES.legacyNote}</p>
    </div>
  );
}

function StatementRows({ statement: st, open, onToggle }: { statement: Statement; open: boolean; onToggle: () => void }) {
  const itemsId = `statement-items-${st.id}`;
  return (
    <Fragment>
      <tr>
        <td className={pn.td}>
          <button
            type="button"
            className={p.disclosure}
            aria-expanded={open}
            aria-controls={open ? st.items.map((_, i) => `${itemsId}-${i}`).join(' ') : undefined}
            onClick={onToggle}
          >
            <ChevronRightIcon className={cx(p.chevron, open && p.chevronOpen)} />
            {st.title}
          </button>
        </td>
        <td className={cx(pn.td, pn.num)}>{formatUsd(st.amount)}</td>
        <td className={pn.td}>{st.details}</td>
        <td className={pn.td}>
          <Badge tone={st.status === 'Open' ? 'blue' : 'grey'}>{st.status}</Badge>
        </td>
        <td className={pn.td}>
          <Link
            to="/dashboard/billing/invoice/$month"
            params={{ month: st.id }}
            target="_blank"
            className={p.link}
            aria-label={`Invoice for ${st.title}`}
          >
            View invoice
          </Link>
        </td>
      </tr>
      {open
        ? st.items.map((item, i) => (
            <tr key={item.name} id={`${itemsId}-${i}`} className={pn.subRow}>
              <td className={pn.td}>
                <span style={{ paddingLeft: '1.5rem' }}>{item.name}</span>
              </td>
              <td className={cx(pn.td, pn.num)}>{formatUsd(item.amount)}</td>
              <td className={pn.td} colSpan={3}>
                {item.details}
              </td>
            </tr>
          ))
        : null}
    </Fragment>
  );
}
