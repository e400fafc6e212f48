import { createFileRoute, stripSearchParams } from '@tanstack/react-router';
import { useEffect, useMemo, useRef, useState } from 'react';
import * as v from 'valibot';
import {
  PROVIDER_MESSAGES,
  PROVIDER_SEARCH_DEBOUNCE_MS,
  type ProviderListResponse,
  type ProviderStatusResponse,
} from '../../api/contract/provider';
import { PROVIDER_DEFAULT_PAGE_SIZE, PROVIDER_PAGE_SIZES } from '../../api/contract/provider-pages';
import { PROVIDER_STATUS_KEY, providerListKey, providers } from '../../api/providers';
import { toast } from '../../app/toaster';
import { Button } from '../../ui/button/button';
import { ChevronLeftIcon, ChevronRightIcon, PlugIcon, SearchIcon } from '../../ui/icons';
import { panel } from '../../ui/panel/panel.css';
import { Select } from '../../ui/select/select';
import { Spinner } from '../../ui/spinner/spinner';
import { TextField } from '../../ui/text-field/text-field';
import { useQuery } from '../-lib/useQuery';
import { EmptyState, PageHeader, shellStyles } from './-components/PageHeader';
import { ProviderCard } from './-components/providers/ProviderCard';
import * as s from './-components/providers/providers.css';
import { WebhooksSection } from './-components/providers/WebhooksSection';

/** page, per-page size and search live in the URL; anything hand-edited into nonsense falls back. */
const ProvidersSearchSchema = v.object({
  page: v.fallback(v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100_000)), 1), 1),
  limit: v.fallback(v.optional(v.picklist(PROVIDER_PAGE_SIZES), PROVIDER_DEFAULT_PAGE_SIZE), PROVIDER_DEFAULT_PAGE_SIZE),
  // a search of digits arrives as a number from the URL parser
  search: v.fallback(v.optional(v.pipe(v.union([v.string(), v.number()]), v.transform(String), v.maxLength(100)), ''), ''),
});

const defaults: v.InferOutput<typeof ProvidersSearchSchema> = { page: 1, limit: PROVIDER_DEFAULT_PAGE_SIZE, search: '' };

export const Route = createFileRoute('/dashboard/providers')({
  validateSearch: v.fallback(ProvidersSearchSchema, defaults),
  search: { middlewares: [stripSearchParams(defaults)] },
  component: ProvidersPage,
});

const failureToast = (description: string) => () => toast({ title: 'Error', description, variant: 'destructive' });

function ProvidersPage() {
  const { page, limit, search } = Route.useSearch();
  const navigate = Route.useNavigate();
  const query = useMemo(() => ({ page, limit, search }), [page, limit, search]);
  const list = useQuery<ProviderListResponse>(providerListKey(query), () => providers.list(query, { notify: false }), {
    onError: failureToast(PROVIDER_MESSAGES.listLoadFailedToast),
    keepPrevious: true,
  });
  const status = useQuery<ProviderStatusResponse>(PROVIDER_STATUS_KEY, () => providers.status({ notify: false }), {
    onError: failureToast(PROVIDER_MESSAGES.statusLoadFailed),
    keepPrevious: true,
  });
  const connected = useMemo(() => new Map(status.data?.data.map((p) => [p.name, p.connected])), [status.data]);

  const total = list.data?.total ?? 0;
  const pageCount = Math.max(1, Math.ceil(total / limit));
  // a page beyond the last (a hand-edited URL, or the last item of a page disappeared): go to the last page
  useEffect(() => {
    if (list.data && !list.loading && page > pageCount)
      void navigate({ search: (prev) => ({ ...prev, page: pageCount }), replace: true });
  }, [list.data, list.loading, page, pageCount, navigate]);

  return (
    <>
      <PageHeader title="Providers" description="Add keys securely to connect your own Providers within your application." />
      <div className={s.toolbar}>
        <SearchBox
          value={search}
          onSearch={(next) => void navigate({ search: (prev) => ({ ...prev, search: next, page: 1 }), replace: true })}
        />
        {list.loading && list.data ? (
          <span className={s.busy}>
            <Spinner size="sm" label="Loading providers" />
          </span>
        ) : null}
      </div>

      {list.error ? (
        <div className={`${panel} ${shellStyles.empty}`}>
          <p role="alert">{PROVIDER_MESSAGES.listLoadFailedInline}</p>
          <Button variant="secondary" onClick={list.reload}>
            Retry
          </Button>
        </div>
      ) : !list.data ? (
        <div className={`${panel} ${shellStyles.empty}`}>
          <Spinner label="Loading providers" />
        </div>
      ) : list.data.providers.length === 0 && total === 0 ? (
        <EmptyState
          icon={PlugIcon}
          title="No providers found"
          text={search ? `No provider matches “${search}”.` : 'There are no providers to connect.'}
          action={
            search ? (
              <Button
                variant="secondary"
                onClick={() => void navigate({ search: (prev) => ({ ...prev, search: '', page: 1 }), replace: true })}
              >
                Clear search
              </Button>
            ) : null
          }
        />
      ) : (
        <>
          <ul className={s.grid} aria-label="Providers" aria-busy={list.loading}>
            {list.data.providers.map((p) => (
              <li key={p.name}>
                <ProviderCard name={p.name} label={p.label} connected={connected.get(p.name) ?? p.connected} />
              </li>
            ))}
          </ul>
          <Pagination
            page={Math.min(page, pageCount)}
            pageCount={pageCount}
            limit={limit}
            total={total}
            onPage={(next) => void navigate({ search: (prev) => ({ ...prev, page: next }) })}
            onLimit={(next) => void navigate({ search: (prev) => ({ ...prev, limit: next, page: 1 }) })}
          />
        </>
      )}
      <WebhooksSection />
    </>
  );
}

/** 'Search providers...': the URL follows 300 ms after the last keystroke (and the list goes back to page 1). */
function SearchBox({ value, onSearch }: { value: string; onSearch: (search: string) => void }) {
  const [draft, setDraft] = useState(value);
  const sent = useRef(value);
  const search = useRef(onSearch);
  search.current = onSearch;

  // the URL changed by itself (back button, 'Clear search'): show it
  useEffect(() => {
    if (value !== sent.current) {
      sent.current = value;
      setDraft(value);
    }
  }, [value]);

  useEffect(() => {
    const next = draft.trim();
    if (next === sent.current) return;
    const timer = setTimeout(() => {
      sent.current = next;
      search.current(next);
    }, PROVIDER_SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [draft]);

  return (
    <TextField
      containerClassName={s.search}
      label="Search providers..."
      hideLabel
      type="search"
      placeholder="Search providers..."
      leading={<SearchIcon />}
      value={draft}
      maxLength={100}
      onChange={(e) => setDraft(e.currentTarget.value)}
    />
  );
}

const PAGE_SIZE_OPTIONS = PROVIDER_PAGE_SIZES.map((n) => ({ value: String(n), label: String(n) }));

interface PaginationProps {
  page: number;
  pageCount: number;
  limit: number;
  total: number;
  onPage: (page: number) => void;
  onLimit: (limit: (typeof PROVIDER_PAGE_SIZES)[number]) => void;
}

function Pagination({ page, pageCount, limit, total, onPage, onLimit }: PaginationProps) {
  const first = total === 0 ? 0 : (page - 1) * limit + 1;
  const last = Math.min(total, page * limit);
  return (
    <nav className={s.pager} aria-label="Pagination">
      <div className={s.pagerGroup}>
        <Select
          className={s.perPage}
          label="Per page"
          value={String(limit)}
          options={PAGE_SIZE_OPTIONS}
          onChange={(next) => onLimit(Number(next) as (typeof PROVIDER_PAGE_SIZES)[number])}
        />
        <span className={s.pagerText}>
          {first}–{last} of {total}
        </span>
      </div>
      <div className={s.pagerGroup}>
        <span className={s.pagerText} aria-live="polite">
          Page {page} of {pageCount}
        </span>
        <Button variant="secondary" size="sm" disabled={page <= 1} onClick={() => onPage(page - 1)}>
          <ChevronLeftIcon />
          Previous
        </Button>
        <Button variant="secondary" size="sm" disabled={page >= pageCount} onClick={() => onPage(page + 1)}>
          Next
          <ChevronRightIcon />
        </Button>
      </div>
    </nav>
  );
}
