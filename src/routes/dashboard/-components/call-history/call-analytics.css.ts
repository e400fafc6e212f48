import { style } from '@vanilla-extract/css';
import { panel } from '../../../../ui/panel/panel.css';
import { vars } from '../../../../ui/theme.css';

export const overview = style({ display: 'flex', flexDirection: 'column', gap: vars.space['4'], marginBottom: vars.space['5'] });
export const charts = style({
  display: 'grid',
  gridTemplateColumns: 'repeat(auto-fit, minmax(24rem, 1fr))',
  gap: vars.space['4'],
});
export const figure = style([
  panel,
  { margin: 0, padding: vars.space['4'], display: 'flex', flexDirection: 'column', gap: vars.space['2'] },
]);
export const caption = style({ fontSize: vars.fontSize.md, fontWeight: vars.fontWeight.semibold });
export const chart = style({ width: '100%', height: 'auto', color: vars.color.textMuted, overflow: 'visible' });
export const legend = style({
  display: 'flex',
  flexWrap: 'wrap',
  gap: vars.space['3'],
  fontSize: vars.fontSize.xs,
  color: vars.color.textMuted,
});
export const swatch = style({
  display: 'inline-block',
  width: '0.625rem',
  height: '0.625rem',
  borderRadius: '2px',
  marginRight: vars.space['1'],
  verticalAlign: 'middle',
});
export const details = style({ fontSize: vars.fontSize.sm });
export const summary = style({
  cursor: 'pointer',
  color: vars.color.primary,
  fontWeight: vars.fontWeight.medium,
  width: 'fit-content',
});
export const tableWrap = style({ maxHeight: '16rem', overflow: 'auto', marginTop: vars.space['2'] });
export const tableCaption = style({
  textAlign: 'left',
  color: vars.color.textMuted,
  fontSize: vars.fontSize.xs,
  paddingBottom: vars.space['1'],
});
/** the overview's note while a search narrows the table only */
export const note = style({ margin: 0, fontSize: vars.fontSize.sm, color: vars.color.textMuted });
