import { globalStyle, style } from '@vanilla-extract/css';
import { vars } from '../../../../ui/theme.css';

export const form = style({ display: 'flex', flexDirection: 'column', gap: vars.space['4'] });
export const limitsGrid = style({
  display: 'grid',
  gridTemplateColumns: 'repeat(auto-fit, minmax(16rem, 1fr))',
  gap: vars.space['4'],
});
export const monthPicker = style({ minWidth: '14rem' });
export const tabs = style({ display: 'flex', flexDirection: 'column' });

export const chartFigure = style({ display: 'flex', flexDirection: 'column', gap: vars.space['2'] });
export const chart = style({ width: '100%', height: 'auto', maxHeight: '18rem' });
export const grid = style({ stroke: vars.color.border, strokeWidth: 1 });
export const axis = style({ fill: vars.color.textMuted, fontSize: 11 });
export const bar = style({ fill: vars.color.primary, opacity: 0.8 });
export const costLine = style({ fill: 'none', stroke: vars.color.warning, strokeWidth: 2 });
export const legend = style({ display: 'flex', gap: vars.space['4'], fontSize: vars.fontSize.xs, color: vars.color.textMuted });
export const swatchBar = style({
  display: 'inline-block',
  width: '0.75rem',
  height: '0.75rem',
  borderRadius: 2,
  background: vars.color.primary,
  verticalAlign: 'middle',
});
export const swatchLine = style({
  display: 'inline-block',
  width: '1rem',
  height: 2,
  background: vars.color.warning,
  verticalAlign: 'middle',
});
export const details = style({ fontSize: vars.fontSize.sm });
globalStyle(`${details} > summary`, { cursor: 'pointer', color: vars.color.primary, fontWeight: vars.fontWeight.medium });
