import { type ComponentType, lazy } from 'react';
import { lazyModule } from '../../ui/lazy-control';

/**
 * `React.lazy` for a named export, plus `preload()` to start the download on intent (hover/focus),
 * so heavy, rarely used UI (dialogs) stays out of the first load. The download is `lazyModule`'s: shared
 * by every caller, and forgotten when it fails, so the next intent tries again.
 */
export function lazyNamed<K extends string, P extends object>(loader: () => Promise<{ [key in K]: ComponentType<P> }>, name: K) {
  const module = lazyModule(loader);
  const Component = lazy(() => module.load().then((m) => ({ default: m[name] })));
  return Object.assign(Component, { preload: () => module.load() });
}
