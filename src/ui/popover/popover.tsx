import * as Ariakit from '@ariakit/react';
import type { ReactElement, ReactNode } from 'react';
import { cx } from '../cx';
import * as s from './popover.css';

export interface PopoverProps {
  /** The disclosure button, e.g. `<Button variant="secondary">Settings</Button>` (it gets aria-expanded). */
  trigger: ReactElement;
  /** Heading of the popover; also names its dialog. Without it pass `aria-label`. */
  title?: ReactNode;
  'aria-label'?: string;
  children: ReactNode;
  /** Optional control: leave both unset for an uncontrolled popover. */
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
  placement?: Ariakit.PopoverProviderProps['placement'];
  className?: string;
  /** the element focused when it opens (default: the first focusable one) */
  initialFocus?: Ariakit.PopoverProps['initialFocus'];
}

/** A non-modal popup (role=dialog) anchored to its trigger. Escape and outside clicks close it. */
export function Popover({
  trigger,
  title,
  'aria-label': ariaLabel,
  children,
  open,
  onOpenChange,
  placement = 'bottom-start',
  className,
  initialFocus,
}: PopoverProps) {
  return (
    <Ariakit.PopoverProvider open={open} setOpen={onOpenChange} placement={placement}>
      <Ariakit.PopoverDisclosure render={trigger} />
      <Ariakit.Popover
        gutter={6}
        portal
        unmountOnHide
        initialFocus={initialFocus}
        aria-label={ariaLabel}
        className={cx(s.popover, className)}
      >
        {title ? <Ariakit.PopoverHeading className={s.heading}>{title}</Ariakit.PopoverHeading> : null}
        {children}
      </Ariakit.Popover>
    </Ariakit.PopoverProvider>
  );
}

/** A button inside a Popover that closes it (render your Button through `render`). */
export const PopoverDismiss = Ariakit.PopoverDismiss;
