import { style } from '@vanilla-extract/css';
import { vars } from '../../../ui/theme.css';

export const spacer = style({ flex: 1 });

export const trigger = style({ gap: vars.space['2'], paddingLeft: vars.space['1'] });

export const avatar = style({
  display: 'inline-flex',
  alignItems: 'center',
  justifyContent: 'center',
  width: '2rem',
  height: '2rem',
  flexShrink: 0,
  borderRadius: vars.radius.full,
  overflow: 'hidden',
  background: vars.color.primarySoft,
  color: vars.color.primarySoftText,
  fontSize: vars.fontSize.xs,
  fontWeight: vars.fontWeight.semibold,
  objectFit: 'cover',
});

export const name = style({
  maxWidth: '12rem',
  overflow: 'hidden',
  textOverflow: 'ellipsis',
  whiteSpace: 'nowrap',
  fontSize: vars.fontSize.sm,
  fontWeight: vars.fontWeight.medium,
  '@media': { '(max-width: 767px)': { display: 'none' } },
});

export const identity = style({
  display: 'flex',
  flexDirection: 'column',
  gap: '2px',
  padding: `${vars.space['2']} ${vars.space['3']}`,
  maxWidth: '18rem',
});

export const identityName = style({ fontSize: vars.fontSize.sm, fontWeight: vars.fontWeight.semibold });
export const identityMeta = style({
  fontSize: vars.fontSize.xs,
  color: vars.color.textMuted,
  overflow: 'hidden',
  textOverflow: 'ellipsis',
  whiteSpace: 'nowrap',
});
