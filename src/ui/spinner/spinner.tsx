import type { HTMLAttributes } from 'react';
import { cx } from '../cx';
import * as s from './spinner.css';

export interface SpinnerProps extends HTMLAttributes<HTMLSpanElement> {
  /** Accessible name, read by screen readers. Default 'Loading'. */
  label?: string;
  size?: 'sm' | 'md' | 'lg';
  /** Render without role=status (e.g. inside a button that already reports aria-busy). */
  decorative?: boolean;
}

/** A spinning ring. Announced as a status with an accessible label unless `decorative`. */
export function Spinner({ label = 'Loading', size = 'md', decorative = false, className, ...rest }: SpinnerProps) {
  const a11y = decorative ? { 'aria-hidden': true as const } : { role: 'status', 'aria-label': label };
  return (
    <span {...a11y} {...rest} className={cx(s.root, className)}>
      <svg className={s.svg({ size })} viewBox="0 0 24 24" fill="none" aria-hidden="true">
        <circle cx="12" cy="12" r="9.5" stroke="currentColor" strokeOpacity="0.2" strokeWidth="3" />
        <path d="M21.5 12A9.5 9.5 0 0 0 12 2.5" stroke="currentColor" strokeWidth="3" strokeLinecap="round" />
      </svg>
    </span>
  );
}
