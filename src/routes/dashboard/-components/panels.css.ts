import { style, styleVariants } from '@vanilla-extract/css';
import { vars } from '../../../ui/theme.css';

/** Tables, states and small pieces shared by the billing and batch call screens. */

export const section = style({ display: 'flex', flexDirection: 'column', gap: vars.space['4'] });
export { panel } from './shell.css';
export const panelBody = style({ padding: vars.space['5'], display: 'flex', flexDirection: 'column', gap: vars.space['4'] });
export const sectionTitle = style({ fontSize: vars.fontSize.lg, fontWeight: vars.fontWeight.semibold });
export const muted = style({ fontSize: vars.fontSize.sm, color: vars.color.textMuted });
export const row = style({ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: vars.space['3'] });
export const spacer = style({ flex: 1 });

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
export const num = style({ textAlign: 'right', fontVariantNumeric: 'tabular-nums', whiteSpace: 'nowrap' });
export const subRow = style({ background: vars.color.surfaceMuted });
export const clickableRow = style({ cursor: 'pointer', selectors: { '&:hover': { background: vars.color.surfaceHover } } });

export const badge = style({
  display: 'inline-flex',
  alignItems: 'center',
  height: '1.5rem',
  padding: `0 ${vars.space['2']}`,
  borderRadius: vars.radius.full,
  fontSize: vars.fontSize.xs,
  fontWeight: vars.fontWeight.semibold,
  whiteSpace: 'nowrap',
});
export const tone = styleVariants({
  green: { background: vars.color.successSoft, color: vars.color.success },
  blue: { background: vars.color.primarySoft, color: vars.color.primarySoftText },
  yellow: { background: vars.color.warningSoft, color: vars.color.warning },
  grey: { background: vars.color.surfaceMuted, color: vars.color.textMuted },
  red: { background: vars.color.dangerSoft, color: vars.color.danger },
});

export const stateBox = style({
  display: 'flex',
  flexDirection: 'column',
  alignItems: 'center',
  justifyContent: 'center',
  gap: vars.space['3'],
  padding: `${vars.space['12']} ${vars.space['6']}`,
  textAlign: 'center',
  color: vars.color.textMuted,
  fontSize: vars.fontSize.sm,
});
export const alert = style({
  display: 'flex',
  alignItems: 'flex-start',
  gap: vars.space['2'],
  padding: vars.space['3'],
  borderRadius: vars.radius.md,
  fontSize: vars.fontSize.sm,
  background: vars.color.dangerSoft,
  color: vars.color.danger,
});
export const info = style([
  alert,
  { background: vars.color.primarySoft, color: vars.color.primarySoftText, marginBottom: vars.space['4'] },
]);

export const stats = style({
  display: 'grid',
  gridTemplateColumns: 'repeat(auto-fit, minmax(10rem, 1fr))',
  gap: vars.space['3'],
});
export const stat = style({
  padding: vars.space['4'],
  borderRadius: vars.radius.lg,
  border: `1px solid ${vars.color.border}`,
  background: vars.color.surface,
});
export const statLabel = style({ fontSize: vars.fontSize.xs, color: vars.color.textMuted, fontWeight: vars.fontWeight.medium });
export const statValue = style({
  fontSize: vars.fontSize['2xl'],
  fontWeight: vars.fontWeight.bold,
  fontVariantNumeric: 'tabular-nums',
});

export const disclosure = style({
  display: 'inline-flex',
  alignItems: 'center',
  gap: vars.space['2'],
  fontWeight: vars.fontWeight.medium,
  color: vars.color.text,
  borderRadius: vars.radius.sm,
  selectors: { '&:focus-visible': { outline: 'none', boxShadow: vars.shadow.focus } },
});
export const chevron = style({ transition: 'transform 120ms' });
export const chevronOpen = style({ transform: 'rotate(90deg)' });
export const link = style({ color: vars.color.primary, fontWeight: vars.fontWeight.medium, textDecoration: 'underline' });
