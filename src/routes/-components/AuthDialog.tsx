import { Dialog } from '../../ui/dialog/dialog';

export interface AuthDialogProps {
  open: boolean;
  onClose: () => void;
}

/** 'Welcome to Parley' dialog (Login / Sign Up tabs). The forms are added by the auth feature. */
export function AuthDialog({ open, onClose }: AuthDialogProps) {
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title="Welcome to Parley"
      description="Log in or create an account to build your voice agents."
    >
      {null}
    </Dialog>
  );
}
