import { style } from '@vanilla-extract/css';
import { vars } from '../../../../../ui/theme.css';

/** one header row: name, value, remove */
export const headerRow = style({
  display: 'grid',
  gridTemplateColumns: 'minmax(0, 1fr) minmax(0, 1.4fr) auto',
  gap: vars.space['2'],
  alignItems: 'end',
});
/** one parameter row: name, type, description, required, remove */
export const paramRow = style({
  display: 'grid',
  gridTemplateColumns: 'minmax(0, 1fr) 8rem minmax(0, 1.4fr) auto auto',
  gap: vars.space['2'],
  alignItems: 'end',
  '@media': { '(max-width: 700px)': { gridTemplateColumns: 'minmax(0, 1fr) minmax(0, 1fr)' } },
});
export const group = style({
  display: 'flex',
  flexDirection: 'column',
  gap: vars.space['2'],
  padding: vars.space['3'],
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.md,
  minWidth: 0,
});
export const groupHead = style({
  display: 'flex',
  flexWrap: 'wrap',
  alignItems: 'center',
  justifyContent: 'space-between',
  gap: vars.space['2'],
});
export const groupTitle = style({
  padding: `0 ${vars.space['1']}`,
  fontSize: vars.fontSize.sm,
  fontWeight: vars.fontWeight.semibold,
});
export const json = style({ fontFamily: vars.font.mono, fontSize: vars.fontSize.xs, minHeight: '12rem' });
export const tools = style({
  display: 'flex',
  flexDirection: 'column',
  gap: vars.space['2'],
  maxHeight: '16rem',
  overflowY: 'auto',
});
export const note = style({
  padding: vars.space['2'],
  borderRadius: vars.radius.md,
  background: vars.color.warningSoft,
  fontSize: vars.fontSize.sm,
});
export const noteLink = style({ fontWeight: vars.fontWeight.medium, textDecoration: 'underline', textUnderlineOffset: '2px' });
export const actions = style({ display: 'flex', gap: 0, flexShrink: 0 });
export const status = style({ display: 'flex', alignItems: 'center', gap: vars.space['2'], fontSize: vars.fontSize.sm });
/** two inputs side by side, tops aligned (their hints differ in length) */
export const pair = style({ display: 'flex', flexWrap: 'wrap', alignItems: 'flex-start', gap: vars.space['3'] });
