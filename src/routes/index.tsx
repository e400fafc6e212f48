import { createFileRoute, redirect, useRouter } from '@tanstack/react-router';
import { useSelector } from '@xstate/react';
import { Suspense, useEffect, useState } from 'react';
import * as v from 'valibot';
import { isSignedIn, waitForHydration } from '../session';
import { Spinner } from '../ui/spinner/spinner';
import * as s from './-components/auth.css';
import { Features } from './-components/Features';
import { CallToAction, Footer } from './-components/Footer';
import { Hero } from './-components/Hero';
import type { DialogRequest } from './-components/LandingDialogs';
import { Pricing } from './-components/Pricing';
import { Testimonials } from './-components/Testimonials';
import { TopBar } from './-components/TopBar';
import { lazyNamed } from './-lib/lazy';
import { optionalParam } from './-lib/search';

// The dialogs and their machines load on first intent (hover/focus/click), keeping them out of the
// landing's first load.
const LandingDialogs = lazyNamed(() => import('./-components/LandingDialogs'), 'LandingDialogs');
const preloadDialogs = () => void LandingDialogs.preload().catch(() => undefined);

/** `/?login=1` opens the login dialog (used after a password reset). */
const LandingSearch = v.object({
  login: optionalParam(v.union([v.literal(1), v.literal('1'), v.literal(true)])),
});

export const Route = createFileRoute('/')({
  validateSearch: LandingSearch,
  beforeLoad: async ({ context }) => {
    // Spec section 2: once the persisted session has loaded, a held token goes straight to the dashboard.
    if (isSignedIn(await waitForHydration(context.session))) throw redirect({ to: '/dashboard' });
  },
  pendingComponent: LandingSpinner,
  component: LandingPage,
});

function LandingSpinner() {
  return (
    <div className={s.page}>
      <Spinner size="lg" label="Loading your session" />
    </div>
  );
}

function LandingPage() {
  const router = useRouter();
  const { session } = Route.useRouteContext();
  const search = Route.useSearch();
  const hydrated = useSelector(session, (snap) => snap.context.hydrated);
  const [request, setRequest] = useState<DialogRequest | null>(null);
  const ask = (dialog: DialogRequest['dialog']) => setRequest((r) => ({ dialog, seq: (r?.seq ?? 0) + 1 }));

  useEffect(() => {
    if (!search.login) return;
    setRequest((r) => ({ dialog: 'auth', tab: 'login', seq: (r?.seq ?? 0) + 1 }));
    void router.navigate({ to: '/', search: {}, replace: true });
  }, [search.login, router]);

  if (!hydrated) return <LandingSpinner />;

  const openAuth = () => ask('auth');
  const openContact = () => ask('contact');
  // 'Watch Demo' has no demo video yet (spec: no behaviour); it takes the visitor to the features.
  const watchDemo = () => document.getElementById('features')?.scrollIntoView({ behavior: 'smooth' });
  return (
    <>
      <TopBar onContact={openContact} onLogin={openAuth} onIntent={preloadDialogs} />
      <main>
        <Hero onGetStarted={openAuth} onWatchDemo={watchDemo} onIntent={preloadDialogs} />
        <Features />
        <Testimonials />
        <Pricing />
        <CallToAction onGetStarted={openAuth} onIntent={preloadDialogs} />
      </main>
      <Footer />
      <Suspense fallback={null}>{request ? <LandingDialogs request={request} session={session} /> : null}</Suspense>
    </>
  );
}
