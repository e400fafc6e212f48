import { style } from '@vanilla-extract/css';
import { panel } from '../../../../../ui/panel/panel.css';
import { vars } from '../../../../../ui/theme.css';

export const workspace = style({
  display: 'grid',
  gridTemplateColumns: 'minmax(0, 1fr) minmax(18rem, 24rem)',
  gap: vars.space['4'],
  alignItems: 'stretch',
  '@media': { '(max-width: 900px)': { gridTemplateColumns: 'minmax(0, 1fr)' } },
});
export const main = style({ display: 'flex', flexDirection: 'column', gap: vars.space['3'], minWidth: 0 });
export const toolbar = style([
  panel,
  { display: 'flex', flexWrap: 'wrap', alignItems: 'center', gap: vars.space['2'], padding: vars.space['2'] },
]);
export const toolbarGap = style({ flex: '1 1 auto' });
export const canvas = style([panel, { height: '62vh', minHeight: '28rem', overflow: 'hidden' }]);
export const side = style({ display: 'flex', flexDirection: 'column', gap: vars.space['3'], minWidth: 0 });
export const card = style([panel, { display: 'flex', flexDirection: 'column', gap: vars.space['3'], padding: vars.space['4'] }]);
export const heading = style({ fontSize: vars.fontSize.md, fontWeight: vars.fontWeight.semibold });
export const muted = style({ fontSize: vars.fontSize.sm, color: vars.color.textMuted });
export const list = style({ display: 'flex', flexDirection: 'column', gap: vars.space['1'], listStyle: 'none', padding: 0 });
export const row = style({ display: 'flex', flexWrap: 'wrap', alignItems: 'flex-end', gap: vars.space['2'] });
export const problem = style({
  all: 'unset',
  boxSizing: 'border-box',
  width: '100%',
  cursor: 'pointer',
  padding: `${vars.space['1']} ${vars.space['2']}`,
  borderRadius: vars.radius.sm,
  fontSize: vars.fontSize.sm,
  color: vars.color.danger,
  ':hover': { background: vars.color.dangerSoft },
  ':focus-visible': { outline: `2px solid ${vars.color.primary}` },
});
export const nodeButton = style([problem, { color: vars.color.text, ':hover': { background: vars.color.surfaceHover } }]);
export const select = style({
  display: 'block',
  width: '100%',
  padding: `${vars.space['2']} ${vars.space['2']}`,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.md,
  background: vars.color.surface,
  color: vars.color.text,
  fontSize: vars.fontSize.sm,
});
export const label = style({ display: 'flex', flexDirection: 'column', gap: vars.space['1'], fontSize: vars.fontSize.sm });
export const checkbox = style({ display: 'flex', alignItems: 'center', gap: vars.space['2'], fontSize: vars.fontSize.sm });

export const node = style({
  width: 220,
  minHeight: 72,
  boxSizing: 'border-box',
  padding: `${vars.space['2']} ${vars.space['3']}`,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.md,
  background: vars.color.surface,
  color: vars.color.text,
  fontSize: vars.fontSize.sm,
  selectors: { '.selected > &': { borderColor: vars.color.primary, boxShadow: `0 0 0 2px ${vars.color.primarySoft}` } },
});
export const nodeProblem = style({ borderColor: vars.color.danger });
export const nodeType = style({
  display: 'flex',
  gap: vars.space['1'],
  alignItems: 'center',
  fontSize: vars.fontSize.xs,
  color: vars.color.textMuted,
  textTransform: 'uppercase',
  letterSpacing: '0.04em',
});
export const nodeName = style({ fontWeight: vars.fontWeight.semibold, overflow: 'hidden', textOverflow: 'ellipsis' });
export const nodeBadge = style({ fontSize: vars.fontSize.xs, color: vars.color.primary, fontWeight: vars.fontWeight.semibold });
export const nodeBadgeDanger = style([nodeBadge, { color: vars.color.danger }]);
