import { style } from '@vanilla-extract/css';
import { recipe } from '@vanilla-extract/recipes';
import { vars } from '../theme.css';

export const backdrop = style({
  position: 'fixed',
  inset: 0,
  zIndex: vars.z.overlay,
  background: vars.color.overlay,
  backdropFilter: 'blur(2px)',
  opacity: 0,
  transition: 'opacity 150ms ease-out',
  selectors: { '&[data-enter]': { opacity: 1 } },
});

export const dialog = recipe({
  base: {
    position: 'fixed',
    zIndex: vars.z.dialog,
    inset: 0,
    margin: 'auto',
    display: 'flex',
    flexDirection: 'column',
    width: 'calc(100vw - 2rem)',
    height: 'fit-content',
    maxHeight: 'calc(100dvh - 2rem)',
    background: vars.color.surface,
    color: vars.color.text,
    borderRadius: vars.radius.xl,
    border: `1px solid ${vars.color.border}`,
    boxShadow: vars.shadow.xl,
    outline: 'none',
    overflow: 'hidden',
    opacity: 0,
    transform: 'translateY(8px) scale(0.98)',
    transition: 'opacity 150ms ease-out, transform 150ms ease-out',
    selectors: { '&[data-enter]': { opacity: 1, transform: 'none' } },
  },
  variants: {
    size: {
      sm: { maxWidth: '26rem' },
      md: { maxWidth: '32rem' },
      lg: { maxWidth: '42rem' },
      xl: { maxWidth: '56rem' },
      full: { maxWidth: 'none', width: '100vw', height: '100dvh', maxHeight: '100dvh', borderRadius: 0, border: 0 },
    },
  },
  defaultVariants: { size: 'md' },
});

export const header = style({
  display: 'flex',
  alignItems: 'flex-start',
  justifyContent: 'space-between',
  gap: vars.space['4'],
  padding: `${vars.space['5']} ${vars.space['6']} ${vars.space['2']}`,
});
/** Header of a dialog without body (alert dialogs): room before the footer. */
export const headerAlone = style({ paddingBottom: vars.space['5'] });
export const headings = style({ display: 'flex', flexDirection: 'column', gap: vars.space['1'], minWidth: 0 });
export const title = style({
  fontSize: vars.fontSize.lg,
  fontWeight: vars.fontWeight.semibold,
  lineHeight: vars.lineHeight.snug,
});
export const description = style({ fontSize: vars.fontSize.sm, color: vars.color.textMuted });
export const close = style({ marginTop: `calc(-1 * ${vars.space['1']})`, marginRight: `calc(-1 * ${vars.space['2']})` });
export const body = style({
  padding: `${vars.space['3']} ${vars.space['6']} ${vars.space['6']}`,
  overflowY: 'auto',
  flex: '1 1 auto',
});
export const footer = style({
  display: 'flex',
  flexWrap: 'wrap',
  justifyContent: 'flex-end',
  gap: vars.space['2'],
  padding: `${vars.space['4']} ${vars.space['6']}`,
  borderTop: `1px solid ${vars.color.border}`,
  background: vars.color.surfaceMuted,
});
