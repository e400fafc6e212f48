import type { ReactNode } from 'react';
import { serverMessageOf } from '../../../api/errors';
import { Button } from '../../../ui/button/button';
import { AlertIcon } from '../../../ui/icons';
import { Spinner } from '../../../ui/spinner/spinner';
import * as s from './page.css';

/** A loading state: a labelled spinner (role=status) and its text. */
export function Loading({ label }: { label: string }) {
  return (
    <div className={s.stateBox}>
      <Spinner label={label} />
      <span aria-hidden="true">{label}</span>
    </div>
  );
}

/** A load failure: what failed (and the server's reason, if any) with 'Retry'. */
export function LoadError({ what, error, onRetry }: { what: string; error: unknown; onRetry: () => void }) {
  const reason = serverMessageOf(error) ?? (error instanceof Error ? error.message : undefined);
  return (
    <div className={s.stateBox} role="alert">
      <AlertIcon size={20} />
      <span>
        {what}
        {reason ? ` ${reason}` : ''}
      </span>
      <Button variant="secondary" onClick={onRetry}>
        Retry
      </Button>
    </div>
  );
}

/** Loading / error / content for one query: shows cached data while it reloads. */
export function QueryView<T>({
  query,
  loadingLabel,
  errorText,
  children,
}: {
  query: { data: T | undefined; error: unknown; loading: boolean; reload: () => void };
  loadingLabel: string;
  errorText: string;
  children: (data: T) => ReactNode;
}) {
  if (query.data !== undefined) return <>{children(query.data)}</>;
  if (query.error !== undefined && !query.loading)
    return <LoadError what={errorText} error={query.error} onRetry={query.reload} />;
  return <Loading label={loadingLabel} />;
}
