import * as Ariakit from '@ariakit/react';
import { forwardRef } from 'react';
import { cx } from '../cx';
import { Spinner } from '../spinner/spinner';
import * as s from './button.css';

export interface ButtonProps extends Ariakit.ButtonProps {
  variant?: 'primary' | 'secondary' | 'ghost' | 'destructive' | 'link';
  size?: 'sm' | 'md' | 'lg' | 'icon' | 'iconSm';
  fullWidth?: boolean;
  /** Shows a spinner before the label, marks the button aria-busy and disables it. The name stays the label. */
  loading?: boolean;
}

/**
 * The one button. Icon-only buttons (`size="icon"`) must get an `aria-label`.
 * Render as a link with `render={<Link to="..." />}`.
 */
export const Button = forwardRef<HTMLButtonElement, ButtonProps>(function Button(
  { variant, size, fullWidth, loading = false, disabled, className, children, type, ...rest },
  ref,
) {
  return (
    <Ariakit.Button
      ref={ref}
      type={type ?? (rest.render ? undefined : 'button')}
      {...rest}
      disabled={disabled || loading}
      aria-busy={loading || undefined}
      className={cx(s.button({ variant, size, fullWidth }), className)}
    >
      {loading && <Spinner size="sm" decorative />}
      {children}
    </Ariakit.Button>
  );
});
