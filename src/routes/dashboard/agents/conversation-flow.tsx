import { createFileRoute } from '@tanstack/react-router';
import { waitForHydration } from '../../../session';
import { noSearch } from '../../-lib/search';
import { AgentEditor, hasStoredSession } from './-components/AgentEditor';

export const Route = createFileRoute('/dashboard/agents/conversation-flow')({
  validateSearch: noSearch,
  component: NewFlowAgentPage,
});

/** A new conversation-flow agent: the flow editor with a start and an end node. */
function NewFlowAgentPage() {
  const { session } = Route.useRouteContext();
  return <AgentEditor kind="conversation_flow" whenHydrated={() => waitForHydration(session)} signedIn={hasStoredSession} />;
}
