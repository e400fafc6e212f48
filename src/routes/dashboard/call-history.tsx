import { createFileRoute } from '@tanstack/react-router';
import { HistoryIcon } from '../../ui/icons';
import { noSearch } from '../-lib/search';
import { EmptyState, PageHeader } from './-components/PageHeader';

export const Route = createFileRoute('/dashboard/call-history')({
  validateSearch: noSearch,
  component: CallHistoryPage,
});

function CallHistoryPage() {
  return (
    <>
      <PageHeader title="Call History" description="Every inbound and outbound call your agents handled." />
      <EmptyState icon={HistoryIcon} title="Nothing here yet" text="Calls will appear here once your agents start talking." />
    </>
  );
}
