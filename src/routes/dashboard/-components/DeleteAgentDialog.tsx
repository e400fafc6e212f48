import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import type { agentDeleteMachine } from '../../../machines/agentDelete.machine';
import { AlertDialog } from '../../../ui/alert-dialog/alert-dialog';

export type AgentDeleteActor = ActorRefFrom<typeof agentDeleteMachine>;

/** The delete confirmation: an outside click does not close it; Confirm reads 'Deleting...' in flight. */
export function DeleteAgentDialog({ actor }: { actor: AgentDeleteActor }) {
  const open = useSelector(actor, (snap) => snap.hasTag('open'));
  const busy = useSelector(actor, (snap) => snap.hasTag('busy'));
  const name = useSelector(actor, (snap) => snap.context.agent?.name ?? '');
  return (
    <AlertDialog
      open={open}
      onClose={() => actor.send({ type: 'dialog.close' })}
      onConfirm={() => actor.send({ type: 'delete.confirm' })}
      title="Delete agent?"
      description={`“${name}” will be deleted permanently, and phone numbers that use it will no longer answer with it. This cannot be undone.`}
      confirmLabel="Delete"
      confirming={busy}
      confirmingLabel="Deleting..."
    />
  );
}
