/**
 * Build-time prerender of the landing page (scripts/prerender.mjs runs it after the client build, through
 * a Vite SSR build of this file): the real route tree on a memory history at `/`, with a signed-out
 * session that reads no storage, rendered to a string that becomes `#root` of dist/client/landing.html.
 * The server sends that file for `/`, so a visitor sees the page before any script runs; the app itself
 * starts on the first interaction (src/landing/boot.ts) and replaces the markup with the same DOM.
 */
import { createMemoryHistory, createRouter, RouterProvider } from '@tanstack/react-router';
import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import { routeTree } from '../routeTree.gen';
import { createSession } from '../session';
import { lightTheme } from '../ui/theme.css';

export async function renderLanding(): Promise<{ html: string; htmlClass: string }> {
  const session = createSession({ storage: undefined, locks: undefined, events: undefined, navigate: () => {} });
  session.start();
  const router = createRouter({
    routeTree,
    context: { session: session.actor },
    history: createMemoryHistory({ initialEntries: ['/'] }),
    isServer: true,
  });
  await router.load();
  const html = renderToString(
    <StrictMode>
      <RouterProvider router={router} />
    </StrictMode>,
  );
  session.actor.stop();
  return { html, htmlClass: lightTheme };
}
