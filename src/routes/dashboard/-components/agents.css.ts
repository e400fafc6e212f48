import { style } from '@vanilla-extract/css';
import { vars } from '../../../ui/theme.css';

export const form = style({ display: 'flex', flexDirection: 'column', gap: vars.space['5'] });
export const section = style({
  display: 'flex',
  flexDirection: 'column',
  gap: vars.space['4'],
  margin: 0,
  padding: 0,
  border: 0,
  minWidth: 0,
});
export const legend = style({
  marginBottom: vars.space['3'],
  padding: 0,
  fontSize: vars.fontSize.xs,
  fontWeight: vars.fontWeight.semibold,
  letterSpacing: '0.04em',
  textTransform: 'uppercase',
  color: vars.color.textMuted,
});
export const grid = style({
  display: 'grid',
  gridTemplateColumns: 'repeat(auto-fit, minmax(14rem, 1fr))',
  gap: vars.space['4'],
});
export const stack = style({ display: 'flex', flexDirection: 'column', gap: vars.space['3'] });

export const nameLink = style({
  fontWeight: vars.fontWeight.medium,
  color: vars.color.text,
  textDecoration: 'none',
  selectors: { '&:hover': { color: vars.color.primary, textDecoration: 'underline', textUnderlineOffset: 3 } },
});
export const mono = style({ fontFamily: vars.font.mono, fontSize: vars.fontSize.xs, color: vars.color.textMuted });
