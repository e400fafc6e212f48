import { createTheme, createThemeContract, globalStyle } from '@vanilla-extract/css';

/**
 * The design tokens. Components read `vars.*` only, never raw values, so a dark theme is one more
 * `createTheme(vars, {...})` call. Text colours meet WCAG AA (4.5:1) on `bg` and `surface`.
 */
export const vars = createThemeContract({
  color: {
    bg: null,
    surface: null,
    surfaceMuted: null,
    surfaceHover: null,
    border: null,
    borderStrong: null,
    text: null,
    textMuted: null,
    textSubtle: null,
    primary: null,
    primaryHover: null,
    primaryActive: null,
    primarySoft: null,
    primarySoftText: null,
    onPrimary: null,
    danger: null,
    dangerHover: null,
    dangerSoft: null,
    onDanger: null,
    success: null,
    successSoft: null,
    warning: null,
    warningSoft: null,
    focusRing: null,
    overlay: null,
    sidebar: null,
    sidebarText: null,
    sidebarMuted: null,
    sidebarHover: null,
    sidebarActive: null,
  },
  space: {
    '0': null,
    '1': null,
    '2': null,
    '3': null,
    '4': null,
    '5': null,
    '6': null,
    '8': null,
    '10': null,
    '12': null,
    '16': null,
    '20': null,
  },
  fontSize: { xs: null, sm: null, md: null, lg: null, xl: null, '2xl': null, '3xl': null, '4xl': null, '5xl': null },
  lineHeight: { tight: null, snug: null, normal: null },
  fontWeight: { regular: null, medium: null, semibold: null, bold: null },
  font: { body: null, mono: null },
  radius: { sm: null, md: null, lg: null, xl: null, full: null },
  shadow: { xs: null, sm: null, md: null, lg: null, xl: null, focus: null },
  z: { sticky: null, overlay: null, dialog: null, popover: null, toast: null },
});

export const lightTheme = createTheme(vars, {
  color: {
    bg: '#f8fafc',
    surface: '#ffffff',
    surfaceMuted: '#f1f5f9',
    surfaceHover: '#eef2f7',
    border: '#e2e8f0',
    borderStrong: '#cbd5e1',
    text: '#0f172a',
    textMuted: '#475569',
    textSubtle: '#5f6b7d',
    primary: '#4f46e5',
    primaryHover: '#4338ca',
    primaryActive: '#3730a3',
    primarySoft: '#eef2ff',
    primarySoftText: '#3730a3',
    onPrimary: '#ffffff',
    danger: '#dc2626',
    dangerHover: '#b91c1c',
    dangerSoft: '#fef2f2',
    onDanger: '#ffffff',
    success: '#15803d',
    successSoft: '#dcfce7',
    warning: '#a16207',
    warningSoft: '#fef9c3',
    focusRing: 'rgba(79, 70, 229, 0.45)',
    overlay: 'rgba(15, 23, 42, 0.5)',
    sidebar: '#ffffff',
    sidebarText: '#1e293b',
    sidebarMuted: '#475569',
    sidebarHover: '#f1f5f9',
    sidebarActive: '#eef2ff',
  },
  space: {
    '0': '0',
    '1': '0.25rem',
    '2': '0.5rem',
    '3': '0.75rem',
    '4': '1rem',
    '5': '1.25rem',
    '6': '1.5rem',
    '8': '2rem',
    '10': '2.5rem',
    '12': '3rem',
    '16': '4rem',
    '20': '5rem',
  },
  fontSize: {
    xs: '0.75rem',
    sm: '0.875rem',
    md: '1rem',
    lg: '1.125rem',
    xl: '1.25rem',
    '2xl': '1.5rem',
    '3xl': '1.875rem',
    '4xl': '2.25rem',
    '5xl': 'clamp(2.25rem, 5vw + 1rem, 3.75rem)',
  },
  lineHeight: { tight: '1.15', snug: '1.35', normal: '1.55' },
  fontWeight: { regular: '400', medium: '500', semibold: '600', bold: '700' },
  font: {
    body: 'ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif',
    mono: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace',
  },
  radius: { sm: '0.375rem', md: '0.5rem', lg: '0.75rem', xl: '1rem', full: '9999px' },
  shadow: {
    xs: '0 1px 2px rgba(15, 23, 42, 0.05)',
    sm: '0 1px 3px rgba(15, 23, 42, 0.08), 0 1px 2px rgba(15, 23, 42, 0.04)',
    md: '0 4px 12px -2px rgba(15, 23, 42, 0.08), 0 2px 4px -2px rgba(15, 23, 42, 0.05)',
    lg: '0 12px 32px -8px rgba(15, 23, 42, 0.16), 0 4px 8px -4px rgba(15, 23, 42, 0.06)',
    xl: '0 24px 64px -12px rgba(15, 23, 42, 0.28)',
    focus: '0 0 0 3px rgba(79, 70, 229, 0.45)',
  },
  z: { sticky: '10', overlay: '40', dialog: '50', popover: '60', toast: '70' },
});

/** Visually hidden but read by assistive technology. */
export const srOnly = {
  position: 'absolute',
  width: 1,
  height: 1,
  padding: 0,
  margin: -1,
  overflow: 'hidden',
  clip: 'rect(0, 0, 0, 0)',
  whiteSpace: 'nowrap',
  border: 0,
} as const;

// --- global reset (modern-normalize flavoured, trimmed) ---
globalStyle('*, *::before, *::after', { boxSizing: 'border-box', margin: 0, padding: 0, borderWidth: 0, borderStyle: 'solid' });
globalStyle('html', {
  fontFamily: vars.font.body,
  lineHeight: vars.lineHeight.normal,
  color: vars.color.text,
  background: vars.color.bg,
  WebkitTextSizeAdjust: '100%',
  textSizeAdjust: '100%',
  WebkitFontSmoothing: 'antialiased',
  MozOsxFontSmoothing: 'grayscale',
  scrollBehavior: 'smooth',
  tabSize: 4,
});
globalStyle('body', { minHeight: '100vh', fontSize: vars.fontSize.md });
globalStyle('img, svg, video, canvas', { display: 'block', maxWidth: '100%' });
globalStyle('svg', { flexShrink: 0 });
globalStyle('input, button, textarea, select', { font: 'inherit', color: 'inherit', letterSpacing: 'inherit' });
globalStyle('button', { background: 'none', cursor: 'pointer' });
globalStyle('button:disabled', { cursor: 'not-allowed' });
globalStyle('a', { color: 'inherit', textDecoration: 'none' });
globalStyle('h1, h2, h3, h4, h5, h6', {
  lineHeight: vars.lineHeight.tight,
  fontWeight: vars.fontWeight.semibold,
  textWrap: 'balance',
});
globalStyle('p', { textWrap: 'pretty' });
globalStyle('ul, ol', { listStyle: 'none' });
globalStyle(':focus-visible', { outline: `2px solid ${vars.color.primary}`, outlineOffset: 2 });
globalStyle('::selection', { background: vars.color.primarySoft, color: vars.color.primarySoftText });
globalStyle('#root', { isolation: 'isolate', minHeight: '100vh' });
globalStyle('*, *::before, *::after', {
  '@media': {
    '(prefers-reduced-motion: reduce)': {
      animationDuration: '0.01ms !important',
      animationIterationCount: '1 !important',
      transitionDuration: '0.01ms !important',
      scrollBehavior: 'auto !important' as 'auto',
    },
  },
});
