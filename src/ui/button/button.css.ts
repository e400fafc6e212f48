import { type RecipeVariants, recipe } from '@vanilla-extract/recipes';
import { focusRing } from '../shared.css';
import { vars } from '../theme.css';

export const button = recipe({
  base: [
    focusRing,
    {
      position: 'relative',
      display: 'inline-flex',
      alignItems: 'center',
      justifyContent: 'center',
      gap: vars.space['2'],
      flexShrink: 0,
      whiteSpace: 'nowrap',
      fontWeight: vars.fontWeight.medium,
      lineHeight: 1,
      borderRadius: vars.radius.md,
      border: '1px solid transparent',
      cursor: 'pointer',
      userSelect: 'none',
      textDecoration: 'none',
      transition: 'background-color 120ms, border-color 120ms, color 120ms, box-shadow 120ms, transform 80ms',
      selectors: {
        '&:active:not(:disabled):not([aria-disabled="true"])': { transform: 'translateY(0.5px)' },
        '&:disabled, &[aria-disabled="true"]': { opacity: 0.55, cursor: 'not-allowed' },
        '&[aria-busy="true"]': { cursor: 'progress', opacity: 0.85 },
      },
    },
  ],
  variants: {
    variant: {
      primary: {
        background: vars.color.primary,
        color: vars.color.onPrimary,
        boxShadow: vars.shadow.sm,
        selectors: {
          '&:hover:not(:disabled)': { background: vars.color.primaryHover },
          '&:active:not(:disabled)': { background: vars.color.primaryActive },
        },
      },
      secondary: {
        background: vars.color.surface,
        color: vars.color.text,
        borderColor: vars.color.borderStrong,
        boxShadow: vars.shadow.xs,
        selectors: { '&:hover:not(:disabled)': { background: vars.color.surfaceMuted } },
      },
      ghost: {
        background: 'transparent',
        color: vars.color.textMuted,
        selectors: { '&:hover:not(:disabled)': { background: vars.color.surfaceMuted, color: vars.color.text } },
      },
      destructive: {
        background: vars.color.danger,
        color: vars.color.onDanger,
        boxShadow: vars.shadow.sm,
        selectors: { '&:hover:not(:disabled)': { background: vars.color.dangerHover } },
      },
      link: {
        background: 'transparent',
        color: vars.color.primary,
        padding: '0 !important',
        height: 'auto !important',
        selectors: { '&:hover:not(:disabled)': { textDecoration: 'underline', textUnderlineOffset: 3 } },
      },
    },
    size: {
      sm: { height: '2rem', padding: `0 ${vars.space['3']}`, fontSize: vars.fontSize.sm },
      md: { height: '2.5rem', padding: `0 ${vars.space['4']}`, fontSize: vars.fontSize.sm },
      lg: { height: '3rem', padding: `0 ${vars.space['6']}`, fontSize: vars.fontSize.md, borderRadius: vars.radius.lg },
      icon: { height: '2.25rem', width: '2.25rem', padding: 0 },
      iconSm: { height: '1.75rem', width: '1.75rem', padding: 0, borderRadius: vars.radius.sm },
    },
    fullWidth: { true: { width: '100%' } },
  },
  defaultVariants: { variant: 'primary', size: 'md' },
});

export type ButtonVariants = NonNullable<RecipeVariants<typeof button>>;
