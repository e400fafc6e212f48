import { type ComponentType, lazy } from 'react';

/**
 * `React.lazy` for a named export, plus `preload()` to start the download on intent (hover/focus),
 * so heavy, rarely used UI (dialogs) stays out of the first load.
 */
export function lazyNamed<K extends string, P extends object>(loader: () => Promise<{ [key in K]: ComponentType<P> }>, name: K) {
  let pending: Promise<unknown> | undefined;
  const load = () => loader().then((m) => ({ default: m[name] }));
  const preload = () => {
    // a failed download is forgotten, so the next intent tries again
    pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
  const Component = lazy(() => preload() as ReturnType<typeof load>);
  return Object.assign(Component, { preload });
}
