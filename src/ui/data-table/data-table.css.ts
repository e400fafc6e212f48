import { globalStyle, keyframes, style } from '@vanilla-extract/css';
import { panel as surface } from '../panel/panel.css';
import { focusRing } from '../shared.css';
import { vars } from '../theme.css';

export const root = style({ display: 'flex', flexDirection: 'column', gap: vars.space['3'], minWidth: 0 });

/** A wrapping row with its ends pushed apart (toolbar, footer). */
const bar = style({
  display: 'flex',
  flexWrap: 'wrap',
  alignItems: 'center',
  justifyContent: 'space-between',
  gap: vars.space['3'],
});
export const toolbar = style([bar, { alignItems: 'flex-end', selectors: { '&[hidden]': { display: 'none' } } }]);
export const search = style({ flex: '1 1 16rem', maxWidth: '24rem' });
export const toolbarEnd = style({ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: vars.space['2'] });

export const panel = style([surface, { position: 'relative', overflow: 'hidden' }]);
export const scroller = style({ overflowX: 'auto' });

const slide = keyframes({ from: { transform: 'translateX(-100%)' }, to: { transform: 'translateX(250%)' } });
/** A thin bar across the top of the table while the next page loads over the previous one. */
export const progress = style({
  position: 'absolute',
  insetInline: 0,
  top: 0,
  height: 2,
  overflow: 'hidden',
  zIndex: 1,
  '::after': {
    content: '""',
    position: 'absolute',
    inset: 0,
    width: '40%',
    background: vars.color.primary,
    animation: `${slide} 900ms ease-in-out infinite`,
  },
});

export const table = style({ width: '100%', borderCollapse: 'collapse', fontSize: vars.fontSize.sm });
export const th = style({
  padding: `${vars.space['2']} ${vars.space['4']}`,
  height: '2.75rem',
  textAlign: 'left',
  fontWeight: vars.fontWeight.medium,
  color: vars.color.textMuted,
  background: vars.color.surfaceMuted,
  borderBottom: `1px solid ${vars.color.border}`,
  whiteSpace: 'nowrap',
});
export const alignEnd = style({ textAlign: 'right' });
/** A sortable header: the frame its sort button stretches over. */
export const thSortable = style({ position: 'relative' });
/**
 * The header's sort button. Its `::after` covers the whole header cell, so a click (or Shift+click)
 * anywhere in the cell is a click on the button; the focus ring and the keyboard stay on the button.
 */
export const sortButton = style([
  focusRing,
  {
    display: 'inline-flex',
    alignItems: 'center',
    gap: vars.space['1'],
    margin: `0 calc(${vars.space['2']} * -1)`,
    padding: `${vars.space['1']} ${vars.space['2']}`,
    borderRadius: vars.radius.sm,
    font: 'inherit',
    color: 'inherit',
    background: 'transparent',
    border: 0,
    cursor: 'pointer',
    selectors: {
      '&:hover': { background: vars.color.surfaceHover, color: vars.color.text },
      '&[data-sorted]': { color: vars.color.text },
      '&::after': { content: '""', position: 'absolute', inset: 0 },
    },
  },
]);
export const sortIcon = style({ display: 'inline-flex', opacity: 0.45, selectors: { '[data-sorted] &': { opacity: 1 } } });
export const sortRank = style({
  display: 'inline-grid',
  placeItems: 'center',
  minWidth: '1rem',
  height: '1rem',
  fontSize: '0.625rem',
  fontWeight: vars.fontWeight.semibold,
  color: vars.color.primarySoftText,
  background: vars.color.primarySoft,
  borderRadius: vars.radius.full,
});

export const td = style({
  padding: `${vars.space['3']} ${vars.space['4']}`,
  borderBottom: `1px solid ${vars.color.border}`,
  color: vars.color.text,
  verticalAlign: 'middle',
  maxWidth: '28rem',
  overflow: 'hidden',
  textOverflow: 'ellipsis',
  whiteSpace: 'nowrap',
  selectors: { 'tr:last-child > &': { borderBottom: 0 } },
});
export const row = style({ selectors: { '&:hover': { background: vars.color.surfaceHover } } });
export const stale = style({ opacity: 0.55, transition: 'opacity 150ms' });

const pulse = keyframes({ '0%, 100%': { opacity: 1 }, '50%': { opacity: 0.45 } });
export const skeleton = style({
  display: 'block',
  height: '0.875rem',
  width: '70%',
  borderRadius: vars.radius.sm,
  background: vars.color.surfaceMuted,
  animation: `${pulse} 1.4s ease-in-out infinite`,
});

/** The one cell of the empty, no-results and error states. */
export const message = style({
  display: 'flex',
  flexDirection: 'column',
  alignItems: 'center',
  gap: vars.space['3'],
  padding: `${vars.space['12']} ${vars.space['6']}`,
  textAlign: 'center',
  color: vars.color.textMuted,
  whiteSpace: 'normal',
});
export const messageTitle = style({ fontSize: vars.fontSize.md, fontWeight: vars.fontWeight.semibold, color: vars.color.text });
export const errorText = style({ color: vars.color.danger, fontWeight: vars.fontWeight.medium });

export const footer = style([bar, { fontSize: vars.fontSize.sm, color: vars.color.textMuted }]);
export const pager = style({ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: vars.space['3'] });
export const sizeSelect = style({ flexDirection: 'row', alignItems: 'center', gap: vars.space['2'], width: 'auto' });
/** Previous and Next stay side by side when the footer wraps (narrow screens). */
export const steps = style({ display: 'flex', alignItems: 'center', gap: vars.space['3'] });
export const pageLabel = style({ minWidth: '6.5rem', textAlign: 'center', color: vars.color.text });

globalStyle(`${sizeSelect} > label`, { whiteSpace: 'nowrap' });
globalStyle(`${sizeSelect} > button`, { width: '4.75rem', minHeight: '2rem', paddingBlock: vars.space['1'] });
