import { createFileRoute } from '@tanstack/react-router';
import { waitForHydration } from '../../../session';
import { noSearch } from '../../-lib/search';
import { AgentEditor, hasStoredSession } from './-components/AgentEditor';

export const Route = createFileRoute('/dashboard/agents/$agentId')({
  validateSearch: noSearch,
  component: AgentPage,
});

/** An existing agent, loaded from the server (GET /agent/{id}); a new editor for every agent id. */
function AgentPage() {
  const { agentId } = Route.useParams();
  const { session } = Route.useRouteContext();
  return (
    <AgentEditor key={agentId} agentId={agentId} whenHydrated={() => waitForHydration(session)} signedIn={hasStoredSession} />
  );
}
