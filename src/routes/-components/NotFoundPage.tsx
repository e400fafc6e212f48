import { Link, useLocation } from '@tanstack/react-router';
import { useEffect } from 'react';
import { reportNotFound } from '../../api/telemetry';
import { Button } from '../../ui/button/button';
import { ArrowLeftIcon } from '../../ui/icons';
import * as s from './status-page.css';

/** The 404 page for any path no route matches. Reports the path once per visit. */
export function NotFoundPage() {
  const pathname = useLocation({ select: (l) => l.href });
  useEffect(() => {
    reportNotFound(pathname);
  }, [pathname]);
  return (
    <main className={s.page}>
      <div className={s.card}>
        <p className={s.code} aria-hidden="true">
          404
        </p>
        <h1 className={s.title}>Oops! Page not found</h1>
        <p className={s.text}>
          We couldn't find <span className={s.path}>{pathname}</span>. It may have moved, or the link may be wrong.
        </p>
        <Button size="lg" render={<Link to="/" />}>
          <ArrowLeftIcon />
          Return to Home
        </Button>
      </div>
    </main>
  );
}
