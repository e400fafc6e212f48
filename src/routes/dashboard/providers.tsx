import { createFileRoute } from '@tanstack/react-router';
import { PlugIcon } from '../../ui/icons';
import { noSearch } from '../-lib/search';
import { EmptyState, PageHeader } from './-components/PageHeader';

export const Route = createFileRoute('/dashboard/providers')({
  validateSearch: noSearch,
  component: ProvidersPage,
});

function ProvidersPage() {
  return (
    <>
      <PageHeader title="Providers" description="Add keys securely to connect your own Providers within your application." />
      <EmptyState icon={PlugIcon} title="Nothing here yet" text="Provider connections will be listed here." />
    </>
  );
}
