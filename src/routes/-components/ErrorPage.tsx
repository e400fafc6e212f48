import type { ErrorComponentProps } from '@tanstack/react-router';
import { Link } from '@tanstack/react-router';
import { Button } from '../../ui/button/button';
import { AlertIcon } from '../../ui/icons';
import * as s from './status-page.css';

/** Shown when a route throws while loading or rendering (spec: 'Unexpected Application Error!'). */
export function ErrorPage({ error, reset }: ErrorComponentProps) {
  const err = error instanceof Error ? error : new Error(String(error));
  return (
    <main className={s.page}>
      <div className={s.errorCard} role="alert">
        <span className={s.errorIcon}>
          <AlertIcon size={22} />
        </span>
        <h1 className={s.title}>Unexpected Application Error!</h1>
        <p className={s.message}>{err.message || String(error)}</p>
        {err.stack ? <pre className={s.stack}>{err.stack}</pre> : null}
        <div className={s.actions}>
          <Button onClick={() => reset()}>Try again</Button>
          <Button variant="secondary" render={<Link to="/" />}>
            Return to Home
          </Button>
        </div>
      </div>
    </main>
  );
}
