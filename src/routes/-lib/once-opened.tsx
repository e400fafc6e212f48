import { useSelector } from '@xstate/react';
import { type ReactNode, Suspense, useRef } from 'react';
import type { AnyActorRef } from 'xstate';

/**
 * Renders its children (a dialog, usually loaded with `lazyNamed`) from the first time `actor` carries
 * the `open` tag, and keeps them mounted after, so closing animates and hands focus back as usual while a
 * screen whose dialogs are never opened neither loads nor renders them.
 */
export function OnceOpened({ actor, children }: { actor: AnyActorRef; children: ReactNode }) {
  const open = useSelector(actor, (snap) => (snap as { hasTag(tag: string): boolean }).hasTag('open'));
  const opened = useRef(false);
  if (open) opened.current = true;
  return opened.current ? <Suspense fallback={null}>{children}</Suspense> : null;
}
