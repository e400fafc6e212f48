import { style } from '@vanilla-extract/css';
import { fieldControl, floatingItem, floatingSurface } from '../shared.css';
import { vars } from '../theme.css';

export const trigger = style([
  fieldControl,
  {
    display: 'flex',
    alignItems: 'center',
    justifyContent: 'space-between',
    gap: vars.space['2'],
    textAlign: 'left',
    cursor: 'pointer',
    selectors: { '&[aria-expanded="true"]': { borderColor: vars.color.primary, boxShadow: vars.shadow.focus } },
  },
]);
export const value = style({ overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' });
export const placeholder = style({ color: vars.color.textSubtle });
export const chevron = style({ color: vars.color.textMuted });
export const popover = style([floatingSurface, {}]);
export const item = style([
  floatingItem,
  {
    justifyContent: 'space-between',
    selectors: { '&[aria-selected="true"]': { fontWeight: vars.fontWeight.medium, color: vars.color.primarySoftText } },
  },
]);
export const itemText = style({ display: 'flex', flexDirection: 'column', gap: 2 });
export const itemDescription = style({
  fontSize: vars.fontSize.xs,
  color: vars.color.textMuted,
  fontWeight: vars.fontWeight.regular,
});
