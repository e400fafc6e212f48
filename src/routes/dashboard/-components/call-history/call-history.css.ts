import { style } from '@vanilla-extract/css';
import { focusRing } from '../../../../ui/shared.css';
import { vars } from '../../../../ui/theme.css';

export const number = style({ fontVariantNumeric: 'tabular-nums', whiteSpace: 'nowrap' });
const mark = style({ display: 'inline-flex', alignItems: 'center', justifyContent: 'center', width: '1.5rem', height: '1.5rem' });
export const tick = style([mark, { color: vars.color.success }]);
export const cross = style([mark, { color: vars.color.danger }]);

export const toolbar = style({ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: vars.space['2'] });
/** The page's date, filter and column buttons, above the table's own search row. */
export const filterBar = style([toolbar, { marginBottom: vars.space['3'] }]);
/** the flow node the list is narrowed to (`?node=`), with the button that shows every call again */
export const nodeFilter = style({ display: 'flex', alignItems: 'center', gap: vars.space['2'], marginBottom: vars.space['3'] });
/** the links under Call History's 'No calls yet' */
export const emptyActions = style([toolbar, { justifyContent: 'center' }]);

// --- date-range picker ---
export const calendar = style({ display: 'flex', flexDirection: 'column', gap: vars.space['3'] });
export const months = style({ display: 'flex', flexWrap: 'wrap', gap: vars.space['6'] });
export const month = style({ display: 'flex', flexDirection: 'column', gap: vars.space['2'] });
export const monthHeader = style({
  display: 'flex',
  alignItems: 'center',
  justifyContent: 'space-between',
  gap: vars.space['2'],
  minHeight: '2rem',
});
export const monthTitle = style({
  fontSize: vars.fontSize.sm,
  fontWeight: vars.fontWeight.semibold,
  textAlign: 'center',
  flex: 1,
});
export const grid = style({ borderCollapse: 'collapse' });
export const weekday = style({
  width: '2.25rem',
  height: '2rem',
  fontSize: vars.fontSize.xs,
  fontWeight: vars.fontWeight.medium,
  color: vars.color.textMuted,
  textAlign: 'center',
});
export const dayCell = style({ padding: 0, textAlign: 'center' });
export const day = style([
  focusRing,
  {
    width: '2.25rem',
    height: '2.25rem',
    border: 0,
    borderRadius: vars.radius.md,
    background: 'transparent',
    color: vars.color.text,
    fontSize: vars.fontSize.sm,
    cursor: 'pointer',
    selectors: {
      '&:hover': { background: vars.color.surfaceHover },
      '&[data-today]': { fontWeight: vars.fontWeight.bold, textDecoration: 'underline' },
      '&[data-in-range]': { background: vars.color.primarySoft, color: vars.color.primarySoftText, borderRadius: 0 },
      '&[data-selected]': { background: vars.color.primary, color: vars.color.onPrimary, borderRadius: vars.radius.md },
      '&[data-outside]': { visibility: 'hidden' },
    },
  },
]);
export const pickerFooter = style({
  display: 'flex',
  alignItems: 'center',
  justifyContent: 'space-between',
  gap: vars.space['3'],
  fontSize: vars.fontSize.sm,
  color: vars.color.textMuted,
});

// --- Customize Field ---
export const fieldList = style({
  listStyle: 'none',
  margin: 0,
  padding: 0,
  display: 'flex',
  flexDirection: 'column',
  gap: vars.space['1'],
});
export const fieldRow = style({
  display: 'flex',
  alignItems: 'center',
  justifyContent: 'space-between',
  gap: vars.space['3'],
  padding: `${vars.space['1']} ${vars.space['2']}`,
  borderRadius: vars.radius.md,
  selectors: { '&:hover': { background: vars.color.surfaceHover } },
});
export const fieldMoves = style({ display: 'flex', gap: vars.space['1'] });
export const dialogFields = style({ display: 'flex', flexDirection: 'column', gap: vars.space['4'] });
export const spacer = style({ flex: 1 });

/** the picker's popover: wide enough for two months side by side (the attribute outranks the popover's own width) */
export const pickerPopover = style({
  selectors: { '&[role="dialog"]': { maxWidth: 'calc(100vw - 1rem)' } },
});

/** the Time cell: a link to the call's detail */
export const timeLink = style({
  color: vars.color.primary,
  textDecoration: 'underline',
  textUnderlineOffset: 2,
  selectors: { '&:hover': { color: vars.color.primaryHover } },
});
