import { style } from '@vanilla-extract/css';
import { vars } from '../theme.css';

/** Set inline by the component (percentage of the range that is filled). */
const fill = 'var(--slider-fill, 0%)';

export const output = style({
  fontSize: vars.fontSize.sm,
  fontVariantNumeric: 'tabular-nums',
  color: vars.color.textMuted,
  fontWeight: vars.fontWeight.medium,
});

const thumb = {
  appearance: 'none',
  width: '1rem',
  height: '1rem',
  borderRadius: '50%',
  background: '#fff',
  border: `2px solid ${vars.color.primary}`,
  boxShadow: vars.shadow.sm,
  cursor: 'grab',
} as const;

export const range = style({
  appearance: 'none',
  WebkitAppearance: 'none',
  width: '100%',
  height: '1.25rem',
  background: 'transparent',
  cursor: 'pointer',
  outline: 'none',
  selectors: {
    '&::-webkit-slider-runnable-track': {
      height: '0.375rem',
      borderRadius: vars.radius.full,
      background: `linear-gradient(to right, ${vars.color.primary} ${fill}, ${vars.color.border} ${fill})`,
    },
    '&::-moz-range-track': {
      height: '0.375rem',
      borderRadius: vars.radius.full,
      background: `linear-gradient(to right, ${vars.color.primary} ${fill}, ${vars.color.border} ${fill})`,
    },
    '&::-webkit-slider-thumb': { ...thumb, WebkitAppearance: 'none', marginTop: '-0.3125rem' },
    '&::-moz-range-thumb': thumb,
    '&:focus-visible::-webkit-slider-thumb': { boxShadow: vars.shadow.focus },
    '&:focus-visible::-moz-range-thumb': { boxShadow: vars.shadow.focus },
    '&:disabled': { cursor: 'not-allowed', opacity: 0.55 },
  },
});
