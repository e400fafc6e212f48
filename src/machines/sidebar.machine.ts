import { setup } from 'xstate';

/**
 * The dashboard sidebar: open by default (16rem wide), collapsible to an icon rail. The choice is
 * remembered for the browser through the `persist` action, which the view provides.
 */
export const sidebarMachine = setup({
  types: {
    input: {} as { open?: boolean },
    events: {} as { type: 'sidebar.toggle' } | { type: 'sidebar.open' } | { type: 'sidebar.collapse' },
  },
  actions: {
    persist: (_, _params: { open: boolean }) => {},
  },
  guards: {
    startsCollapsed: ({ context }) => !context.initiallyOpen,
  },
}).createMachine({
  id: 'sidebar',
  description: 'The collapsible navigation of the dashboard shell.',
  context: ({ input }) => ({ initiallyOpen: input.open ?? true }),
  initial: 'deciding',
  states: {
    deciding: {
      description: 'Starts open unless the user collapsed it last time.',
      always: [
        { guard: 'startsCollapsed', target: 'collapsed', description: 'Collapsed last time: starts as the icon rail.' },
        { target: 'open', description: 'Otherwise: starts open.' },
      ],
    },
    open: {
      description: 'Full width (16rem) with labels.',
      on: {
        'sidebar.toggle': {
          target: 'collapsed',
          description: 'The toggle button (or Ctrl/Cmd+B): collapse, and remember it.',
          actions: { type: 'persist', params: { open: false } },
        },
        'sidebar.collapse': {
          target: 'collapsed',
          description: 'Asked to collapse (a narrow screen): collapse, and remember it.',
          actions: { type: 'persist', params: { open: false } },
        },
      },
    },
    collapsed: {
      description: 'An icon rail; labels stay available to assistive technology.',
      on: {
        'sidebar.toggle': {
          target: 'open',
          description: 'The toggle button (or Ctrl/Cmd+B): open, and remember it.',
          actions: { type: 'persist', params: { open: true } },
        },
        'sidebar.open': {
          target: 'open',
          description: 'Asked to open: open, and remember it.',
          actions: { type: 'persist', params: { open: true } },
        },
      },
    },
  },
});
