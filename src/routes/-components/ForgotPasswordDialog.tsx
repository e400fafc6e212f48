import { useSelector } from '@xstate/react';
import { Dialog } from '../../ui/dialog/dialog';
import { type ForgotPasswordActor, ForgotPasswordFlow } from './ForgotPassword';

/** The landing page's forgot-password dialog. */
export function ForgotPasswordDialog({ actor }: { actor: ForgotPasswordActor }) {
  const open = useSelector(actor, (snap) => snap.hasTag('open'));
  const close = () => actor.send({ type: 'dialog.close' });
  return (
    <Dialog open={open} onClose={close} title="Forgot password" size="sm">
      <ForgotPasswordFlow actor={actor} onDone={close} />
    </Dialog>
  );
}
