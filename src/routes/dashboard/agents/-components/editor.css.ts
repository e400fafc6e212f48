import { style } from '@vanilla-extract/css';
import { panel } from '../../../../ui/panel/panel.css';
import { vars } from '../../../../ui/theme.css';

export const page = style({ display: 'flex', flexDirection: 'column', gap: vars.space['5'] });

export const header = style({
  display: 'flex',
  flexWrap: 'wrap',
  alignItems: 'flex-start',
  justifyContent: 'space-between',
  gap: vars.space['4'],
});
export const headerMain = style({ display: 'flex', alignItems: 'flex-start', gap: vars.space['3'], minWidth: 0 });
export const titleRow = style({ display: 'flex', alignItems: 'center', gap: vars.space['2'], minWidth: 0 });
export const title = style({
  fontSize: vars.fontSize['2xl'],
  fontWeight: vars.fontWeight.bold,
  letterSpacing: '-0.02em',
  overflow: 'hidden',
  textOverflow: 'ellipsis',
  whiteSpace: 'nowrap',
});
export const nameInput = style({ maxWidth: '22rem' });
export const subtitle = style({
  display: 'flex',
  flexWrap: 'wrap',
  gap: `${vars.space['1']} ${vars.space['3']}`,
  marginTop: vars.space['1'],
  fontSize: vars.fontSize.xs,
  color: vars.color.textMuted,
});
export const mono = style({ fontFamily: vars.font.mono });
export const headerActions = style({ display: 'flex', alignItems: 'center', gap: vars.space['2'] });

export const columns = style({
  display: 'grid',
  gridTemplateColumns: 'minmax(0, 2fr) minmax(0, 1.4fr) minmax(14rem, 0.8fr)',
  gap: vars.space['5'],
  alignItems: 'start',
  '@media': {
    '(max-width: 1200px)': { gridTemplateColumns: 'minmax(0, 1fr) minmax(0, 1fr)' },
    '(max-width: 800px)': { gridTemplateColumns: 'minmax(0, 1fr)' },
  },
});
export const column = style({ display: 'flex', flexDirection: 'column', gap: vars.space['4'], minWidth: 0 });

export const card = style([panel, { display: 'flex', flexDirection: 'column', gap: vars.space['4'], padding: vars.space['4'] }]);
export const row = style({ display: 'flex', flexWrap: 'wrap', alignItems: 'flex-end', gap: vars.space['3'] });
export const grow = style({ flex: '1 1 10rem', minWidth: 0 });
export const prompt = style({ minHeight: '22rem', fontFamily: vars.font.mono, fontSize: vars.fontSize.sm });

/** the blue dot on a settings button whose values differ from the defaults */
export const dotted = style({ position: 'relative' });
export const dot = style({
  position: 'absolute',
  top: 4,
  right: 4,
  width: 8,
  height: 8,
  borderRadius: vars.radius.full,
  background: '#2563eb',
});

export const sectionToggle = style({
  display: 'flex',
  alignItems: 'center',
  justifyContent: 'space-between',
  width: '100%',
  padding: `${vars.space['3']} ${vars.space['4']}`,
  fontSize: vars.fontSize.md,
  fontWeight: vars.fontWeight.semibold,
  textAlign: 'left',
  borderRadius: vars.radius.lg,
  selectors: { '&:hover': { background: vars.color.surfaceHover } },
});
export const sectionBody = style({
  display: 'flex',
  flexDirection: 'column',
  gap: vars.space['4'],
  padding: `${vars.space['1']} ${vars.space['4']} ${vars.space['4']}`,
});
export const lead = style({ fontSize: vars.fontSize.sm, color: vars.color.textMuted });
export const muted = style({ fontSize: vars.fontSize.sm, color: vars.color.textMuted });
export const error = style({ fontSize: vars.fontSize.sm, color: vars.color.danger });

export const list = style({ display: 'flex', flexDirection: 'column', gap: vars.space['2'] });
export const listItem = style({
  display: 'flex',
  alignItems: 'center',
  justifyContent: 'space-between',
  gap: vars.space['2'],
  padding: `${vars.space['2']} ${vars.space['3']}`,
  border: `1px solid ${vars.color.border}`,
  borderRadius: vars.radius.md,
  fontSize: vars.fontSize.sm,
});
export const itemText = style({ display: 'flex', flexDirection: 'column', gap: 2, minWidth: 0 });
export const itemMeta = style({ fontSize: vars.fontSize.xs, color: vars.color.textMuted });

export const banner = style({
  display: 'flex',
  flexWrap: 'wrap',
  alignItems: 'center',
  justifyContent: 'space-between',
  gap: vars.space['3'],
  padding: vars.space['3'],
  borderRadius: vars.radius.md,
  background: vars.color.warningSoft,
  color: vars.color.text,
  fontSize: vars.fontSize.sm,
});

export const varRow = style({ display: 'grid', gridTemplateColumns: '1fr 1fr auto', gap: vars.space['2'], alignItems: 'end' });
export const popoverActions = style({
  display: 'flex',
  justifyContent: 'space-between',
  gap: vars.space['2'],
  marginTop: vars.space['3'],
});
export const stack = style({ display: 'flex', flexDirection: 'column', gap: vars.space['3'] });
export const centered = style({
  display: 'flex',
  alignItems: 'center',
  justifyContent: 'center',
  gap: vars.space['2'],
  padding: vars.space['16'],
  color: vars.color.textMuted,
});
export const fileInput = style({ fontSize: vars.fontSize.sm });
export const tooltipAnchor = style({ display: 'inline-flex' });
/** The way out of a problem ('Open Providers'): on its own line, underlined, so it does not run into the message. */
export const problemLink = style({
  display: 'block',
  width: 'fit-content',
  marginTop: vars.space['1'],
  fontWeight: vars.fontWeight.medium,
  textDecoration: 'underline',
  textUnderlineOffset: '2px',
});
