import { style } from '@vanilla-extract/css';
import { vars } from '../../../ui/theme.css';

/**
 * Page blocks shared by the billing and batch call screens: sections, states, alerts, stats, disclosures.
 * Panels and their tables are a ui primitive (src/ui/panel).
 */

export const section = style({ display: 'flex', flexDirection: 'column', gap: vars.space['4'] });
export const sectionTitle = style({ fontSize: vars.fontSize.lg, fontWeight: vars.fontWeight.semibold });
export const muted = style({ fontSize: vars.fontSize.sm, color: vars.color.textMuted });
export const row = style({ display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: vars.space['3'] });
export const spacer = style({ flex: 1 });

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
