import { type ButtonHTMLAttributes, cloneElement, forwardRef, isValidElement, type MouseEvent, type ReactElement } from 'react';
import { cx } from '../cx';
import { Spinner } from '../spinner/spinner';
import * as s from './button.css';

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: 'primary' | 'secondary' | 'ghost' | 'destructive' | 'link';
  size?: 'sm' | 'md' | 'lg' | 'icon' | 'iconSm';
  fullWidth?: boolean;
  /** Shows a spinner before the label, marks the button aria-busy and disables it. The name stays the label. */
  loading?: boolean;
  /** Renders this element instead of a <button>, with the button's props merged in (e.g. `<Link to="..." />`). */
  render?: ReactElement<Record<string, unknown>>;
  /** Disabled, yet still focusable and hoverable (aria-disabled): a tooltip can say why. */
  accessibleWhenDisabled?: boolean;
}

/**
 * The one button: a native <button> (Ariakit components that need a button render this one through
 * their `render` prop, and it forwards their props and ref). Kept free of Ariakit so the landing page's
 * first load does not carry it. Icon-only buttons (`size="icon"`) must get an `aria-label`.
 * Render as a link with `render={<Link to="..." />}`.
 */
export const Button = forwardRef<HTMLButtonElement, ButtonProps>(function Button(
  {
    variant,
    size,
    fullWidth,
    loading = false,
    disabled,
    accessibleWhenDisabled,
    className,
    children,
    type,
    render,
    onClick,
    ...rest
  },
  ref,
) {
  const off = disabled || loading;
  // aria-disabled keeps it focusable: clicks (and Enter/Space, which click) are dropped here
  const inert = off && accessibleWhenDisabled;
  const props = {
    ref,
    ...rest,
    disabled: off && !inert ? true : undefined,
    'aria-disabled': inert || undefined,
    'aria-busy': loading || undefined,
    className: cx(s.button({ variant, size, fullWidth }), className),
    onClick: (e: MouseEvent<HTMLButtonElement>) => {
      if (inert) {
        e.preventDefault();
        return;
      }
      onClick?.(e);
    },
    children: (
      <>
        {loading && <Spinner size="sm" decorative />}
        {children}
      </>
    ),
  };
  if (isValidElement(render)) {
    const own = render.props;
    return cloneElement(render, { ...props, ...own, className: cx(props.className, own.className as string | undefined) });
  }
  return <button type={type ?? 'button'} {...props} />;
});
