import { createFileRoute } from '@tanstack/react-router';
import { useCallback } from 'react';
import * as v from 'valibot';
import { BATCH_PAGE_SIZE, batches, batchKeys } from '../../api/batches';
import { Button } from '../../ui/button/button';
import { LayersIcon, PlusIcon } from '../../ui/icons';
import { optionalParam } from '../-lib/search';
import { useQuery } from '../-lib/useQuery';
import { BatchDetail } from './-components/batch/BatchDetail';
import { BatchForm } from './-components/batch/BatchForm';
import { BatchList } from './-components/batch/BatchList';
import { EmptyState, PageHeader } from './-components/PageHeader';
import { QueryView } from './-components/QueryStates';

/** ?page=n (1-based) of the list, ?batch=<id> for the detail view, ?create=1 for the form. */
const BatchSearch = v.fallback(
  v.object({
    page: optionalParam(v.pipe(v.unknown(), v.transform(Number), v.integer(), v.minValue(1))),
    batch: optionalParam(v.pipe(v.string(), v.regex(/^[0-9a-f]{24}$/))),
    create: optionalParam(v.literal(1)),
  }),
  {},
);

export const Route = createFileRoute('/dashboard/batch-call')({
  validateSearch: BatchSearch,
  component: BatchCallPage,
});

function BatchCallPage() {
  const search = Route.useSearch();
  const navigate = Route.useNavigate();
  const page = search.page ?? 1;
  const list = useQuery(batchKeys.list(page, BATCH_PAGE_SIZE), () => batches.list(page, BATCH_PAGE_SIZE));
  const openForm = () => void navigate({ search: (prev) => ({ ...prev, create: 1 }) });
  const closeForm = useCallback(() => void navigate({ search: (prev) => ({ ...prev, create: undefined }) }), [navigate]);
  const saved = useCallback(
    () => void navigate({ search: (prev) => ({ ...prev, create: undefined, page: undefined }) }),
    [navigate],
  );
  const hasAny = (list.data?.data.total ?? 0) > 0;
  const createButton = (
    <Button onClick={openForm}>
      <PlusIcon />
      Create a batch call
    </Button>
  );

  return (
    <>
      <PageHeader
        title="Batch Call"
        description="Call a list of recipients with one of your numbers."
        actions={hasAny ? createButton : undefined}
      />
      <QueryView query={list} loadingLabel="Loading batch calls" errorText="Could not load your batch calls.">
        {({ data }) =>
          data.total === 0 ? (
            <EmptyState
              icon={LayersIcon}
              title="You don't have any batch call"
              text="Upload a CSV of recipients and call them now or at a time you choose."
              action={createButton}
            />
          ) : (
            <BatchList
              batches={data.batches}
              total={data.total}
              page={page}
              pageSize={BATCH_PAGE_SIZE}
              onPage={(next) => void navigate({ search: (prev) => ({ ...prev, page: next === 1 ? undefined : next }) })}
            />
          )
        }
      </QueryView>
      {search.create ? <BatchForm onClose={closeForm} onDone={saved} /> : null}
      {search.batch ? (
        <BatchDetail id={search.batch} onClose={() => void navigate({ search: (prev) => ({ ...prev, batch: undefined }) })} />
      ) : null}
    </>
  );
}
