import { type KeyboardEvent, useCallback, useState } from 'react';

/**
 * A module of UI code loaded on first need (the Ariakit-based menus and selects), shared by every
 * control that uses it: `load()` starts (or joins) the download, `current` is the module once loaded.
 * A failed download can be tried again.
 */
export interface LazyModule<M> {
  load(): Promise<M>;
  readonly current: M | undefined;
}

export function lazyModule<M>(loader: () => Promise<M>): LazyModule<M> {
  let loaded: M | undefined;
  let pending: Promise<M> | undefined;
  return {
    load() {
      if (!pending)
        pending = loader().then(
          (m) => {
            loaded = m;
            return m;
          },
          (error: unknown) => {
            pending = undefined;
            throw error;
          },
        );
      return pending;
    },
    get current() {
      return loaded;
    },
  };
}

let loadFailureReport: () => void = () => {};

/**
 * How the app says that code loaded on demand could not be downloaded: main.tsx binds a toast here
 * (src/app/toaster.ts `reportLoadFailure`), since src/ui imports nothing outside itself.
 */
export function bindLoadFailureReport(report: () => void): void {
  loadFailureReport = report;
}

/** Says that code loaded on demand (a menu, a select, a dialog) could not be downloaded. */
export function reportLoadFailure(): void {
  loadFailureReport();
}

/**
 * A control that shows a plain stand-in (a native button with the same look, name and ARIA state) until
 * the user reaches for it, then mounts the full component, open. A table of 50 rows with a menu each,
 * or a page with a page-size select, renders no menu or listbox machinery until one is used; the code
 * itself downloads on hover or focus (`preload`) and runs on the first click or arrow key (`activate`).
 */
/** How a stand-in was used: a click (or Enter/Space, which click) or an arrow key. */
export type Activation = 'click' | 'key';

export function useActivation<M>(module: LazyModule<M>) {
  const [activation, setActivation] = useState<Activation | undefined>();
  const preload = useCallback(() => {
    module.load().catch(() => {
      // tried again on activation
    });
  }, [module]);
  const activate = useCallback(
    (how: Activation = 'click') => {
      module.load().then(
        () => setActivation(how),
        // offline: the stand-in stays, says so, and the next click tries again
        reportLoadFailure,
      );
    },
    [module],
  );
  const impl = activation ? module.current : undefined;
  return { impl, activation, preload, activate };
}

/**
 * The stand-in button's handlers: hover and focus start the download; a click (Enter and Space click) or
 * an arrow key (as the full components open on them) mounts the full component.
 */
export function standInHandlers({ preload, activate }: Pick<ReturnType<typeof useActivation>, 'preload' | 'activate'>) {
  return {
    onPointerEnter: preload,
    onFocus: preload,
    onClick: () => activate('click'),
    onKeyDown: (e: KeyboardEvent) => {
      if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
      e.preventDefault();
      activate('key');
    },
  };
}
