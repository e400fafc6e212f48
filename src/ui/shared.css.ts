import { keyframes, style } from '@vanilla-extract/css';
import { srOnly, vars } from './theme.css';

export const visuallyHidden = style(srOnly);

export const spin = keyframes({ to: { transform: 'rotate(360deg)' } });
export const fadeIn = keyframes({ from: { opacity: 0 }, to: { opacity: 1 } });
export const popIn = keyframes({
  from: { opacity: 0, transform: 'translateY(4px) scale(0.98)' },
  to: { opacity: 1, transform: 'none' },
});

/** Ariakit marks keyboard focus with [data-focus-visible]; native elements use :focus-visible. */
export const focusRing = style({
  outline: 'none',
  selectors: {
    '&:focus-visible, &[data-focus-visible]': { outline: 'none', boxShadow: vars.shadow.focus },
  },
});

/** Shared look of text inputs, textareas and the select trigger. */
export const fieldControl = style([
  focusRing,
  {
    width: '100%',
    minHeight: '2.5rem',
    padding: `${vars.space['2']} ${vars.space['3']}`,
    fontSize: vars.fontSize.sm,
    lineHeight: vars.lineHeight.snug,
    color: vars.color.text,
    background: vars.color.surface,
    border: `1px solid ${vars.color.borderStrong}`,
    borderRadius: vars.radius.md,
    boxShadow: vars.shadow.xs,
    transition: 'border-color 120ms, box-shadow 120ms',
    selectors: {
      '&::placeholder': { color: vars.color.textSubtle, opacity: 1 },
      '&:hover:not(:disabled)': { borderColor: vars.color.textSubtle },
      '&:focus-visible, &[data-focus-visible], &:focus': { borderColor: vars.color.primary, boxShadow: vars.shadow.focus },
      '&[aria-invalid="true"]': { borderColor: vars.color.danger },
      '&[aria-invalid="true"]:focus': { boxShadow: `0 0 0 3px rgba(220, 38, 38, 0.3)` },
      '&:disabled, &[aria-disabled="true"]': {
        background: vars.color.surfaceMuted,
        color: vars.color.textMuted,
        cursor: 'not-allowed',
      },
    },
  },
]);

/** Floating surfaces: menus, select popovers, popovers. */
export const floatingSurface = style({
  zIndex: vars.z.popover,
  minWidth: '10rem',
  maxHeight: 'min(var(--popover-available-height, 320px), 320px)',
  overflow: 'auto',
  padding: vars.space['1'],
  background: vars.color.surface,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.lg,
  boxShadow: vars.shadow.lg,
  outline: 'none',
  transformOrigin: 'var(--popover-transform-origin)',
  selectors: { '&[data-enter]': { animation: `${popIn} 120ms ease-out` } },
});

/** One row inside a floating surface (menu item, select item). */
export const floatingItem = style({
  display: 'flex',
  alignItems: 'center',
  gap: vars.space['2'],
  width: '100%',
  padding: `${vars.space['2']} ${vars.space['3']}`,
  borderRadius: vars.radius.md,
  fontSize: vars.fontSize.sm,
  color: vars.color.text,
  cursor: 'default',
  outline: 'none',
  userSelect: 'none',
  scrollMargin: vars.space['1'],
  selectors: {
    '&[data-active-item]': { background: vars.color.surfaceMuted },
    '&[aria-disabled="true"]': { opacity: 0.5, cursor: 'not-allowed' },
  },
});
