import { Dialog } from '../../ui/dialog/dialog';

export interface ContactDialogProps {
  open: boolean;
  onClose: () => void;
}

/** 'Get in Touch' dialog of the landing page. The form (name, email, message) is added by the contact feature. */
export function ContactDialog({ open, onClose }: ContactDialogProps) {
  return (
    <Dialog open={open} onClose={onClose} title="Get in Touch" description="Questions about Parley? Send us a message.">
      {null}
    </Dialog>
  );
}
