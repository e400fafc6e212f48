import { useSelector } from '@xstate/react';
import { Button } from '../ui/button/button';
import { cx } from '../ui/cx';
import { XIcon } from '../ui/icons';
import * as s from '../ui/toast/toast.css';
import { dismissToast, toaster } from './toaster';

/**
 * Renders visible toasts in a polite live region. A toast is role=status; a destructive one is
 * role=alert (announced at once). Mounted once, in the root route.
 */
export function Toaster() {
  const toasts = useSelector(toaster, (snap) => snap.context.toasts);
  const visible = toasts.filter((t) => t.open);
  return (
    <section aria-label="Notifications" className={s.region}>
      {visible.map((t) => (
        <div
          key={t.id}
          role={t.variant === 'destructive' ? 'alert' : 'status'}
          aria-atomic="true"
          className={s.toast({ variant: t.variant })}
        >
          <div className={s.text}>
            {t.title ? <div className={s.title}>{t.title}</div> : null}
            {t.description ? <div className={s.description}>{t.description}</div> : null}
            {t.note ? <div className={s.description}>{t.note}</div> : null}
          </div>
          <Button
            variant="ghost"
            size="iconSm"
            aria-label="Dismiss notification"
            onClick={() => dismissToast(t.id)}
            className={cx(s.dismiss, t.variant === 'destructive' && s.dismissOnDestructive)}
          >
            <XIcon />
          </Button>
        </div>
      ))}
    </section>
  );
}
