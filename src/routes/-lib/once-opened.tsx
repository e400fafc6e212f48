import { useSelector } from '@xstate/react';
import { type ReactNode, Suspense, useEffect, useState } from 'react';
import type { AnyActorRef } from 'xstate';
import { reportLoadFailure } from '../../ui/lazy-control';

/**
 * Renders its children (a dialog loaded with `lazyNamed`) from the first time `actor` carries the `open`
 * tag, once `load` (the dialog's `preload`) has its code, and keeps them mounted after, so closing animates
 * and hands focus back as usual, while a screen whose dialogs are never opened neither loads nor renders
 * them. When the code cannot be downloaded the user is told, and the actor gets `dialog.close` (the next
 * open tries again).
 */
export function OnceOpened({ actor, load, children }: { actor: AnyActorRef; load: () => Promise<unknown>; children: ReactNode }) {
  const open = useSelector(actor, (snap) => (snap as { hasTag(tag: string): boolean }).hasTag('open'));
  const [ready, setReady] = useState(false);
  useEffect(() => {
    if (!open || ready) return;
    let current = true;
    load().then(
      () => {
        if (current) setReady(true);
      },
      () => {
        if (!current) return;
        reportLoadFailure();
        actor.send({ type: 'dialog.close' });
      },
    );
    return () => {
      current = false;
    };
  }, [open, ready, load, actor]);
  return ready ? <Suspense fallback={null}>{children}</Suspense> : null;
}
