import { globalStyle, style } from '@vanilla-extract/css';
import { vars } from '../../../../ui/theme.css';

export const page = style({
  display: 'flex',
  flexDirection: 'column',
  gap: vars.space['4'],
  maxWidth: '52rem',
  margin: '0 auto',
});
export const toolbar = style({ display: 'flex', justifyContent: 'space-between', gap: vars.space['2'] });
export const sheet = style({
  display: 'flex',
  flexDirection: 'column',
  gap: vars.space['8'],
  padding: vars.space['10'],
  background: vars.color.surface,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.lg,
});
export const head = style({ display: 'flex', justifyContent: 'space-between', gap: vars.space['6'], flexWrap: 'wrap' });
export const title = style({ fontSize: vars.fontSize['3xl'], fontWeight: vars.fontWeight.bold });
export const meta = style({ color: vars.color.textMuted, fontFamily: vars.font.mono, fontSize: vars.fontSize.sm });
export const facts = style({
  display: 'grid',
  gridTemplateColumns: 'auto auto',
  columnGap: vars.space['4'],
  rowGap: vars.space['1'],
  fontSize: vars.fontSize.sm,
});
globalStyle(`${facts} dt`, { color: vars.color.textMuted });
export const parties = style({
  display: 'grid',
  gridTemplateColumns: '1fr 1fr',
  gap: vars.space['6'],
  fontSize: vars.fontSize.sm,
});
export const partyTitle = style({
  fontSize: vars.fontSize.xs,
  textTransform: 'uppercase',
  letterSpacing: '0.06em',
  color: vars.color.textMuted,
  marginBottom: vars.space['1'],
});
export const address = style({ whiteSpace: 'pre-line' });
export const items = style({ width: '100%', borderCollapse: 'collapse', fontSize: vars.fontSize.sm });
globalStyle(`${items} th, ${items} td`, {
  textAlign: 'left',
  padding: `${vars.space['3']} ${vars.space['2']}`,
  borderBottom: `1px solid ${vars.color.border}`,
});
globalStyle(`${items} tfoot th, ${items} tfoot td`, { fontWeight: vars.fontWeight.bold, borderBottom: 'none' });
export const amount = style({ textAlign: 'right', fontVariantNumeric: 'tabular-nums', whiteSpace: 'nowrap' });
globalStyle(`${items} ${amount}`, { textAlign: 'right' });
export const footnote = style({ fontSize: vars.fontSize.xs, color: vars.color.textMuted });

// Print: the invoice sheet alone, no dashboard chrome, no buttons.
globalStyle(`body:has(${sheet}) aside, body:has(${sheet}) header:not(${head}), ${toolbar}`, {
  '@media': { print: { display: 'none' } },
});
globalStyle(`body:has(${sheet}) main`, { '@media': { print: { padding: 0, maxWidth: 'none' } } });
globalStyle(sheet, { '@media': { print: { border: 'none', padding: 0 } } });
