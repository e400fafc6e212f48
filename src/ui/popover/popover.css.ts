import { style } from '@vanilla-extract/css';
import { floatingSurface } from '../shared.css';
import { vars } from '../theme.css';

export const popover = style([
  floatingSurface,
  {
    padding: vars.space['4'],
    maxHeight: 'var(--popover-available-height)',
    minWidth: '16rem',
    maxWidth: 'min(28rem, calc(100vw - 1rem))',
  },
]);
export const heading = style({ fontSize: vars.fontSize.md, fontWeight: vars.fontWeight.semibold, marginBottom: vars.space['3'] });
