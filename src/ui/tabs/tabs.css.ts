import { style } from '@vanilla-extract/css';
import { focusRing } from '../shared.css';
import { vars } from '../theme.css';

export const list = style({
  display: 'inline-flex',
  gap: vars.space['1'],
  padding: vars.space['1'],
  background: vars.color.surfaceMuted,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.lg,
  maxWidth: '100%',
  // on a narrow screen the tabs wrap onto a second row rather than hide behind the edge
  flexWrap: 'wrap',
});
export const tab = style([
  focusRing,
  {
    display: 'inline-flex',
    alignItems: 'center',
    gap: vars.space['2'],
    height: '2rem',
    padding: `0 ${vars.space['3']}`,
    fontSize: vars.fontSize.sm,
    fontWeight: vars.fontWeight.medium,
    color: vars.color.textMuted,
    borderRadius: vars.radius.md,
    whiteSpace: 'nowrap',
    transition: 'background-color 120ms, color 120ms',
    selectors: {
      '&:hover': { color: vars.color.text },
      '&[aria-selected="true"]': { background: vars.color.surface, color: vars.color.text, boxShadow: vars.shadow.sm },
      '&[aria-disabled="true"]': { opacity: 0.5, cursor: 'not-allowed' },
    },
  },
]);
export const panel = style([focusRing, { marginTop: vars.space['4'], borderRadius: vars.radius.md }]);
