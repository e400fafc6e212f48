import * as Ariakit from '@ariakit/react';
import { type ReactNode, useRef } from 'react';
import { Button } from '../button/button';
import { cx } from '../cx';
import { dialogStyles as s } from '../dialog/dialog';

export interface AlertDialogProps {
  open: boolean;
  /** Cancel, Escape. Never called by an outside click. */
  onClose: () => void;
  onConfirm: () => void;
  title: ReactNode;
  description?: ReactNode;
  children?: ReactNode;
  /** Default 'Continue'. */
  confirmLabel?: ReactNode;
  /** Default 'Cancel'. */
  cancelLabel?: ReactNode;
  /** While true the confirm button shows a spinner and `confirmingLabel` (e.g. 'Deleting...'); closing is blocked. */
  confirming?: boolean;
  confirmingLabel?: ReactNode;
  /** Red confirm button. Default true. */
  destructive?: boolean;
  className?: string;
}

/** role="alertdialog": asks to confirm a consequential action. Focus starts on Cancel. */
export function AlertDialog({
  open,
  onClose,
  onConfirm,
  title,
  description,
  children,
  confirmLabel = 'Continue',
  cancelLabel = 'Cancel',
  confirming = false,
  confirmingLabel,
  destructive = true,
  className,
}: AlertDialogProps) {
  const cancelRef = useRef<HTMLButtonElement>(null);
  return (
    <Ariakit.Dialog
      role="alertdialog"
      open={open}
      onClose={onClose}
      hideOnInteractOutside={false}
      hideOnEscape={!confirming}
      initialFocus={cancelRef}
      backdrop={<div className={s.backdrop} />}
      unmountOnHide
      className={cx(s.dialog({ size: 'sm' }), className)}
    >
      <div className={cx(s.header, !children && s.headerAlone)}>
        <div className={s.headings}>
          <Ariakit.DialogHeading className={s.title}>{title}</Ariakit.DialogHeading>
          {description ? <Ariakit.DialogDescription className={s.description}>{description}</Ariakit.DialogDescription> : null}
        </div>
      </div>
      {children ? <div className={s.body}>{children}</div> : null}
      <div className={s.footer}>
        <Button ref={cancelRef} variant="secondary" onClick={onClose} disabled={confirming}>
          {cancelLabel}
        </Button>
        <Button variant={destructive ? 'destructive' : 'primary'} onClick={onConfirm} loading={confirming}>
          {confirming && confirmingLabel ? confirmingLabel : confirmLabel}
        </Button>
      </div>
    </Ariakit.Dialog>
  );
}
