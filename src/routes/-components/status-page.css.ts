import { style } from '@vanilla-extract/css';
import { vars } from '../../ui/theme.css';

export const page = style({
  minHeight: '100vh',
  display: 'grid',
  placeItems: 'center',
  padding: vars.space['6'],
  background: `radial-gradient(60rem 30rem at 50% -10%, ${vars.color.primarySoft}, transparent 70%), ${vars.color.bg}`,
});
export const card = style({
  width: '100%',
  maxWidth: '36rem',
  textAlign: 'center',
  display: 'flex',
  flexDirection: 'column',
  alignItems: 'center',
  gap: vars.space['4'],
});
export const code = style({
  fontSize: '5rem',
  fontWeight: vars.fontWeight.bold,
  lineHeight: 1,
  letterSpacing: '-0.04em',
  color: vars.color.primary,
});
export const title = style({ fontSize: vars.fontSize['2xl'], fontWeight: vars.fontWeight.bold });
export const text = style({ color: vars.color.textMuted });
export const path = style({
  fontFamily: vars.font.mono,
  fontSize: vars.fontSize.sm,
  padding: `${vars.space['1']} ${vars.space['2']}`,
  background: vars.color.surfaceMuted,
  borderRadius: vars.radius.sm,
  overflowWrap: 'anywhere',
});
export const errorCard = style({
  width: '100%',
  maxWidth: '48rem',
  display: 'flex',
  flexDirection: 'column',
  gap: vars.space['4'],
  padding: vars.space['8'],
  background: vars.color.surface,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.xl,
  boxShadow: vars.shadow.lg,
});
export const errorIcon = style({
  display: 'inline-flex',
  padding: vars.space['2'],
  borderRadius: vars.radius.full,
  background: vars.color.dangerSoft,
  color: vars.color.danger,
  width: 'fit-content',
});
export const message = style({ fontWeight: vars.fontWeight.medium, color: vars.color.danger, overflowWrap: 'anywhere' });
export const stack = style({
  maxHeight: '20rem',
  overflow: 'auto',
  padding: vars.space['4'],
  fontFamily: vars.font.mono,
  fontSize: vars.fontSize.xs,
  lineHeight: vars.lineHeight.normal,
  background: vars.color.surfaceMuted,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.md,
  whiteSpace: 'pre-wrap',
  overflowWrap: 'anywhere',
});
export const actions = style({ display: 'flex', gap: vars.space['2'], flexWrap: 'wrap' });
