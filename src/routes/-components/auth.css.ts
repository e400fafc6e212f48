import { style } from '@vanilla-extract/css';
import { vars } from '../../ui/theme.css';

/** Forms of the landing dialogs and the password pages. */
export const form = style({ display: 'flex', flexDirection: 'column', gap: vars.space['4'], paddingTop: vars.space['4'] });
export const row = style({ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: vars.space['2'] });
export const link = style({
  fontSize: vars.fontSize.sm,
  fontWeight: vars.fontWeight.medium,
  color: vars.color.primary,
  textDecoration: 'none',
  borderRadius: vars.radius.sm,
  selectors: {
    '&:hover': { textDecoration: 'underline' },
    '&:focus-visible': { outline: 'none', boxShadow: vars.shadow.focus },
  },
});
export const legal = style({
  marginTop: vars.space['4'],
  fontSize: vars.fontSize.xs,
  color: vars.color.textMuted,
  textAlign: 'center',
  lineHeight: vars.lineHeight.normal,
});
export const photoRow = style({ display: 'flex', alignItems: 'flex-end', gap: vars.space['3'] });
export const photoPreview = style({
  width: '2.5rem',
  height: '2.5rem',
  flexShrink: 0,
  borderRadius: vars.radius.full,
  objectFit: 'cover',
  border: `1px solid ${vars.color.border}`,
});
export const grow = style({ flex: 1, minWidth: 0 });

/** The 'Check your inbox' confirmation. */
export const sent = style({
  display: 'flex',
  flexDirection: 'column',
  alignItems: 'center',
  textAlign: 'center',
  gap: vars.space['3'],
  paddingTop: vars.space['4'],
});
export const sentIcon = style({
  display: 'inline-flex',
  padding: vars.space['3'],
  borderRadius: vars.radius.full,
  background: vars.color.primarySoft,
  color: vars.color.primary,
});
export const sentTitle = style({ fontSize: vars.fontSize.lg, fontWeight: vars.fontWeight.semibold });
export const muted = style({ fontSize: vars.fontSize.sm, color: vars.color.textMuted, lineHeight: vars.lineHeight.normal });

/** Standalone pages (/forgot-password, /reset-password, /terms, /privacy). */
export const page = style({
  minHeight: '100vh',
  display: 'grid',
  placeItems: 'center',
  padding: vars.space['6'],
  background: `radial-gradient(60rem 30rem at 50% -10%, ${vars.color.primarySoft}, transparent 70%), ${vars.color.bg}`,
});
export const card = style({
  width: '100%',
  maxWidth: '28rem',
  padding: vars.space['8'],
  background: vars.color.surface,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.xl,
  boxShadow: vars.shadow.lg,
});
export const brand = style({
  display: 'inline-flex',
  alignItems: 'center',
  gap: vars.space['2'],
  marginBottom: vars.space['6'],
  fontWeight: vars.fontWeight.bold,
  color: vars.color.text,
  textDecoration: 'none',
});
export const title = style({ fontSize: vars.fontSize['2xl'], fontWeight: vars.fontWeight.bold, letterSpacing: '-0.01em' });
export const footerLinks = style({ marginTop: vars.space['6'], textAlign: 'center' });

/** Long-form text pages (terms, privacy). */
export const doc = style({
  width: '100%',
  maxWidth: '44rem',
  margin: '0 auto',
  padding: `${vars.space['12']} ${vars.space['6']}`,
  color: vars.color.text,
  lineHeight: vars.lineHeight.normal,
});
export const docTitle = style({
  fontSize: vars.fontSize['3xl'],
  fontWeight: vars.fontWeight.bold,
  marginBottom: vars.space['2'],
});
export const docSection = style({ marginTop: vars.space['8'], display: 'flex', flexDirection: 'column', gap: vars.space['3'] });
export const docHeading = style({ fontSize: vars.fontSize.xl, fontWeight: vars.fontWeight.semibold });
export const docList = style({
  paddingLeft: vars.space['6'],
  listStyle: 'disc',
  display: 'flex',
  flexDirection: 'column',
  gap: vars.space['2'],
});
