import { style } from '@vanilla-extract/css';
import { vars } from '../theme.css';

/**
 * The panel: the raised surface that holds a page's content (a table, a form, a card, an empty state),
 * and the plain tables set in one. Compose it (`style([panel, {...}])`) rather than repeating it.
 */
export const panel = style({
  background: vars.color.surface,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.xl,
  boxShadow: vars.shadow.xs,
});
/** A panel's padded content, stacked. */
export const panelBody = style({ padding: vars.space['5'], display: 'flex', flexDirection: 'column', gap: vars.space['4'] });

/** Scrolls a wide table sideways inside its panel. */
export const tableWrap = style({ overflowX: 'auto' });
export const table = style({ width: '100%', borderCollapse: 'collapse', fontSize: vars.fontSize.sm });
export const th = style({
  textAlign: 'left',
  padding: `${vars.space['3']} ${vars.space['4']}`,
  fontSize: vars.fontSize.xs,
  fontWeight: vars.fontWeight.semibold,
  color: vars.color.textMuted,
  textTransform: 'uppercase',
  letterSpacing: '0.04em',
  borderBottom: `1px solid ${vars.color.border}`,
  whiteSpace: 'nowrap',
});
export const td = style({
  padding: `${vars.space['3']} ${vars.space['4']}`,
  borderBottom: `1px solid ${vars.color.border}`,
  verticalAlign: 'middle',
});
/** A <th scope="row"> that reads like a cell. */
export const rowHeader = style({ textAlign: 'left', fontWeight: vars.fontWeight.medium });
/** Amounts and counts: right-aligned, tabular figures. */
export const num = style({ textAlign: 'right', fontVariantNumeric: 'tabular-nums', whiteSpace: 'nowrap' });
/** A row that details the row above it. */
export const subRow = style({ background: vars.color.surfaceMuted });
