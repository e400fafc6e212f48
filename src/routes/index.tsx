import { createFileRoute } from '@tanstack/react-router';
import { Suspense, useState } from 'react';
import { Features } from './-components/Features';
import { CallToAction, Footer } from './-components/Footer';
import { Hero } from './-components/Hero';
import { Pricing } from './-components/Pricing';
import { Testimonials } from './-components/Testimonials';
import { TopBar } from './-components/TopBar';
import { lazyNamed } from './-lib/lazy';
import { noSearch } from './-lib/search';

// The dialogs load on first intent (hover/focus/click), keeping them out of the landing's first load.
const AuthDialog = lazyNamed(() => import('./-components/AuthDialog'), 'AuthDialog');
const ContactDialog = lazyNamed(() => import('./-components/ContactDialog'), 'ContactDialog');
const preloadDialogs = () => {
  void AuthDialog.preload();
  void ContactDialog.preload();
};

export const Route = createFileRoute('/')({
  validateSearch: noSearch,
  component: LandingPage,
});

type OpenDialog = 'none' | 'contact' | 'auth';

function LandingPage() {
  // TODO(auth): the auth feature replaces this with its authDialog machine; Contact stays a simple flag.
  const [dialog, setDialog] = useState<OpenDialog>('none');
  // once opened, a dialog stays mounted so its closing animation can play
  const [mounted, setMounted] = useState<ReadonlySet<OpenDialog>>(new Set());
  const show = (d: OpenDialog) => {
    setMounted((m) => (m.has(d) ? m : new Set(m).add(d)));
    setDialog(d);
  };
  const close = () => setDialog('none');
  const openAuth = () => show('auth');
  const openContact = () => show('contact');
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
        {mounted.has('contact') ? <ContactDialog open={dialog === 'contact'} onClose={close} /> : null}
        {mounted.has('auth') ? <AuthDialog open={dialog === 'auth'} onClose={close} /> : null}
      </Suspense>
    </>
  );
}
