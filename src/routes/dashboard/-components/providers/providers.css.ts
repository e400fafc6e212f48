import { globalStyle, style } from '@vanilla-extract/css';
import { panel } from '../../../../ui/panel/panel.css';
import { vars } from '../../../../ui/theme.css';

/** A wrapping row with its ends apart: the search toolbar, the card footer, the pager. */
const spread = style({
  display: 'flex',
  flexWrap: 'wrap',
  alignItems: 'center',
  justifyContent: 'space-between',
  gap: vars.space['3'],
});

export const toolbar = style([spread, { marginBottom: vars.space['5'] }]);
export const search = style({ width: 'min(100%, 22rem)' });
export const busy = style({ display: 'inline-flex', alignItems: 'center', gap: vars.space['2'], color: vars.color.textMuted });

export const grid = style({
  display: 'grid',
  gridTemplateColumns: 'repeat(auto-fill, minmax(17rem, 1fr))',
  gap: vars.space['4'],
  transition: 'opacity 120ms',
  selectors: { '&[aria-busy="true"]': { opacity: 0.6 } },
});

export const card = style([
  panel,
  { display: 'flex', flexDirection: 'column', gap: vars.space['4'], height: '100%', padding: vars.space['5'] },
]);
export const cardHead = style({ display: 'flex', alignItems: 'flex-start', gap: vars.space['3'] });
export const cardHeadText = style({ flex: 1, minWidth: 0 });
export const cardTitle = style({ fontSize: vars.fontSize.md, fontWeight: vars.fontWeight.semibold });
export const cardText = style({ fontSize: vars.fontSize.sm, color: vars.color.textMuted });
export const cardFoot = style([spread, { gap: vars.space['2'], marginTop: 'auto' }]);
export const cardActions = style({ display: 'flex', gap: vars.space['2'], marginLeft: 'auto' });
export const connected = style({
  display: 'inline-flex',
  alignItems: 'center',
  gap: vars.space['1'],
  fontSize: vars.fontSize.sm,
  fontWeight: vars.fontWeight.medium,
  color: vars.color.success,
});

export const logo = style({
  display: 'grid',
  placeItems: 'center',
  flexShrink: 0,
  width: '2.75rem',
  height: '2.75rem',
  borderRadius: vars.radius.lg,
  border: `1px solid ${vars.color.border}`,
  background: vars.color.surface,
});
export const lettered = style([
  logo,
  {
    fontSize: vars.fontSize.lg,
    fontWeight: vars.fontWeight.bold,
    color: vars.color.primarySoftText,
    background: vars.color.primarySoft,
    borderColor: 'transparent',
  },
]);

export const form = style({ display: 'flex', flexDirection: 'column', gap: vars.space['4'] });
export const secretRow = style({ display: 'flex', alignItems: 'flex-end', gap: vars.space['2'] });
export const grow = style({ flex: 1 });
export const note = style({ fontSize: vars.fontSize.xs, color: vars.color.textMuted });
export const centered = style({
  display: 'flex',
  flexDirection: 'column',
  alignItems: 'center',
  gap: vars.space['3'],
  padding: `${vars.space['8']} ${vars.space['4']}`,
  textAlign: 'center',
  color: vars.color.textMuted,
  fontSize: vars.fontSize.sm,
});

export const pager = style([spread, { marginTop: vars.space['6'] }]);
export const pagerGroup = style({ display: 'flex', alignItems: 'center', gap: vars.space['3'] });
export const pagerText = style({ fontSize: vars.fontSize.sm, color: vars.color.textMuted, whiteSpace: 'nowrap' });
export const perPage = style({ flexDirection: 'row', alignItems: 'center', gap: vars.space['2'] });
globalStyle(`${perPage} > *`, { whiteSpace: 'nowrap' });
globalStyle(`${perPage} > button`, { minWidth: '5.5rem' });

/** 'Used for calls: …': a small tag under the blurb of a provider that makes an agent talk. */
export const callUse = style({
  display: 'inline-block',
  marginTop: vars.space['2'],
  padding: `2px ${vars.space['2']}`,
  borderRadius: vars.radius.full,
  fontSize: vars.fontSize.xs,
  fontWeight: vars.fontWeight.medium,
  color: vars.color.primarySoftText,
  background: vars.color.primarySoft,
});
