import { globalStyle, keyframes, style } from '@vanilla-extract/css';
import { vars } from '../../../../ui/theme.css';

export const formLayout = style({
  display: 'grid',
  gridTemplateColumns: 'minmax(20rem, 26rem) minmax(0, 1fr)',
  gap: vars.space['6'],
  minHeight: 0,
  height: '100%',
  '@media': { '(max-width: 900px)': { gridTemplateColumns: '1fr' } },
});
export const fields = style({ display: 'flex', flexDirection: 'column', gap: vars.space['5'], minWidth: 0 });
export const fieldset = style({
  display: 'flex',
  flexDirection: 'column',
  gap: vars.space['2'],
  border: 'none',
  padding: 0,
  margin: 0,
});
export const radios = style({ display: 'flex', gap: vars.space['4'], flexWrap: 'wrap' });
export const radio = style({
  display: 'inline-flex',
  alignItems: 'center',
  gap: vars.space['2'],
  fontSize: vars.fontSize.sm,
  cursor: 'pointer',
});
export const radioInput = style({ width: '1rem', height: '1rem', accentColor: vars.color.primary });

export const upload = style({
  display: 'flex',
  flexDirection: 'column',
  gap: vars.space['2'],
  padding: vars.space['4'],
  border: `1px dashed ${vars.color.borderStrong}`,
  borderRadius: vars.radius.lg,
  background: vars.color.surfaceMuted,
});
export const fileLine = style({
  display: 'flex',
  alignItems: 'center',
  gap: vars.space['2'],
  fontSize: vars.fontSize.sm,
  flexWrap: 'wrap',
});

export const progressTrack = style({
  height: '0.5rem',
  borderRadius: vars.radius.full,
  background: vars.color.border,
  overflow: 'hidden',
});
export const progressBar = style({ height: '100%', background: vars.color.primary, transition: 'width 120ms linear' });

export const estimate = style({
  display: 'flex',
  flexDirection: 'column',
  gap: vars.space['1'],
  padding: vars.space['4'],
  borderRadius: vars.radius.lg,
  background: vars.color.primarySoft,
  color: vars.color.primarySoftText,
  fontSize: vars.fontSize.sm,
});
export const estimateTitle = style({ fontWeight: vars.fontWeight.semibold });

export const pane = style({
  display: 'flex',
  flexDirection: 'column',
  minHeight: '24rem',
  minWidth: 0,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.lg,
  background: vars.color.surface,
  overflow: 'hidden',
});
export const paneHead = style({
  display: 'flex',
  flexDirection: 'column',
  gap: vars.space['2'],
  padding: vars.space['4'],
  borderBottom: `1px solid ${vars.color.border}`,
});
export const counts = style({ display: 'flex', flexWrap: 'wrap', gap: vars.space['2'], fontSize: vars.fontSize.sm });
export const reasons = style({ margin: 0, paddingLeft: vars.space['5'], fontSize: vars.fontSize.sm, color: vars.color.danger });
export const empty = style({
  flex: 1,
  display: 'grid',
  placeItems: 'center',
  padding: vars.space['8'],
  color: vars.color.textMuted,
  fontSize: vars.fontSize.sm,
  textAlign: 'center',
});

/** The pane's flexible area, and inside it the scroller: absolutely sized, so Chromium can relayout
 * the rows without laying out the page around them (a flex item is never such a boundary). */
export const scrollArea = style({ flex: 1, minHeight: '16rem', position: 'relative' });
export const scroller = style({ position: 'absolute', inset: 0, overflow: 'auto', contain: 'strict' });
/** A real <table> laid out as grid rows, so the body can be virtualised. */
export const gridTable = style({ display: 'block', width: '100%', borderCollapse: 'collapse' });
export const gridHead = style({ display: 'block', position: 'sticky', top: 0, zIndex: 1 });
export const gridBody = style({ display: 'block', boxSizing: 'border-box', overflow: 'hidden' });
export const gridRow = style({
  display: 'grid',
  alignItems: 'center',
  gap: vars.space['3'],
  padding: `0 ${vars.space['4']}`,
  fontSize: vars.fontSize.sm,
  borderBottom: `1px solid ${vars.color.border}`,
  whiteSpace: 'nowrap',
});
export const headRow = style([
  gridRow,
  {
    height: '2.25rem',
    background: vars.color.surfaceMuted,
    fontSize: vars.fontSize.xs,
    fontWeight: vars.fontWeight.semibold,
    color: vars.color.textMuted,
    textTransform: 'uppercase',
  },
]);
globalStyle(`${headRow} > th`, { textAlign: 'left', fontWeight: 'inherit' });
export const bodyRow = style([gridRow, { height: '2.25rem' }]);
export const badRow = style({ background: vars.color.dangerSoft });
export const cell = style({ overflow: 'hidden', textOverflow: 'ellipsis' });
export const reasonCell = style([cell, { color: vars.color.danger, fontWeight: vars.fontWeight.medium }]);
export const okCell = style([cell, { color: vars.color.success }]);

export const facts = style({
  display: 'grid',
  gridTemplateColumns: 'max-content 1fr',
  columnGap: vars.space['4'],
  rowGap: vars.space['2'],
  fontSize: vars.fontSize.sm,
  margin: 0,
});
globalStyle(`${facts} dt`, { color: vars.color.textMuted });
globalStyle(`${facts} dd`, { margin: 0 });

const fade = keyframes({ from: { opacity: 0 }, to: { opacity: 1 } });
export const scheduleBox = style({
  display: 'flex',
  flexWrap: 'wrap',
  alignItems: 'flex-end',
  gap: vars.space['3'],
  padding: vars.space['4'],
  borderRadius: vars.radius.lg,
  background: vars.color.surfaceMuted,
  animation: `${fade} 120ms ease-out`,
});

/** The detail's counts per recipient state: label over number, in a wrapping row. */
export const stateCounts = style({
  display: 'flex',
  flexWrap: 'wrap',
  gap: vars.space['3'],
  margin: 0,
  fontSize: vars.fontSize.sm,
});
export const stateCount = style({
  display: 'flex',
  flexDirection: 'column',
  minWidth: '5.5rem',
  padding: `${vars.space['2']} ${vars.space['3']}`,
  borderRadius: vars.radius.md,
  background: vars.color.surfaceMuted,
});
globalStyle(`${stateCount} dt`, { color: vars.color.textMuted, fontSize: vars.fontSize.xs });
globalStyle(`${stateCount} dd`, { margin: 0, fontWeight: vars.fontWeight.semibold, fontSize: vars.fontSize.lg });

/** From and Until side by side, top-aligned so a message under one does not move the other. */
export const timesRow = style({ display: 'flex', flexWrap: 'wrap', alignItems: 'flex-start', gap: vars.space['3'] });
