import { globalStyle, style } from '@vanilla-extract/css';
import { vars } from '../../../ui/theme.css';

export const shell = style({
  display: 'flex',
  minHeight: '100vh',
  background: vars.color.bg,
  '@media': { '(max-width: 767px)': { paddingLeft: '4.25rem' } },
});

export const sidebar = style({
  position: 'sticky',
  top: 0,
  height: '100vh',
  flexShrink: 0,
  display: 'flex',
  flexDirection: 'column',
  width: '16rem',
  background: vars.color.sidebar,
  borderRight: `1px solid ${vars.color.border}`,
  transition: 'width 180ms ease',
  overflow: 'hidden',
});
export const collapsed = style({ width: '4.25rem' });

/** Below 768px the sidebar floats over the page; a 4.25rem rail of space stays reserved for it. */
export const narrow = '(max-width: 767px)';
globalStyle(sidebar, {
  '@media': { [narrow]: { position: 'fixed', left: 0, zIndex: vars.z.overlay, boxShadow: vars.shadow.xl } },
});
globalStyle(collapsed, { '@media': { [narrow]: { boxShadow: 'none' } } });

export const sidebarHead = style({
  display: 'flex',
  alignItems: 'center',
  height: '4rem',
  padding: `0 ${vars.space['4']}`,
  borderBottom: `1px solid ${vars.color.border}`,
});
export const brand = style({
  display: 'inline-flex',
  alignItems: 'center',
  gap: vars.space['3'],
  fontSize: vars.fontSize.lg,
  fontWeight: vars.fontWeight.bold,
  letterSpacing: '-0.01em',
  color: vars.color.sidebarText,
  borderRadius: vars.radius.md,
  whiteSpace: 'nowrap',
});

export const nav = style({
  flex: 1,
  display: 'flex',
  flexDirection: 'column',
  gap: 2,
  padding: vars.space['3'],
  overflowY: 'auto',
});
export const navLabel = style({
  padding: `${vars.space['2']} ${vars.space['3']}`,
  fontSize: vars.fontSize.xs,
  fontWeight: vars.fontWeight.semibold,
  color: vars.color.sidebarMuted,
  textTransform: 'uppercase',
  letterSpacing: '0.06em',
  whiteSpace: 'nowrap',
});
export const navItem = style({
  display: 'flex',
  alignItems: 'center',
  gap: vars.space['3'],
  height: '2.5rem',
  padding: `0 ${vars.space['3']}`,
  fontSize: vars.fontSize.sm,
  fontWeight: vars.fontWeight.medium,
  color: vars.color.sidebarMuted,
  borderRadius: vars.radius.md,
  whiteSpace: 'nowrap',
  transition: 'background-color 120ms, color 120ms',
  selectors: {
    '&:hover': { background: vars.color.sidebarHover, color: vars.color.sidebarText },
    '&[aria-current="page"]': { background: vars.color.sidebarActive, color: vars.color.primarySoftText },
  },
});
export const navIcon = style({ display: 'inline-flex', width: '1.25rem', justifyContent: 'center', flexShrink: 0 });

export const sidebarFoot = style({ padding: vars.space['3'], borderTop: `1px solid ${vars.color.border}` });
export const logout = style([navItem, { width: '100%', textAlign: 'left' }]);

export const main = style({ flex: 1, minWidth: 0, display: 'flex', flexDirection: 'column' });
export const topBar = style({
  position: 'sticky',
  top: 0,
  zIndex: vars.z.sticky,
  display: 'flex',
  alignItems: 'center',
  gap: vars.space['3'],
  height: '4rem',
  padding: `0 ${vars.space['6']}`,
  background: 'rgba(248, 250, 252, 0.85)',
  backdropFilter: 'blur(8px)',
  borderBottom: `1px solid ${vars.color.border}`,
});
export const divider = style({ width: 1, height: '1.25rem', background: vars.color.border });
export const crumb = style({ fontSize: vars.fontSize.sm, color: vars.color.textMuted });
export const content = style({
  flex: 1,
  width: '100%',
  maxWidth: '90rem',
  margin: '0 auto',
  padding: vars.space['8'],
  '@media': { '(max-width: 640px)': { padding: vars.space['4'] } },
});

// page scaffolding shared by the dashboard pages
export const pageHeader = style({
  display: 'flex',
  flexWrap: 'wrap',
  alignItems: 'flex-end',
  justifyContent: 'space-between',
  gap: vars.space['4'],
  marginBottom: vars.space['6'],
});
export const pageTitle = style({ fontSize: vars.fontSize['3xl'], fontWeight: vars.fontWeight.bold, letterSpacing: '-0.02em' });
export const pageLead = style({ marginTop: vars.space['1'], color: vars.color.textMuted, fontSize: vars.fontSize.sm });
export const pageActions = style({ display: 'flex', flexWrap: 'wrap', gap: vars.space['2'] });
export const empty = style({
  display: 'flex',
  flexDirection: 'column',
  alignItems: 'center',
  gap: vars.space['3'],
  padding: `${vars.space['16']} ${vars.space['6']}`,
  textAlign: 'center',
});
export const emptyIcon = style({
  display: 'grid',
  placeItems: 'center',
  width: '3rem',
  height: '3rem',
  borderRadius: vars.radius.full,
  color: vars.color.primary,
  background: vars.color.primarySoft,
});
export const emptyTitle = style({ fontSize: vars.fontSize.lg, fontWeight: vars.fontWeight.semibold });
export const emptyText = style({ maxWidth: '28rem', fontSize: vars.fontSize.sm, color: vars.color.textMuted });
