import { createFileRoute, Link } from '@tanstack/react-router';
import { billing, billingKeys } from '../../api/billing';
import type { InvoiceResponse } from '../../api/contract/billing';
import { Button } from '../../ui/button/button';
import { ArrowLeftIcon } from '../../ui/icons';
import { noSearch } from '../-lib/search';
import { useQuery } from '../-lib/useQuery';
import * as s from './-components/billing/invoice.css';
import { formatUsd } from './-components/format';
import { QueryView } from './-components/QueryStates';

/** The printable invoice of one month's statement (opened from Billing History in a new tab). */
export const Route = createFileRoute('/dashboard/billing_/invoice/$month')({
  validateSearch: noSearch,
  component: InvoicePage,
});

function InvoicePage() {
  const { month } = Route.useParams();
  const query = useQuery(billingKeys.invoice(month), () => billing.invoice(month));
  return (
    <div className={s.page}>
      <div className={s.toolbar}>
        <Button variant="ghost" render={<Link to="/dashboard/billing" />}>
          <ArrowLeftIcon />
          Back to billing
        </Button>
        <Button onClick={() => window.print()} disabled={!query.data}>
          Print
        </Button>
      </div>
      <QueryView query={query} loadingLabel="Loading invoice" errorText="Could not load this invoice.">
        {({ invoice }) => <Invoice invoice={invoice} />}
      </QueryView>
    </div>
  );
}

function Invoice({ invoice }: { invoice: InvoiceResponse['invoice'] }) {
  const st = invoice.statement;
  return (
    <article className={s.sheet} aria-labelledby="invoice-title">
      <header className={s.head}>
        <div>
          <h1 id="invoice-title" className={s.title}>
            Invoice
          </h1>
          <p className={s.meta}>{invoice.number}</p>
        </div>
        <dl className={s.facts}>
          <dt>Issued</dt>
          <dd>{invoice.issuedOn}</dd>
          <dt>Period</dt>
          <dd>
            {st.periodStart} to {st.periodEnd}
          </dd>
          <dt>Status</dt>
          <dd>{st.status}</dd>
        </dl>
      </header>
      <section className={s.parties}>
        <div>
          <h2 className={s.partyTitle}>From</h2>
          <p>Parley</p>
        </div>
        <div>
          <h2 className={s.partyTitle}>Bill to</h2>
          <p>{invoice.billTo.name}</p>
          <p>{invoice.billTo.email}</p>
          {invoice.billTo.address ? <p className={s.address}>{invoice.billTo.address}</p> : null}
          {invoice.billTo.taxId ? <p>Tax ID: {invoice.billTo.taxId}</p> : null}
        </div>
      </section>
      <table className={s.items} aria-label={`Items of ${st.title}`}>
        <thead>
          <tr>
            <th scope="col">Item</th>
            <th scope="col">Details</th>
            <th scope="col" className={s.amount}>
              Amount
            </th>
          </tr>
        </thead>
        <tbody>
          {st.items.map((item) => (
            <tr key={item.name}>
              <th scope="row">{item.name}</th>
              <td>{item.details}</td>
              <td className={s.amount}>{formatUsd(item.amount)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" colSpan={2}>
              Total ({st.title})
            </th>
            <td className={s.amount}>{formatUsd(st.amount)}</td>
          </tr>
        </tfoot>
      </table>
      <p className={s.footnote}>{st.details}. Card payments are not available yet.</p>
    </article>
  );
}
