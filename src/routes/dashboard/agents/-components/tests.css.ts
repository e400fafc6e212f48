import { style } from '@vanilla-extract/css';
import { vars } from '../../../../ui/theme.css';

export const log = style({
  display: 'flex',
  flexDirection: 'column',
  gap: vars.space['2'],
  maxHeight: '24rem',
  minHeight: '6rem',
  overflowY: 'auto',
  padding: vars.space['2'],
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.md,
  background: vars.color.surfaceMuted,
  fontSize: vars.fontSize.sm,
});
const bubble = {
  padding: `${vars.space['2']} ${vars.space['3']}`,
  borderRadius: vars.radius.md,
  maxWidth: '92%',
  whiteSpace: 'pre-wrap',
  overflowWrap: 'anywhere',
} as const;
export const user = style({
  ...bubble,
  alignSelf: 'flex-end',
  background: vars.color.primarySoft,
  color: vars.color.primarySoftText,
});
export const agent = style({
  ...bubble,
  alignSelf: 'flex-start',
  background: vars.color.surface,
  border: `1px solid ${vars.color.border}`,
});
export const interim = style({ opacity: 0.65, fontStyle: 'italic' });
export const event = style({
  alignSelf: 'center',
  fontSize: vars.fontSize.xs,
  color: vars.color.textMuted,
  fontFamily: vars.font.mono,
  overflowWrap: 'anywhere',
});
/** a function call in the chat: as wide as the agent's lines */
export const call = style({ alignSelf: 'stretch' });
export const problem = style({ alignSelf: 'stretch', fontSize: vars.fontSize.sm, color: vars.color.danger });
export const who = style({ display: 'block', fontSize: vars.fontSize.xs, color: vars.color.textMuted, marginBottom: 2 });
export const composer = style({ display: 'flex', gap: vars.space['2'], alignItems: 'flex-end' });
export const headRow = style({
  display: 'flex',
  alignItems: 'center',
  justifyContent: 'space-between',
  gap: vars.space['2'],
  flexWrap: 'wrap',
});
export const title = style({ fontSize: vars.fontSize.md, fontWeight: vars.fontWeight.semibold });

export const meters = style({
  display: 'grid',
  gridTemplateColumns: 'auto 1fr',
  gap: `${vars.space['2']} ${vars.space['3']}`,
  alignItems: 'center',
  fontSize: vars.fontSize.sm,
});
export const meter = style({
  width: '100%',
  height: 10,
  appearance: 'none',
  border: 'none',
  borderRadius: vars.radius.full,
  overflow: 'hidden',
  background: vars.color.surfaceMuted,
});
export const stateLine = style({ display: 'flex', alignItems: 'center', gap: vars.space['2'], fontSize: vars.fontSize.sm });
export const actions = style({ display: 'flex', gap: vars.space['2'], flexWrap: 'wrap' });
