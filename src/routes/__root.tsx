import { createRootRouteWithContext, Outlet } from '@tanstack/react-router';
import { Toaster } from '../app/Notifications';
import type { SessionActor } from '../session';
import { ErrorPage } from './-components/ErrorPage';
import { NotFoundPage } from './-components/NotFoundPage';
import { noSearch } from './-lib/search';

/**
 * What every route can read from `context`. Filled in src/main.tsx (and by <RouterProvider context>).
 * Add fields here as features need them; keep them optional until main.tsx provides them.
 */
export interface RouterContext {
  /** The session actor (tokens, hydration, single-flight refresh, logout); created in src/main.tsx. */
  session: SessionActor;
  /** Called by the dashboard's Logout button: asks the session to log out. */
  onLogout?: () => void | Promise<void>;
}

export const Route = createRootRouteWithContext<RouterContext>()({
  validateSearch: noSearch,
  component: RootLayout,
  notFoundComponent: NotFoundPage,
  errorComponent: ErrorPage,
});

function RootLayout() {
  return (
    <>
      <Outlet />
      <Toaster />
    </>
  );
}
