import { style } from '@vanilla-extract/css';
import { panel } from '../../../../ui/panel/panel.css';
import { vars } from '../../../../ui/theme.css';

export const page = style({ display: 'flex', flexDirection: 'column', gap: vars.space['5'] });
export const head = style({ display: 'flex', alignItems: 'center', gap: vars.space['3'], flexWrap: 'wrap' });
export const title = style({ fontSize: vars.fontSize['2xl'], fontWeight: vars.fontWeight.bold, letterSpacing: '-0.02em' });
export const grid = style({
  display: 'grid',
  gridTemplateColumns: 'minmax(0, 1.6fr) minmax(0, 1fr)',
  gap: vars.space['5'],
  alignItems: 'start',
  '@media': { '(max-width: 1000px)': { gridTemplateColumns: 'minmax(0, 1fr)' } },
});
export const card = style([panel, { display: 'flex', flexDirection: 'column', gap: vars.space['3'], padding: vars.space['4'] }]);
export const cardTitle = style({ fontSize: vars.fontSize.md, fontWeight: vars.fontWeight.semibold });
export const facts = style({
  display: 'grid',
  gridTemplateColumns: 'auto 1fr',
  gap: `${vars.space['1']} ${vars.space['4']}`,
  fontSize: vars.fontSize.sm,
});
export const factName = style({ color: vars.color.textMuted });
export const turns = style({
  display: 'flex',
  flexDirection: 'column',
  gap: vars.space['2'],
  listStyle: 'none',
  padding: 0,
  margin: 0,
});
export const turn = style({
  display: 'grid',
  gridTemplateColumns: '4.5rem minmax(0, 1fr)',
  gap: vars.space['3'],
  padding: vars.space['2'],
  borderRadius: vars.radius.md,
  border: '1px solid transparent',
  fontSize: vars.fontSize.sm,
  selectors: {
    '&[aria-current="true"]': { background: vars.color.primarySoft, borderColor: vars.color.primary },
  },
});
export const stamp = style({
  fontFamily: vars.font.mono,
  fontSize: vars.fontSize.xs,
  color: vars.color.textMuted,
  textAlign: 'left',
  textDecoration: 'underline',
  cursor: 'pointer',
  background: 'none',
  border: 'none',
  padding: 0,
  alignSelf: 'start',
});
export const role = style({ fontWeight: vars.fontWeight.semibold, marginRight: vars.space['2'] });
export const tool = style({
  display: 'block',
  fontFamily: vars.font.mono,
  fontSize: vars.fontSize.xs,
  color: vars.color.textMuted,
});
export const functionCall = style({ marginTop: vars.space['2'] });
export const cut = style({ fontSize: vars.fontSize.xs, color: vars.color.warning, marginLeft: vars.space['2'] });
export const audio = style({ width: '100%' });
export const table = style({ width: '100%', borderCollapse: 'collapse', fontSize: vars.fontSize.sm });
export const cell = style({
  padding: `${vars.space['1']} ${vars.space['2']}`,
  borderBottom: `1px solid ${vars.color.border}`,
  textAlign: 'left',
});
export const num = style([cell, { textAlign: 'right', fontVariantNumeric: 'tabular-nums' }]);
export const legend = style({
  display: 'flex',
  gap: vars.space['3'],
  flexWrap: 'wrap',
  fontSize: vars.fontSize.xs,
  color: vars.color.textMuted,
});
export const swatch = style({
  display: 'inline-block',
  width: 10,
  height: 10,
  borderRadius: 2,
  marginRight: 4,
  verticalAlign: 'middle',
});
export const muted = style({ fontSize: vars.fontSize.sm, color: vars.color.textMuted });
