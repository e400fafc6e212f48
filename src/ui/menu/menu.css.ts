import { style } from '@vanilla-extract/css';
import { floatingItem, floatingSurface } from '../shared.css';
import { vars } from '../theme.css';

export const menu = style([floatingSurface, {}]);
export const item = style([floatingItem, {}]);
export const destructive = style({
  color: vars.color.danger,
  selectors: { '&[data-active-item]': { background: vars.color.dangerSoft } },
});
export const check = style({ display: 'inline-flex', width: '1rem', color: vars.color.primary });
export const separator = style({
  height: 1,
  margin: `${vars.space['1']} -${vars.space['1']}`,
  background: vars.color.border,
  border: 0,
});
export const groupLabel = style({
  padding: `${vars.space['1']} ${vars.space['3']}`,
  fontSize: vars.fontSize.xs,
  fontWeight: vars.fontWeight.semibold,
  color: vars.color.textMuted,
});
export const chevron = style({ opacity: 0.7 });
