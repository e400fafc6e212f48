import { style } from '@vanilla-extract/css';
import { vars } from '../theme.css';

export const root = style({
  display: 'inline-flex',
  alignItems: 'flex-start',
  gap: vars.space['2'],
  fontSize: vars.fontSize.sm,
  cursor: 'pointer',
  position: 'relative',
  selectors: { '&:has(input:disabled)': { cursor: 'not-allowed', opacity: 0.6 } },
});
/** The real input sits, transparent, exactly over the drawn box: it gets the clicks and the focus. */
export const input = style({
  position: 'absolute',
  top: '0.1rem',
  left: 0,
  width: '1.125rem',
  height: '1.125rem',
  margin: 0,
  opacity: 0,
  zIndex: 1,
  cursor: 'inherit',
});
export const box = style({
  display: 'inline-flex',
  alignItems: 'center',
  justifyContent: 'center',
  width: '1.125rem',
  height: '1.125rem',
  marginTop: '0.1rem',
  flexShrink: 0,
  borderRadius: vars.radius.sm,
  border: `1.5px solid ${vars.color.borderStrong}`,
  background: vars.color.surface,
  color: 'transparent',
  transition: 'background-color 120ms, border-color 120ms',
  selectors: {
    [`${input}:checked + &, ${input}[aria-checked="mixed"] + &`]: {
      background: vars.color.primary,
      borderColor: vars.color.primary,
      color: vars.color.onPrimary,
    },
    [`${input}:focus-visible + &, ${input}[data-focus-visible] + &`]: { boxShadow: vars.shadow.focus },
    [`${input}[aria-invalid="true"] + &`]: { borderColor: vars.color.danger },
  },
});
export const text = style({ display: 'flex', flexDirection: 'column', gap: 2, lineHeight: vars.lineHeight.snug });
export const description = style({ fontSize: vars.fontSize.xs, color: vars.color.textMuted });
