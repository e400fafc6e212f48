import { createFileRoute, Link } from '@tanstack/react-router';
import { Button } from '../../../ui/button/button';
import { ArrowLeftIcon, BotIcon } from '../../../ui/icons';
import { noSearch } from '../../-lib/search';
import { EmptyState, PageHeader } from '../-components/PageHeader';

export const Route = createFileRoute('/dashboard/agents/single-prompt')({
  validateSearch: noSearch,
  component: NewAgentPage,
});

function NewAgentPage() {
  return (
    <>
      <Button variant="ghost" size="sm" render={<Link to="/dashboard" />}>
        <ArrowLeftIcon />
        Back to agents
      </Button>
      <PageHeader title="Agent" description="Single prompt agent" />
      <EmptyState icon={BotIcon} title="Agent editor" text="The editor for this agent appears here." />
    </>
  );
}
