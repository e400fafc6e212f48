import { createRouter, RouterProvider } from '@tanstack/react-router';
import { StrictMode, startTransition } from 'react';
import { flushSync } from 'react-dom';
import { createRoot } from 'react-dom/client';
import { api } from './api/client';
import { reportLoadFailure, toast } from './app/toaster';
import { elementAt, pathOf } from './landing/boot-dom';
import type { RouterContext } from './routes/__root';
import { ErrorPage } from './routes/-components/ErrorPage';
import { NotFoundPage } from './routes/-components/NotFoundPage';
import { routeTree } from './routeTree.gen';
import { createSession } from './session';
import { bindLoadFailureReport } from './ui/lazy-control';
import { lightTheme } from './ui/theme.css';

document.documentElement.classList.add(lightTheme);

// The session first (it reads the persisted tokens), then the router that guards routes with it.
// The client and the session sit below the app layer: they toast through the app's toaster, bound here.
api.bindNotify(toast);
bindLoadFailureReport(reportLoadFailure);
const session = createSession({ client: api, notify: toast });
session.start();

const context: RouterContext = {
  session: session.actor,
  onLogout: () => session.actor.send({ type: 'session.logout' }),
};

export const router = createRouter({
  routeTree,
  context,
  defaultPreload: 'intent',
  defaultErrorComponent: ErrorPage,
  defaultNotFoundComponent: NotFoundPage,
  scrollRestoration: true,
});

// Session effects (refresh failure, logout, another tab signing out) navigate inside the app.
session.bindNavigate((href) => void router.navigate({ href }));

declare module '@tanstack/react-router' {
  interface Register {
    router: typeof router;
  }
}

export function App() {
  return <RouterProvider router={router} />;
}

const rootElement = document.getElementById('root');
if (!rootElement) throw new Error('Missing #root element');

/**
 * Resolves once the app has rendered (on a page without prerendered markup: once its render has started).
 * On a prerendered page (landing.html, see src/landing/boot.ts) the app replaces the static markup in one
 * synchronous commit, with the same DOM: no blank or spinner frame in between, and the focused element and
 * the scroll position are kept.
 */
export const mounted: Promise<void> = (async () => {
  const root = createRoot(rootElement);
  const app = (
    <StrictMode>
      <App />
    </StrictMode>
  );
  // The route (its code, and the data its loader waits for) loads before the first render, so the first
  // paint is the page itself. The render of a fresh page is a transition: React renders it in slices of a
  // few milliseconds, leaving the main thread free between them (no long task while the page builds).
  await router.load().catch(() => {
    // the router keeps the failure in its state and renders the route's error component
  });
  if (!rootElement.hasAttribute('data-prerendered')) {
    startTransition(() => root.render(app));
    return;
  }
  const focused = document.activeElement && pathOf(document.activeElement, rootElement);
  const { scrollX, scrollY } = window;
  flushSync(() => root.render(app));
  rootElement.removeAttribute('data-prerendered');
  if (focused) elementAt(rootElement, focused)?.focus({ preventScroll: true });
  if (window.scrollX !== scrollX || window.scrollY !== scrollY) window.scrollTo(scrollX, scrollY);
})();
