import { style, styleVariants } from '@vanilla-extract/css';
import { vars } from '../../../../ui/theme.css';

export const call = style({
  display: 'flex',
  flexDirection: 'column',
  gap: vars.space['1'],
  padding: `${vars.space['2']} ${vars.space['3']}`,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.md,
  background: vars.color.surface,
  fontSize: vars.fontSize.xs,
  color: vars.color.textMuted,
  overflowWrap: 'anywhere',
  minWidth: 0,
});
export const head = style({ display: 'flex', alignItems: 'center', gap: vars.space['2'], flexWrap: 'wrap' });
export const name = style({ fontFamily: vars.font.mono, color: vars.color.text });
export const mono = style({ fontFamily: vars.font.mono });
const badge = {
  padding: `0 ${vars.space['2']}`,
  borderRadius: vars.radius.full,
  fontWeight: vars.fontWeight.semibold,
} as const;
export const status = styleVariants({
  good: { ...badge, background: vars.color.successSoft, color: vars.color.success },
  bad: { ...badge, background: vars.color.dangerSoft, color: vars.color.danger },
  neutral: { ...badge, background: vars.color.warningSoft, color: vars.color.warning },
});
export const result = style({
  margin: 0,
  maxHeight: '16rem',
  overflow: 'auto',
  padding: vars.space['2'],
  borderRadius: vars.radius.sm,
  background: vars.color.surfaceMuted,
  fontFamily: vars.font.mono,
  whiteSpace: 'pre-wrap',
  color: vars.color.text,
});
export const expander = style({ alignSelf: 'flex-start' });
