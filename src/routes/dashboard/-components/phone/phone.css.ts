import { style } from '@vanilla-extract/css';
import { vars } from '../../../../ui/theme.css';

export const numberCell = style({ display: 'flex', flexDirection: 'column', gap: 2 });
export const number = style({ fontWeight: vars.fontWeight.medium, fontVariantNumeric: 'tabular-nums', whiteSpace: 'nowrap' });
export const numberNote = style({ fontSize: vars.fontSize.xs, color: vars.color.textMuted });

export const form = style({ display: 'flex', flexDirection: 'column', gap: vars.space['4'] });
export const grid = style({
  display: 'grid',
  gridTemplateColumns: 'repeat(auto-fit, minmax(13rem, 1fr))',
  gap: vars.space['4'],
});

export const choices = style({
  display: 'flex',
  flexDirection: 'column',
  maxHeight: '14rem',
  overflowY: 'auto',
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.md,
});
export const choicesInline = style({ display: 'flex', gap: vars.space['4'], flexWrap: 'wrap' });
export const choice = style({
  display: 'flex',
  alignItems: 'flex-start',
  gap: vars.space['2'],
  padding: `${vars.space['2']} ${vars.space['3']}`,
  fontSize: vars.fontSize.sm,
  cursor: 'pointer',
  selectors: { [`${choices} > &:not(:last-child)`]: { borderBottom: `1px solid ${vars.color.border}` } },
});
export const choiceInline = style({
  display: 'inline-flex',
  alignItems: 'flex-start',
  gap: vars.space['2'],
  fontSize: vars.fontSize.sm,
  cursor: 'pointer',
});
export const choiceInput = style({ width: '1rem', height: '1rem', marginTop: 2, accentColor: vars.color.primary, flexShrink: 0 });
export const choiceText = style({ display: 'flex', flexDirection: 'column', gap: 2 });
export const choiceNote = style({ fontSize: vars.fontSize.xs, color: vars.color.textMuted });
export const listState = style({
  display: 'flex',
  alignItems: 'center',
  gap: vars.space['2'],
  padding: vars.space['4'],
  fontSize: vars.fontSize.sm,
  color: vars.color.textMuted,
});

/** The Import from Twilio / Plivo dialog */
export const importToolbar = style({ display: 'flex', gap: vars.space['2'], flexWrap: 'wrap', justifyContent: 'flex-end' });
export const importList = style({
  display: 'flex',
  flexDirection: 'column',
  gap: vars.space['1'],
  maxHeight: '18rem',
  overflowY: 'auto',
  padding: vars.space['1'],
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.md,
});
export const importStatus = style({ display: 'flex', alignItems: 'center', gap: vars.space['2'], fontSize: vars.fontSize.sm });
export const importError = style({ fontSize: vars.fontSize.sm, color: vars.color.danger });
export const muted = style({ fontSize: vars.fontSize.sm, color: vars.color.textMuted });
