import { createFileRoute, redirect, useRouter } from '@tanstack/react-router';
import { useActorRef, useSelector } from '@xstate/react';
import { Suspense, useEffect, useState } from 'react';
import * as v from 'valibot';
import { authDialogMachine } from '../machines/authDialog.machine';
import { contactMachine } from '../machines/contact.machine';
import { forgotPasswordMachine } from '../machines/forgotPassword.machine';
import { isSignedIn, waitForHydration } from '../session';
import { Spinner } from '../ui/spinner/spinner';
import * as s from './-components/auth.css';
import { Features } from './-components/Features';
import { CallToAction, Footer } from './-components/Footer';
import { Hero } from './-components/Hero';
import { Pricing } from './-components/Pricing';
import { Testimonials } from './-components/Testimonials';
import { TopBar } from './-components/TopBar';
import { lazyNamed } from './-lib/lazy';
import { optionalParam } from './-lib/search';

// The dialogs load on first intent (hover/focus/click), keeping them out of the landing's first load.
const AuthDialog = lazyNamed(() => import('./-components/AuthDialog'), 'AuthDialog');
const ContactDialog = lazyNamed(() => import('./-components/ContactDialog'), 'ContactDialog');
const ForgotPasswordDialog = lazyNamed(() => import('./-components/ForgotPasswordDialog'), 'ForgotPasswordDialog');
const preloadDialogs = () => {
  void AuthDialog.preload();
  void ContactDialog.preload();
  void ForgotPasswordDialog.preload();
};

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

/** True from the first time `flag` is true: a dialog stays mounted after opening so it can animate out. */
function useLatch(flag: boolean): boolean {
  const [latched, setLatched] = useState(flag);
  if (flag && !latched) setLatched(true);
  return latched || flag;
}

function LandingPage() {
  const router = useRouter();
  const { session } = Route.useRouteContext();
  const search = Route.useSearch();
  const hydrated = useSelector(session, (snap) => snap.context.hydrated);

  const forgot = useActorRef(forgotPasswordMachine);
  const contact = useActorRef(contactMachine);
  const auth = useActorRef(
    authDialogMachine.provide({
      actions: {
        startSession: (_, r) =>
          session.send({
            type: 'session.login',
            accessToken: r.token,
            refreshToken: r.refresh_token,
            accountId: r.account._id,
            companyId: r.account.companyId,
          }),
        // Back to where the guard stopped the visitor, else the dashboard.
        enterDashboard: () => void router.navigate({ href: session.getSnapshot().context.previousUrl ?? '/dashboard' }),
        openForgotPassword: () => forgot.send({ type: 'dialog.open' }),
      },
    }),
  );
  const authMounted = useLatch(useSelector(auth, (snap) => snap.hasTag('open')));
  const contactMounted = useLatch(useSelector(contact, (snap) => snap.hasTag('open')));
  const forgotMounted = useLatch(useSelector(forgot, (snap) => snap.hasTag('open')));

  useEffect(() => {
    if (!search.login) return;
    auth.send({ type: 'dialog.open', tab: 'login' });
    void router.navigate({ to: '/', search: {}, replace: true });
  }, [search.login, auth, router]);

  if (!hydrated) return <LandingSpinner />;

  const openAuth = () => auth.send({ type: 'dialog.open' });
  const openContact = () => contact.send({ type: 'dialog.open' });
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
      <Suspense fallback={null}>
        {contactMounted ? <ContactDialog actor={contact} /> : null}
        {authMounted ? <AuthDialog actor={auth} /> : null}
        {forgotMounted ? <ForgotPasswordDialog actor={forgot} /> : null}
      </Suspense>
    </>
  );
}
