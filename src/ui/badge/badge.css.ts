import { type RecipeVariants, recipe } from '@vanilla-extract/recipes';
import { vars } from '../theme.css';

/** A small rounded label: a status, a count, a tag. The tone carries the meaning's colour. */
export const badge = recipe({
  base: {
    display: 'inline-flex',
    alignItems: 'center',
    gap: vars.space['1'],
    height: '1.5rem',
    padding: `0 ${vars.space['2']}`,
    borderRadius: vars.radius.full,
    fontSize: vars.fontSize.xs,
    fontWeight: vars.fontWeight.semibold,
    whiteSpace: 'nowrap',
  },
  variants: {
    tone: {
      grey: { background: vars.color.surfaceMuted, color: vars.color.textMuted },
      blue: { background: vars.color.primarySoft, color: vars.color.primarySoftText },
      green: { background: vars.color.successSoft, color: vars.color.success },
      yellow: { background: vars.color.warningSoft, color: vars.color.warning },
      red: { background: vars.color.dangerSoft, color: vars.color.danger },
      /** filled with the primary colour (the pricing table's 'Default') */
      solid: { background: vars.color.primary, color: vars.color.onPrimary },
    },
  },
  defaultVariants: { tone: 'grey' },
});

export type BadgeVariants = NonNullable<RecipeVariants<typeof badge>>;
