/**
 * The landing page's only script (dist/client/landing.html, sent for `/`). The page itself is HTML
 * prerendered at build time (src/landing/prerender.tsx), so it paints before any script runs. The app
 * (src/main.tsx: React, the router, the session) starts:
 * - at once when the visitor holds a session (the app then goes to the dashboard) or the URL carries a
 *   query (`/?login=1`);
 * - otherwise on the first sign of intent: a pointer over or down on the page, a touch, a key or a focus.
 * A click on one of the page's buttons that lands before the app is up is held, then replayed on the
 * same button of the app's DOM (the app renders the same markup); focus and scroll are kept. Links work
 * without the app. Two seconds after the page has loaded, the app's files are fetched at idle (prefetch, not
 * run), so the first interaction usually finds them in the cache.
 */
import { heldAccessToken } from '../session/keys';
import { elementAt, pathOf } from './boot-dom';

/** How long after the page's load event the app's files are prefetched. */
const PREFETCH_DELAY_MS = 2000;

const INTENT_EVENTS = ['pointerover', 'pointerdown', 'touchstart', 'keydown', 'focusin'] as const;

const root = document.getElementById('root');

let started: Promise<void> | undefined;
let up = false;

function start(): Promise<void> {
  if (started) return started;
  for (const type of INTENT_EVENTS) document.removeEventListener(type, onIntent, true);
  started = import('../main')
    .then((app) => app.mounted)
    .then(
      () => {
        up = true;
        document.removeEventListener('click', holdClick, true);
      },
      (error: unknown) => {
        // the app could not be downloaded (offline): the static page stays, and the next intent tries again
        started = undefined;
        listenForIntent();
        throw error;
      },
    );
  return started;
}

/** A sign of intent starts the app (a failed download waits for the next sign). */
function onIntent() {
  start().catch(() => undefined);
}

function listenForIntent() {
  for (const type of INTENT_EVENTS) document.addEventListener(type, onIntent, { capture: true, passive: true });
}

/** A click on a button before the app is up: held, then replayed on the app's button. */
function holdClick(event: MouseEvent) {
  if (up || !root || !(event.target instanceof Element)) return;
  const button = event.target.closest('button');
  if (!button || !root.contains(button)) return;
  const path = pathOf(button, root);
  event.preventDefault();
  event.stopImmediatePropagation();
  start().then(
    () => {
      if (path) elementAt(root, path)?.click();
    },
    () => {
      // not replayed: the page is static until the app can be downloaded
    },
  );
}

function prefetchApp() {
  const files = document.querySelector('meta[name="parley-app"]')?.getAttribute('content')?.split(' ') ?? [];
  for (const href of files) {
    if (!href) continue;
    const link = document.createElement('link');
    link.rel = 'prefetch';
    link.href = href;
    link.as = href.endsWith('.css') ? 'style' : 'script';
    link.crossOrigin = '';
    document.head.append(link);
  }
}

if (root) {
  if (location.search || heldAccessToken()) onIntent();
  else {
    listenForIntent();
    document.addEventListener('click', holdClick, true);
    // the app's files are fetched a while after the page has loaded, so they never compete with the page
    // itself for the network, at idle, and not run
    const later = () =>
      setTimeout(() => ('requestIdleCallback' in window ? requestIdleCallback(prefetchApp) : prefetchApp()), PREFETCH_DELAY_MS);
    if (document.readyState === 'complete') later();
    else addEventListener('load', later, { once: true });
  }
}
