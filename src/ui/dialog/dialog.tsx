import * as Ariakit from '@ariakit/react';
import type { ReactNode } from 'react';
import { Button } from '../button/button';
import { cx } from '../cx';
import { XIcon } from '../icons';
import * as s from './dialog.css';

export interface DialogProps extends Omit<Ariakit.DialogProps, 'open' | 'onClose' | 'title' | 'children' | 'store'> {
  /** Controlled: the owning machine decides (`snap.matches('open')`). */
  open: boolean;
  /** Called on Escape, backdrop click (unless hideOnInteractOutside={false}) and the close button. */
  onClose: () => void;
  /** Rendered as the DialogHeading, which names the dialog. */
  title: ReactNode;
  description?: ReactNode;
  children?: ReactNode;
  /** Buttons row at the bottom (right-aligned). */
  footer?: ReactNode;
  size?: 'sm' | 'md' | 'lg' | 'xl' | 'full';
  /** Hides the top-right close button (the dialog still closes on Escape). */
  hideCloseButton?: boolean;
  bodyClassName?: string;
}

/** Modal dialog with backdrop, heading, close button ('Close') and optional footer. Unmounts when hidden. */
export function Dialog({
  open,
  onClose,
  title,
  description,
  children,
  footer,
  size,
  hideCloseButton = false,
  className,
  bodyClassName,
  ...rest
}: DialogProps) {
  return (
    <Ariakit.Dialog
      open={open}
      onClose={onClose}
      backdrop={<div className={s.backdrop} />}
      unmountOnHide
      {...rest}
      className={cx(s.dialog({ size }), className)}
    >
      <div className={s.header}>
        <div className={s.headings}>
          <Ariakit.DialogHeading className={s.title}>{title}</Ariakit.DialogHeading>
          {description ? <Ariakit.DialogDescription className={s.description}>{description}</Ariakit.DialogDescription> : null}
        </div>
        {hideCloseButton ? null : (
          <Ariakit.DialogDismiss aria-label="Close" className={s.close} render={<Button variant="ghost" size="icon" />}>
            <XIcon size={18} />
          </Ariakit.DialogDismiss>
        )}
      </div>
      <div className={cx(s.body, bodyClassName)}>{children}</div>
      {footer ? <div className={s.footer}>{footer}</div> : null}
    </Ariakit.Dialog>
  );
}

export { s as dialogStyles };
