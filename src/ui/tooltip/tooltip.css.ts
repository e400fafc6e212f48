import { style } from '@vanilla-extract/css';
import { vars } from '../theme.css';

export const tooltip = style({
  zIndex: vars.z.popover,
  maxWidth: '18rem',
  padding: `${vars.space['1']} ${vars.space['2']}`,
  fontSize: vars.fontSize.xs,
  lineHeight: vars.lineHeight.snug,
  color: vars.color.onPrimary,
  background: vars.color.text,
  borderRadius: vars.radius.sm,
  boxShadow: vars.shadow.md,
});
