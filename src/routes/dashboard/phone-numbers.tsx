import { createFileRoute } from '@tanstack/react-router';
import { PhoneIcon } from '../../ui/icons';
import { noSearch } from '../-lib/search';
import { EmptyState, PageHeader } from './-components/PageHeader';

export const Route = createFileRoute('/dashboard/phone-numbers')({
  validateSearch: noSearch,
  component: PhoneNumbersPage,
});

function PhoneNumbersPage() {
  return (
    <>
      <PageHeader title="Phone Numbers" description="Numbers assigned to your agents and numbers you can request." />
      <EmptyState icon={PhoneIcon} title="Nothing here yet" text="Your phone numbers will be listed here." />
    </>
  );
}
