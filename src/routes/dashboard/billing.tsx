import { createFileRoute } from '@tanstack/react-router';
import { CreditCardIcon } from '../../ui/icons';
import { noSearch } from '../-lib/search';
import { EmptyState, PageHeader } from './-components/PageHeader';

export const Route = createFileRoute('/dashboard/billing')({
  validateSearch: noSearch,
  component: BillingPage,
});

function BillingPage() {
  return (
    <>
      <PageHeader title="Billing" description="Invoices, usage and limits of your account." />
      <EmptyState icon={CreditCardIcon} title="Nothing here yet" text="Your billing history will appear here." />
    </>
  );
}
