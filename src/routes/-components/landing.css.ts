import { globalStyle, style } from '@vanilla-extract/css';
import { vars } from '../../ui/theme.css';

globalStyle('html', { scrollPaddingTop: '5rem' });

export const container = style({
  width: '100%',
  maxWidth: '72rem',
  margin: '0 auto',
  padding: `0 ${vars.space['6']}`,
  '@media': { '(max-width: 480px)': { padding: `0 ${vars.space['4']}` } },
});

// --- top bar ---
export const topBar = style({
  position: 'sticky',
  top: 0,
  zIndex: vars.z.sticky,
  background: 'rgba(255, 255, 255, 0.8)',
  backdropFilter: 'saturate(180%) blur(12px)',
  borderBottom: `1px solid ${vars.color.border}`,
});
export const topBarInner = style([container, { display: 'flex', alignItems: 'center', gap: vars.space['6'], height: '4rem' }]);
export const brand = style({
  display: 'inline-flex',
  alignItems: 'center',
  gap: vars.space['2'],
  fontSize: vars.fontSize.lg,
  fontWeight: vars.fontWeight.bold,
  letterSpacing: '-0.01em',
  borderRadius: vars.radius.md,
});
export const navLinks = style({
  display: 'flex',
  gap: vars.space['1'],
  marginRight: 'auto',
  '@media': { '(max-width: 640px)': { display: 'none' } },
});
export const navLink = style({
  padding: `${vars.space['2']} ${vars.space['3']}`,
  fontSize: vars.fontSize.sm,
  fontWeight: vars.fontWeight.medium,
  color: vars.color.textMuted,
  borderRadius: vars.radius.md,
  selectors: { '&:hover': { color: vars.color.text, background: vars.color.surfaceMuted } },
});
export const topActions = style({ display: 'flex', alignItems: 'center', gap: vars.space['2'], marginLeft: 'auto' });
globalStyle(`${topActions} > button`, { '@media': { '(max-width: 480px)': { paddingInline: vars.space['3'] } } });

// --- hero ---
export const hero = style({
  position: 'relative',
  overflow: 'hidden',
  padding: `${vars.space['20']} 0 ${vars.space['16']}`,
  background: `radial-gradient(56rem 28rem at 15% -10%, rgba(99, 102, 241, 0.18), transparent 70%),
    radial-gradient(40rem 24rem at 95% 10%, rgba(56, 189, 248, 0.14), transparent 70%)`,
});
export const heroGrid = style([
  container,
  {
    display: 'grid',
    gridTemplateColumns: '1.1fr 0.9fr',
    gap: vars.space['12'],
    alignItems: 'center',
    '@media': { '(max-width: 900px)': { gridTemplateColumns: '1fr' } },
  },
]);
export const eyebrow = style({
  display: 'inline-flex',
  alignItems: 'center',
  gap: vars.space['2'],
  width: 'fit-content',
  padding: `${vars.space['1']} ${vars.space['3']}`,
  fontSize: vars.fontSize.xs,
  fontWeight: vars.fontWeight.semibold,
  color: vars.color.primarySoftText,
  background: vars.color.primarySoft,
  border: '1px solid #c7d2fe',
  borderRadius: vars.radius.full,
});
export const heroCopy = style({ display: 'flex', flexDirection: 'column', gap: vars.space['6'] });
export const heroTitle = style({
  fontSize: vars.fontSize['5xl'],
  fontWeight: vars.fontWeight.bold,
  letterSpacing: '-0.035em',
  lineHeight: 1.05,
});
export const gradientText = style({
  background: 'linear-gradient(90deg, #4f46e5, #7c3aed 60%, #0ea5e9)',
  WebkitBackgroundClip: 'text',
  backgroundClip: 'text',
  color: 'transparent',
});
export const heroLead = style({ fontSize: vars.fontSize.lg, color: vars.color.textMuted, maxWidth: '36rem' });
export const heroActions = style({ display: 'flex', flexWrap: 'wrap', gap: vars.space['3'] });
export const heroNote = style({
  display: 'flex',
  flexWrap: 'wrap',
  gap: vars.space['5'],
  fontSize: vars.fontSize.sm,
  color: vars.color.textMuted,
});
export const heroNoteItem = style({ display: 'inline-flex', alignItems: 'center', gap: vars.space['2'] });
export const tick = style({ color: vars.color.success });

// hero visual: a live call card drawn with CSS
export const callCard = style({
  position: 'relative',
  display: 'flex',
  flexDirection: 'column',
  gap: vars.space['4'],
  padding: vars.space['5'],
  background: vars.color.surface,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.xl,
  boxShadow: '0 30px 60px -20px rgba(79, 70, 229, 0.35), 0 12px 24px -12px rgba(15, 23, 42, 0.2)',
});
export const callHeader = style({ display: 'flex', alignItems: 'center', gap: vars.space['3'] });
export const avatar = style({
  display: 'grid',
  placeItems: 'center',
  width: '2.5rem',
  height: '2.5rem',
  borderRadius: vars.radius.full,
  color: '#fff',
  background: 'linear-gradient(135deg, #6366f1, #8b5cf6)',
});
export const callMeta = style({
  display: 'flex',
  flexDirection: 'column',
  fontSize: vars.fontSize.sm,
  lineHeight: vars.lineHeight.snug,
});
export const callName = style({ fontWeight: vars.fontWeight.semibold });
export const muted = style({ color: vars.color.textMuted });
export const live = style({
  marginLeft: 'auto',
  display: 'inline-flex',
  alignItems: 'center',
  gap: vars.space['1'],
  padding: `2px ${vars.space['2']}`,
  fontSize: vars.fontSize.xs,
  fontWeight: vars.fontWeight.semibold,
  color: vars.color.success,
  background: vars.color.successSoft,
  borderRadius: vars.radius.full,
});
export const liveDot = style({ width: 6, height: 6, borderRadius: '50%', background: 'currentColor' });
export const wave = style({ display: 'flex', alignItems: 'center', gap: 3, height: '2.5rem' });
export const bar = style({ flex: 1, borderRadius: 2, background: 'linear-gradient(180deg, #818cf8, #4f46e5)' });
export const bubbles = style({ display: 'flex', flexDirection: 'column', gap: vars.space['2'] });
export const bubble = style({
  maxWidth: '85%',
  padding: `${vars.space['2']} ${vars.space['3']}`,
  fontSize: vars.fontSize.sm,
  borderRadius: vars.radius.lg,
  background: vars.color.surfaceMuted,
});
export const bubbleAgent = style({
  alignSelf: 'flex-end',
  background: vars.color.primary,
  color: vars.color.onPrimary,
});
export const insight = style({
  display: 'flex',
  alignItems: 'flex-start',
  gap: vars.space['2'],
  padding: vars.space['3'],
  fontSize: vars.fontSize.sm,
  borderRadius: vars.radius.lg,
  background: vars.color.primarySoft,
  color: vars.color.primarySoftText,
});

// --- sections ---
// The sections below the hero are laid out and painted only as they come near the viewport
// (content-visibility): the first layout of the page covers the hero alone. The intrinsic size keeps the
// scrollbar and anchor jumps (#features, #pricing) close to the real page before they are laid out.
export const section = style({
  padding: `${vars.space['20']} 0`,
  contentVisibility: 'auto',
  containIntrinsicSize: 'auto 56rem',
});
export const sectionAlt = style({
  background: vars.color.surface,
  borderTop: `1px solid ${vars.color.border}`,
  borderBottom: `1px solid ${vars.color.border}`,
});
export const sectionHead = style({
  display: 'flex',
  flexDirection: 'column',
  alignItems: 'center',
  gap: vars.space['3'],
  textAlign: 'center',
  maxWidth: '40rem',
  margin: `0 auto ${vars.space['12']}`,
});
export const kicker = style({
  fontSize: vars.fontSize.sm,
  fontWeight: vars.fontWeight.semibold,
  color: vars.color.primary,
  textTransform: 'uppercase',
  letterSpacing: '0.08em',
});
export const h2 = style({ fontSize: vars.fontSize['4xl'], fontWeight: vars.fontWeight.bold, letterSpacing: '-0.025em' });
export const sectionLead = style({ fontSize: vars.fontSize.lg, color: vars.color.textMuted });

export const grid4 = style({
  display: 'grid',
  gridTemplateColumns: 'repeat(auto-fit, minmax(15rem, 1fr))',
  gap: vars.space['5'],
});
export const grid3 = style({
  display: 'grid',
  gridTemplateColumns: 'repeat(auto-fit, minmax(18rem, 1fr))',
  gap: vars.space['5'],
});
export const card = style({
  display: 'flex',
  flexDirection: 'column',
  gap: vars.space['3'],
  padding: vars.space['6'],
  background: vars.color.surface,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.xl,
  boxShadow: vars.shadow.sm,
  transition: 'box-shadow 150ms, transform 150ms',
  selectors: { '&:hover': { boxShadow: vars.shadow.md, transform: 'translateY(-2px)' } },
});
export const featureIcon = style({
  display: 'grid',
  placeItems: 'center',
  width: '2.75rem',
  height: '2.75rem',
  borderRadius: vars.radius.lg,
  color: vars.color.primary,
  background: vars.color.primarySoft,
});
export const h3 = style({ fontSize: vars.fontSize.lg, fontWeight: vars.fontWeight.semibold });
export const body = style({ fontSize: vars.fontSize.sm, color: vars.color.textMuted, lineHeight: vars.lineHeight.normal });

// testimonials
export const stars = style({ display: 'flex', gap: 2, color: '#f59e0b' });
export const quote = style({ fontSize: vars.fontSize.md, color: vars.color.text, flex: 1 });
export const person = style({ display: 'flex', alignItems: 'center', gap: vars.space['3'], marginTop: vars.space['2'] });
export const initials = style({
  display: 'grid',
  placeItems: 'center',
  width: '2.5rem',
  height: '2.5rem',
  borderRadius: vars.radius.full,
  fontSize: vars.fontSize.sm,
  fontWeight: vars.fontWeight.semibold,
  color: vars.color.primarySoftText,
  background: vars.color.primarySoft,
});

// pricing
export const priceTable = style({
  maxWidth: '48rem',
  margin: '0 auto',
  background: vars.color.surface,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.xl,
  boxShadow: vars.shadow.sm,
  overflow: 'hidden',
});
export const priceRow = style({
  display: 'flex',
  alignItems: 'center',
  gap: vars.space['3'],
  padding: `${vars.space['4']} ${vars.space['6']}`,
  selectors: { '& + &': { borderTop: `1px solid ${vars.color.border}` } },
});
export const priceRowDefault = style({ background: vars.color.primarySoft });
export const priceModel = style({ fontWeight: vars.fontWeight.medium, marginRight: 'auto' });
export const price = style({ fontVariantNumeric: 'tabular-nums', fontWeight: vars.fontWeight.semibold });
export const priceUnit = style({ fontSize: vars.fontSize.sm, color: vars.color.textMuted, fontWeight: vars.fontWeight.regular });
export const priceFoot = style({
  padding: `${vars.space['4']} ${vars.space['6']}`,
  fontSize: vars.fontSize.sm,
  color: vars.color.textMuted,
  background: vars.color.surfaceMuted,
  borderTop: `1px solid ${vars.color.border}`,
});

// call to action + footer
export const cta = style({
  display: 'flex',
  flexDirection: 'column',
  alignItems: 'center',
  gap: vars.space['5'],
  padding: `${vars.space['12']} ${vars.space['6']}`,
  textAlign: 'center',
  color: '#fff',
  borderRadius: vars.radius.xl,
  background: 'linear-gradient(135deg, #4338ca, #6d28d9)',
  boxShadow: vars.shadow.lg,
});
export const ctaLead = style({ color: '#e0e7ff', fontSize: vars.fontSize.lg, maxWidth: '34rem' });
export const ctaButton = style({
  background: '#fff',
  color: vars.color.primarySoftText,
  selectors: { '&:hover:not(:disabled)': { background: '#eef2ff' } },
});
export const footer = style({
  padding: `${vars.space['10']} 0`,
  borderTop: `1px solid ${vars.color.border}`,
  background: vars.color.surface,
});
export const footerInner = style([
  container,
  {
    display: 'flex',
    flexWrap: 'wrap',
    alignItems: 'center',
    justifyContent: 'space-between',
    gap: vars.space['4'],
    fontSize: vars.fontSize.sm,
    color: vars.color.textMuted,
  },
]);
export const footerLinks = style({ display: 'flex', gap: vars.space['5'] });
export const footerLink = style({
  color: vars.color.textMuted,
  textDecoration: 'underline',
  textUnderlineOffset: '2px',
  borderRadius: vars.radius.sm,
  selectors: {
    '&:hover': { color: vars.color.text },
    '&:focus-visible': { outline: 'none', boxShadow: vars.shadow.focus },
  },
});
