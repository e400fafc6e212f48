import { createFileRoute, Link, Outlet, redirect, useLocation } from '@tanstack/react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { account } from '../../api/account';
import { toast } from '../../app/toaster';
import { sidebarMachine } from '../../machines/sidebar.machine';
import { isSignedIn, waitForHydration } from '../../session';
import { Button } from '../../ui/button/button';
import { cx } from '../../ui/cx';
import { LogOutIcon, LogoMark, PanelLeftIcon } from '../../ui/icons';
import { visuallyHidden } from '../../ui/shared.css';
import { noSearch } from '../-lib/search';
import { NAV } from './-components/nav';
import * as s from './-components/shell.css';
import { UserMenu } from './-components/UserMenu';
import { spacer } from './-components/user-menu.css';

export const SIDEBAR_STORAGE_KEY = 'parley.sidebar.open';

export const Route = createFileRoute('/dashboard')({
  validateSearch: noSearch,
  beforeLoad: async ({ context, location, preload }) => {
    // The route guard: the dashboard needs a held token. Hydration is immediate.
    const session = await waitForHydration(context.session);
    if (isSignedIn(session)) return;
    if (!preload) {
      context.session.send({ type: 'url.remember', url: location.href });
      toast({ title: 'Unauthenticated', description: 'Please login to continue', variant: 'destructive' });
    }
    throw redirect({ to: '/' });
  },
  // Entering the dashboard, the account (the header's user menu) is asked for alongside the page's own
  // data, so the first paint already shows the user's name; a failure leaves the menu to ask again.
  loader: ({ cause }) => (cause === 'enter' ? account.me().catch(() => undefined) : undefined),
  component: DashboardLayout,
});

/**
 * On a narrow screen the open sidebar floats over the page: there it starts folded, and opening or folding
 * it is not remembered (the remembered choice is the wide screen's).
 */
const isNarrow = () => window.matchMedia(s.narrow).matches;

function readSidebarOpen(): boolean {
  if (isNarrow()) return false;
  try {
    return localStorage.getItem(SIDEBAR_STORAGE_KEY) !== 'false';
  } catch {
    return true;
  }
}

const persistedSidebar = sidebarMachine.provide({
  actions: {
    persist: (_, params: { open: boolean }) => {
      if (isNarrow()) return;
      try {
        localStorage.setItem(SIDEBAR_STORAGE_KEY, String(params.open));
      } catch {
        // storage may be unavailable (private mode); the sidebar still works for this visit
      }
    },
  },
});

/**
 * Label of the sidebar entry a path belongs to (the agent editor pages belong to Agents, a call's detail to
 * Call History).
 */
function sectionLabel(pathname: string): string {
  const path = pathname.replace(/\/+$/, '') || '/';
  const entry = NAV.find((n) => n.to === path) ?? NAV.find((n) => n.to !== '/dashboard' && path.startsWith(`${n.to}/`));
  return entry?.label ?? (path.startsWith('/dashboard/agents') ? 'Agents' : 'Dashboard');
}

function DashboardLayout() {
  const { onLogout } = Route.useRouteContext();
  const sidebar = useActorRef(persistedSidebar, { input: { open: readSidebarOpen() } });
  const open = useSelector(sidebar, (snap) => snap.matches('open'));
  const section = useLocation({ select: (l) => sectionLabel(l.pathname) });
  // on narrow screens the open sidebar covers the page: choosing an entry folds it away
  const collapseIfFloating = () => {
    if (isNarrow()) sidebar.send({ type: 'sidebar.collapse' });
  };

  return (
    <div className={s.shell}>
      <aside id="dashboard-sidebar" className={cx(s.sidebar, !open && s.collapsed)} aria-label="Sidebar">
        <div className={s.sidebarHead}>
          <Link to="/" className={s.brand}>
            <LogoMark />
            <span className={cx(!open && visuallyHidden)}>Parley</span>
          </Link>
        </div>
        <nav aria-label="Main" className={s.nav}>
          <p className={cx(s.navLabel, !open && visuallyHidden)} aria-hidden="true">
            Workspace
          </p>
          {NAV.map(({ label, to, icon: Icon, exact }) => (
            <Link
              key={to}
              to={to}
              activeOptions={{ exact: exact ?? false, includeSearch: false }}
              className={s.navItem}
              title={open ? undefined : label}
              onClick={collapseIfFloating}
            >
              <span className={s.navIcon}>
                <Icon size={18} />
              </span>
              <span className={cx(!open && visuallyHidden)}>{label}</span>
            </Link>
          ))}
        </nav>
        <div className={s.sidebarFoot}>
          <button type="button" className={s.logout} onClick={() => void onLogout?.()} title={open ? undefined : 'Logout'}>
            <span className={s.navIcon}>
              <LogOutIcon size={18} />
            </span>
            <span className={cx(!open && visuallyHidden)}>Logout</span>
          </button>
        </div>
      </aside>
      <div className={s.main}>
        <header className={s.topBar}>
          <Button
            variant="ghost"
            size="icon"
            aria-label="Toggle sidebar"
            aria-expanded={open}
            aria-controls="dashboard-sidebar"
            onClick={() => sidebar.send({ type: 'sidebar.toggle' })}
          >
            <PanelLeftIcon size={18} />
          </Button>
          <span className={s.divider} aria-hidden="true" />
          <span className={s.crumb}>{section}</span>
          <span className={spacer} />
          <UserMenu onLogout={() => void onLogout?.()} initial={Route.useLoaderData()} />
        </header>
        <main className={s.content}>
          <Outlet />
        </main>
      </div>
    </div>
  );
}
