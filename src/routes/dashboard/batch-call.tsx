import { createFileRoute } from '@tanstack/react-router';
import { LayersIcon } from '../../ui/icons';
import { noSearch } from '../-lib/search';
import { EmptyState, PageHeader } from './-components/PageHeader';

export const Route = createFileRoute('/dashboard/batch-call')({
  validateSearch: noSearch,
  component: BatchCallPage,
});

function BatchCallPage() {
  return (
    <>
      <PageHeader title="Batch Call" description="Call a list of recipients with one of your agents." />
      <EmptyState icon={LayersIcon} title="Nothing here yet" text="Your batch calls will be listed here." />
    </>
  );
}
