import { globalStyle, style } from '@vanilla-extract/css';
import { vars } from '../theme.css';

export const root = style({
  display: 'inline-flex',
  alignItems: 'center',
  gap: vars.space['3'],
  fontSize: vars.fontSize.sm,
  cursor: 'pointer',
  position: 'relative',
  selectors: { '&:has(input:disabled)': { cursor: 'not-allowed', opacity: 0.6 } },
});
/** The real input sits, transparent, exactly over the drawn track: it gets the clicks and the focus. */
export const input = style({
  position: 'absolute',
  top: '50%',
  left: 0,
  width: '2.25rem',
  height: '1.25rem',
  margin: 0,
  transform: 'translateY(-50%)',
  opacity: 0,
  zIndex: 1,
  cursor: 'inherit',
});
export const labelFirst = style({ flexDirection: 'row-reverse', justifyContent: 'space-between' });
globalStyle(`${labelFirst} ${input}`, { left: 'auto', right: 0 });
export const track = style({
  position: 'relative',
  width: '2.25rem',
  height: '1.25rem',
  flexShrink: 0,
  borderRadius: vars.radius.full,
  background: vars.color.borderStrong,
  transition: 'background-color 150ms',
  selectors: {
    [`${input}:checked + &`]: { background: vars.color.primary },
    [`${input}:focus-visible + &`]: { boxShadow: vars.shadow.focus },
  },
});
export const thumb = style({
  position: 'absolute',
  top: 2,
  left: 2,
  width: '1rem',
  height: '1rem',
  borderRadius: vars.radius.full,
  background: '#fff',
  boxShadow: vars.shadow.sm,
  transition: 'transform 150ms',
  selectors: { [`${input}:checked + ${track} &`]: { transform: 'translateX(1rem)' } },
});
export const text = style({ display: 'flex', flexDirection: 'column', gap: 2, lineHeight: vars.lineHeight.snug });
export const description = style({ fontSize: vars.fontSize.xs, color: vars.color.textMuted });
