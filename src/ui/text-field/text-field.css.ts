import { style } from '@vanilla-extract/css';
import { vars } from '../theme.css';

export const wrap = style({ position: 'relative', display: 'flex', alignItems: 'center' });
export const leading = style({
  position: 'absolute',
  left: vars.space['3'],
  display: 'inline-flex',
  color: vars.color.textSubtle,
  pointerEvents: 'none',
});
export const withLeading = style({ paddingLeft: '2.25rem' });
export const textarea = style({ minHeight: '5rem', resize: 'vertical', lineHeight: vars.lineHeight.normal });
