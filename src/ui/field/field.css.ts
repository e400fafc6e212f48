import { style } from '@vanilla-extract/css';
import { vars } from '../theme.css';

export const root = style({ display: 'flex', flexDirection: 'column', gap: vars.space['1'], minWidth: 0 });
export const label = style({ fontSize: vars.fontSize.sm, fontWeight: vars.fontWeight.medium, color: vars.color.text });
/** The label with something at its end (a slider's value, a busy spinner). */
export const labelRow = style({ display: 'flex', alignItems: 'center', justifyContent: 'space-between', gap: vars.space['2'] });
export const hint = style({ fontSize: vars.fontSize.xs, color: vars.color.textMuted });
export const error = style({ fontSize: vars.fontSize.xs, color: vars.color.danger, fontWeight: vars.fontWeight.medium });
