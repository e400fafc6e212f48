import * as Ariakit from '@ariakit/react';
import type { ReactElement, ReactNode } from 'react';
import * as s from './tooltip.css';

export interface TooltipProps {
  /** What the tooltip says; it also describes the anchor (aria-describedby). */
  content: ReactNode;
  /** The anchor, e.g. a Button. A disabled button needs `accessibleWhenDisabled` to stay focusable. */
  children: ReactElement;
  placement?: Ariakit.TooltipProviderProps['placement'];
}

/** A tooltip shown on hover and keyboard focus; it describes its anchor for assistive technology. */
export function Tooltip({ content, children, placement = 'top' }: TooltipProps) {
  return (
    <Ariakit.TooltipProvider placement={placement} showTimeout={300}>
      <Ariakit.TooltipAnchor render={children} />
      <Ariakit.Tooltip portal className={s.tooltip}>
        {content}
      </Ariakit.Tooltip>
    </Ariakit.TooltipProvider>
  );
}
