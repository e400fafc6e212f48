import { useSelector } from '@xstate/react';
import type { ActorRefFrom } from 'xstate';
import { prettyPhoneNumber } from '../../../../api/contract/phone';
import type { phoneNumberDeleteMachine } from '../../../../machines/phoneNumberDelete.machine';
import { AlertDialog } from '../../../../ui/alert-dialog/alert-dialog';

export type PhoneNumberDeleteActor = ActorRefFrom<typeof phoneNumberDeleteMachine>;

/** 'Confirm Deletion': an outside click does not close it; Delete reads 'Deleting...' in flight. */
export function DeletePhoneNumberDialog({ actor }: { actor: PhoneNumberDeleteActor }) {
  const open = useSelector(actor, (snap) => snap.hasTag('open'));
  const busy = useSelector(actor, (snap) => snap.hasTag('busy'));
  const number = useSelector(actor, (snap) => snap.context.number);
  const shown = number ? prettyPhoneNumber(number.phone) : '';
  return (
    <AlertDialog
      open={open}
      onClose={() => actor.send({ type: 'dialog.close' })}
      onConfirm={() => actor.send({ type: 'delete.confirm' })}
      title="Confirm Deletion"
      description={
        number?.origin === 'pool'
          ? `${shown} will be removed from your account and returned to the available numbers. Its agents and settings are cleared.`
          : `${shown} will be deleted from your account. This cannot be undone.`
      }
      confirmLabel="Delete"
      confirming={busy}
      confirmingLabel="Deleting..."
    />
  );
}
