import { createFileRoute } from '@tanstack/react-router';
import { waitForHydration } from '../../../session';
import { noSearch } from '../../-lib/search';
import { AgentEditor, hasStoredSession } from './-components/AgentEditor';

export const Route = createFileRoute('/dashboard/agents/single-prompt')({
  validateSearch: noSearch,
  component: NewAgentPage,
});

/** A new single-prompt agent: the editor with the specification's defaults. */
function NewAgentPage() {
  const { session } = Route.useRouteContext();
  return <AgentEditor whenHydrated={() => waitForHydration(session)} signedIn={hasStoredSession} />;
}
