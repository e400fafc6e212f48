import { createFileRoute, Link } from '@tanstack/react-router';
import { Button } from '../../ui/button/button';
import { BotIcon, PlusIcon } from '../../ui/icons';
import { noSearch } from '../-lib/search';
import { EmptyState, PageHeader } from './-components/PageHeader';

export const Route = createFileRoute('/dashboard/')({
  validateSearch: noSearch,
  component: AgentsPage,
});

function AgentsPage() {
  return (
    <>
      <PageHeader
        title="Agents"
        description="Voice agents that answer and place your calls."
        actions={
          <>
            <Button variant="secondary">Import</Button>
            <Button render={<Link to="/dashboard/agents/single-prompt" />}>
              <PlusIcon />
              Create an Agent
            </Button>
          </>
        }
      />
      <EmptyState icon={BotIcon} title="Nothing here yet" text="Your agents will be listed here." />
    </>
  );
}
