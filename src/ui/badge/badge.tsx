import type { HTMLAttributes } from 'react';
import { cx } from '../cx';
import { type BadgeVariants, badge } from './badge.css';

export type BadgeTone = NonNullable<BadgeVariants['tone']>;

export interface BadgeProps extends HTMLAttributes<HTMLSpanElement> {
  /** grey (default), blue, green, yellow, red, or solid (filled with the primary colour) */
  tone?: BadgeTone;
}

/** A status or a tag as a small rounded label. Its text says it all; the tone only adds colour. */
export function Badge({ tone, className, ...rest }: BadgeProps) {
  return <span {...rest} className={cx(badge({ tone }), className)} />;
}
