import { style } from '@vanilla-extract/css';
import { recipe } from '@vanilla-extract/recipes';
import { popIn } from '../shared.css';
import { vars } from '../theme.css';

export const region = style({
  position: 'fixed',
  zIndex: vars.z.toast,
  right: 0,
  bottom: 0,
  display: 'flex',
  flexDirection: 'column',
  gap: vars.space['2'],
  width: '100%',
  maxWidth: '26rem',
  padding: vars.space['4'],
  pointerEvents: 'none',
});

export const toast = recipe({
  base: {
    pointerEvents: 'auto',
    display: 'flex',
    alignItems: 'flex-start',
    gap: vars.space['3'],
    padding: `${vars.space['3']} ${vars.space['3']} ${vars.space['3']} ${vars.space['4']}`,
    borderRadius: vars.radius.lg,
    border: '1px solid',
    boxShadow: vars.shadow.lg,
    animation: `${popIn} 180ms ease-out`,
  },
  variants: {
    variant: {
      default: { background: vars.color.surface, borderColor: vars.color.border, color: vars.color.text },
      destructive: { background: vars.color.danger, borderColor: vars.color.dangerHover, color: vars.color.onDanger },
    },
  },
  defaultVariants: { variant: 'default' },
});

export const text = style({ flex: 1, minWidth: 0, display: 'flex', flexDirection: 'column', gap: 2, paddingTop: 2 });
export const title = style({ fontSize: vars.fontSize.sm, fontWeight: vars.fontWeight.semibold });
export const description = style({ fontSize: vars.fontSize.sm, opacity: 0.9, overflowWrap: 'anywhere' });
export const dismiss = style({ color: 'inherit', opacity: 0.7, selectors: { '&:hover': { opacity: 1 } } });
export const dismissOnDestructive = style({
  selectors: { '&:hover:not(:disabled)': { background: 'rgba(255,255,255,0.15)', color: 'inherit' } },
});
