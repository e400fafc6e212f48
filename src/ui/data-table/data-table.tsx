/**
 * DataTable: the one table of the dashboard (agents, phone numbers, call history), on
 * @tanstack/react-table with the server doing the paging, sorting and searching (the specification
 * and 9). The table is controlled by its URL state (`TableQuery`) and shows what `useListQuery`
 * loads through the query cache.
 *
 * Usage (a route; see src/routes/dashboard/index.tsx for the agents page):
 *
 *   const SORT_FIELDS = ['phone', 'provider'] as const;
 *   export const Route = createFileRoute('/dashboard/phone-numbers')({
 *     validateSearch: tableSearchSchema({ sortFields: SORT_FIELDS }),
 *     search: { middlewares: [stripSearchParams(TABLE_QUERY_DEFAULTS)] },
 *     component: Page,
 *   });
 *
 *   const columns: ColumnDef<PhoneNumber, any>[] = [
 *     { accessorKey: 'phone', header: 'Phone Number' },              // id 'phone' = the sort field
 *     { accessorKey: 'provider', header: 'Provider' },
 *     { id: 'actions', header: 'Actions', enableSorting: false, enableHiding: false,
 *       meta: { align: 'end' }, cell: ({ row }) => <RowActions label={`Actions for ${row.original.phone}`}>...</RowActions> },
 *   ];
 *
 *   function Page() {
 *     const query = Route.useSearch();
 *     const navigate = Route.useNavigate();
 *     const data = useListQuery({ query, resource: 'numbers', load: (q) => numbers.list(q).then(toListPage) });
 *     return (
 *       <DataTable
 *         label="Phone numbers" columns={columns} data={data} getRowId={(n) => n._id}
 *         query={query} onQueryChange={(patch, o) => navigate({ search: (prev) => ({ ...prev, ...patch }), replace: o?.replace })}
 *         sortFields={SORT_FIELDS} empty={<EmptyState ... />}
 *       />
 *     );
 *   }
 *
 * What it does:
 * - Search box (typing is debounced 300 ms, Enter searches at once; a new search starts at page 1).
 * - 'Select Columns' menu: toggles the columns that can hide (`enableHiding: false` keeps one); with
 *   `columnsKey` the choice is remembered in localStorage. A screen that keeps the layout itself (Call
 *   History's 'Customize Field', per account) passes `columnVisibility` + `onColumnVisibilityChange`
 *   and `columnOrder` instead.
 * - Headers of sortable columns are buttons: a click sorts by that column (ascending, descending,
 *   unsorted), Shift+click adds it as a further sort key. Sorted headers carry `aria-sort` and show
 *   the direction (and the key's rank when several keys sort). Column ids are the server's sort fields
 *   and only `sortFields` are offered.
 * - Rows per page 5, 10, 20, 30, 40, 50 (changing it returns to the first page); Previous / Next
 *   (disabled at the ends); 'Showing x-y of N records' and 'Page n of m'.
 * - States: skeleton rows on the first load; afterwards the previous page stays (dimmed, with a bar)
 *   while the next loads; an error shows its message and 'Retry'; no rows at all shows `empty`; a
 *   search without matches says so with 'Clear search'. A page past the end (rows deleted meanwhile)
 *   moves to the last page.
 */
import {
  type ColumnDef,
  flexRender,
  functionalUpdate,
  getCoreRowModel,
  type PaginationState,
  type RowData,
  type SortingState,
  useReactTable,
  type VisibilityState,
} from '@tanstack/react-table';
import { type ReactNode, useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { Button } from '../button/button';
import { TABLE_DEBOUNCE_MS, TABLE_FIRST_PAGE_INDEX, TABLE_PAGE_SIZE_OPTIONS } from '../constants';
import { cx } from '../cx';
import { ChevronDownIcon, ChevronLeftIcon, ChevronRightIcon, ChevronUpIcon, Icon, MoreIcon, SearchIcon } from '../icons';
import { Menu, MenuItemCheckbox } from '../menu/menu';
import { Select } from '../select/select';
import { visuallyHidden } from '../shared.css';
import { TextField } from '../text-field/text-field';
import * as s from './data-table.css';
import { formatSort, pageCount, parseSort, shownRange, type TableQuery } from './table-query';

declare module '@tanstack/react-table' {
  interface ColumnMeta<TData extends RowData, TValue> {
    /** name in the 'Select Columns' menu (default: the header, when it is a string) */
    label?: string;
    /** 'end' right-aligns the header and cells (actions, amounts) */
    align?: 'start' | 'end';
  }
}

/** What a DataTable shows: the rows of the current page and how the load is going. */
export interface TableData<Row> {
  rows: readonly Row[];
  /** rows over all pages (the server's `total`) */
  total: number;
  /** a page has arrived at least once (before that the table shows skeleton rows) */
  loaded: boolean;
  /** a page is on its way (the previous rows stay visible meanwhile) */
  loading: boolean;
  /** why the last load failed */
  error: string | undefined;
  /** asks the server again for the current page */
  retry: () => void;
}

export interface DataTableProps<Row> {
  /** Names the table for assistive technology, e.g. 'Agents'. */
  label: string;
  // biome-ignore lint/suspicious/noExplicitAny: column value types differ per column (TanStack's own idiom)
  columns: ColumnDef<Row, any>[];
  /** rows, total and load state (a route's `useListQuery`, src/routes/-lib) */
  data: TableData<Row>;
  getRowId: (row: Row) => string;
  /** the table's URL state */
  query: TableQuery;
  /** Called with the params to change; `replace` for corrections that should not add a history entry. */
  onQueryChange: (patch: Partial<TableQuery>, options?: { replace?: boolean }) => void;
  /** the server's sort whitelist: only these columns sort */
  sortFields: readonly string[];
  /** default `Search ${label}` */
  searchLabel?: string;
  searchPlaceholder?: string;
  /** shown instead of the table when there are no rows at all (and no search) */
  empty?: ReactNode;
  /** remembers hidden columns in localStorage under this key */
  columnsKey?: string;
  /**
   * Controlled column visibility (column id -> shown), for screens that keep it themselves (e.g. per
   * user, with an order): 'Select Columns' then reports through `onColumnVisibilityChange`.
   */
  columnVisibility?: VisibilityState;
  onColumnVisibilityChange?: (visibility: VisibilityState) => void;
  /** the columns' order by id (ids left out follow in their definition order) */
  columnOrder?: readonly string[];
  /** extra controls at the right of the toolbar */
  toolbar?: ReactNode;
}

/** The remembered column visibility, keeping only boolean entries of columns that may hide. */
// biome-ignore lint/suspicious/noExplicitAny: see DataTableProps.columns
function readHidden(key: string | undefined, columns: ColumnDef<any, any>[]): VisibilityState {
  if (!key) return {};
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(key) ?? '{}');
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    const hideable = new Set(
      columns
        .filter((c) => c.enableHiding !== false)
        .map((c) => c.id ?? ('accessorKey' in c ? String(c.accessorKey) : undefined)),
    );
    return Object.fromEntries(Object.entries(parsed).filter(([id, shown]) => hideable.has(id) && typeof shown === 'boolean'));
  } catch {
    return {};
  }
}

const SKELETON_ROWS_MAX = 10;
const SortNoneIcon = (p: { size?: number }) => <Icon d="m7 15 5 5 5-5M7 9l5-5 5 5" {...p} />;

export function DataTable<Row>({
  label,
  columns,
  data,
  getRowId,
  query,
  onQueryChange,
  sortFields,
  searchLabel,
  searchPlaceholder,
  empty,
  columnsKey,
  columnVisibility: controlledVisibility,
  onColumnVisibilityChange,
  columnOrder,
  toolbar,
}: DataTableProps<Row>) {
  const captionId = useId();
  const sorting: SortingState = useMemo(() => parseSort(query.sort, sortFields), [query.sort, sortFields]);
  const pagination: PaginationState = { pageIndex: query.page, pageSize: query.size };
  const [ownVisibility, setColumnVisibility] = useState<VisibilityState>(() => readHidden(columnsKey, columns));
  const columnVisibility = controlledVisibility ?? ownVisibility;

  const table = useReactTable<Row>({
    data: data.rows as Row[],
    columns,
    getRowId: (row) => getRowId(row),
    getCoreRowModel: getCoreRowModel(),
    manualPagination: true,
    manualSorting: true,
    manualFiltering: true,
    rowCount: data.total,
    enableMultiSort: true,
    isMultiSortEvent: (e) => (e as { shiftKey?: boolean }).shiftKey === true,
    sortDescFirst: false,
    state: { sorting, pagination, columnVisibility, columnOrder: columnOrder as string[] | undefined },
    onSortingChange: (updater) => {
      onQueryChange({ sort: formatSort(functionalUpdate(updater, sorting)), page: TABLE_FIRST_PAGE_INDEX });
    },
    onPaginationChange: (updater) => {
      const next = functionalUpdate(updater, pagination);
      onQueryChange(
        next.pageSize !== query.size ? { size: next.pageSize, page: TABLE_FIRST_PAGE_INDEX } : { page: next.pageIndex },
      );
    },
    onColumnVisibilityChange: (updater) => {
      if (controlledVisibility) {
        onColumnVisibilityChange?.(functionalUpdate(updater, controlledVisibility));
        return;
      }
      setColumnVisibility((prev) => {
        const next = functionalUpdate(updater, prev);
        if (columnsKey)
          try {
            localStorage.setItem(columnsKey, JSON.stringify(next));
          } catch {
            // storage unavailable: the choice lasts for this visit
          }
        return next;
      });
    },
  });

  // a page past the end (rows deleted meanwhile, or a hand-edited URL): move to the last page
  const lastPage = pageCount(data.total, query.size) - 1;
  const pastTheEnd = data.loaded && !data.loading && !data.error && data.rows.length === 0 && query.page > lastPage;
  useEffect(() => {
    if (pastTheEnd) onQueryChange({ page: lastPage }, { replace: true });
  }, [pastTheEnd, lastPage, onQueryChange]);

  const visibleColumns = table.getVisibleLeafColumns();
  const colSpan = Math.max(1, visibleColumns.length);
  const noRowsAtAll = data.loaded && !data.loading && !data.error && data.total === 0 && query.search === '';
  const [first, last] = shownRange(query.page, query.size, data.rows.length);
  const hideable = table.getAllLeafColumns().filter((c) => c.getCanHide());

  let body: ReactNode;
  if (data.error) {
    body = (
      <tr>
        <td colSpan={colSpan} className={s.td}>
          <div role="alert" className={s.message}>
            <p className={s.errorText}>{data.error}</p>
            <Button variant="secondary" onClick={data.retry}>
              Retry
            </Button>
          </div>
        </td>
      </tr>
    );
  } else if (!data.loaded) {
    body = Array.from({ length: Math.min(query.size, SKELETON_ROWS_MAX) }, (_, i) => (
      <tr key={i}>
        {visibleColumns.map((c) => (
          <td key={c.id} className={s.td}>
            <span className={s.skeleton} aria-hidden="true" />
          </td>
        ))}
      </tr>
    ));
  } else if (data.rows.length === 0) {
    body = (
      <tr>
        <td colSpan={colSpan} className={s.td}>
          <div className={s.message}>
            {query.search ? (
              <>
                <p className={s.messageTitle}>No results for “{query.search}”</p>
                <Button variant="secondary" onClick={() => onQueryChange({ search: '', page: TABLE_FIRST_PAGE_INDEX })}>
                  Clear search
                </Button>
              </>
            ) : (
              <p className={s.messageTitle}>{data.loading ? 'Loading…' : 'Nothing on this page'}</p>
            )}
          </div>
        </td>
      </tr>
    );
  } else {
    body = table.getRowModel().rows.map((row) => (
      <tr key={row.id} className={s.row}>
        {row.getVisibleCells().map((cell) => (
          <td key={cell.id} className={cx(s.td, cell.column.columnDef.meta?.align === 'end' && s.alignEnd)}>
            {flexRender(cell.column.columnDef.cell, cell.getContext())}
          </td>
        ))}
      </tr>
    ));
  }

  return (
    <div className={s.root}>
      <div className={s.toolbar} hidden={noRowsAtAll && !!empty}>
        <SearchBox
          label={searchLabel ?? `Search ${label.toLowerCase()}`}
          placeholder={searchPlaceholder}
          value={query.search}
          onCommit={(search) => onQueryChange({ search, page: TABLE_FIRST_PAGE_INDEX })}
        />
        <div className={s.toolbarEnd}>
          {toolbar}
          {hideable.length > 0 ? (
            <Menu label="Select Columns" buttonVariant="secondary">
              {hideable.map((c) => (
                <MenuItemCheckbox
                  key={c.id}
                  name="columns"
                  value={c.id}
                  checked={c.getIsVisible()}
                  hideOnClick={false}
                  // keep at least one column that carries data
                  disabled={c.getIsVisible() && hideable.filter((h) => h.getIsVisible()).length === 1}
                  onChange={() => c.toggleVisibility()}
                >
                  {columnLabel(c.columnDef)}
                </MenuItemCheckbox>
              ))}
            </Menu>
          ) : null}
        </div>
      </div>

      {noRowsAtAll && empty ? (
        empty
      ) : (
        <>
          <div className={s.panel}>
            {data.loading && data.loaded ? <div className={s.progress} aria-hidden="true" /> : null}
            <div className={s.scroller}>
              <table className={s.table} aria-label={label} aria-describedby={captionId} aria-busy={data.loading}>
                <thead>
                  {table.getHeaderGroups().map((group) => (
                    <tr key={group.id}>
                      {group.headers.map((header) => {
                        const column = header.column;
                        const dir = column.getIsSorted();
                        const canSort = column.getCanSort() && sortFields.includes(column.id);
                        const content = header.isPlaceholder ? null : flexRender(column.columnDef.header, header.getContext());
                        return (
                          <th
                            key={header.id}
                            scope="col"
                            aria-sort={dir === 'asc' ? 'ascending' : dir === 'desc' ? 'descending' : canSort ? 'none' : undefined}
                            className={cx(s.th, canSort && s.thSortable, column.columnDef.meta?.align === 'end' && s.alignEnd)}
                          >
                            {canSort ? (
                              <button
                                type="button"
                                className={s.sortButton}
                                data-sorted={dir || undefined}
                                onClick={column.getToggleSortingHandler()}
                              >
                                {content}
                                <span className={s.sortIcon} aria-hidden="true">
                                  {dir === 'asc' ? (
                                    <ChevronUpIcon size={14} />
                                  ) : dir === 'desc' ? (
                                    <ChevronDownIcon size={14} />
                                  ) : (
                                    <SortNoneIcon size={14} />
                                  )}
                                </span>
                                {dir && sorting.length > 1 ? (
                                  <span className={s.sortRank} aria-hidden="true">
                                    {column.getSortIndex() + 1}
                                  </span>
                                ) : null}
                              </button>
                            ) : (
                              content
                            )}
                          </th>
                        );
                      })}
                    </tr>
                  ))}
                </thead>
                <tbody className={cx(data.loading && data.loaded && s.stale)}>{body}</tbody>
              </table>
            </div>
          </div>
          <p id={captionId} className={visuallyHidden}>
            {sortDescription(sorting, table)} Activate a column header to sort by it; Shift and activate to add it as a further
            sort.
          </p>

          <div className={s.footer}>
            <p role="status">{data.loaded ? `Showing ${first}-${last} of ${data.total} records` : 'Loading records…'}</p>
            <div className={s.pager}>
              <Select
                label="Rows per page"
                className={s.sizeSelect}
                value={String(query.size)}
                onChange={(value) => table.setPageSize(Number(value))}
                options={TABLE_PAGE_SIZE_OPTIONS.map((n) => ({ value: String(n), label: String(n) }))}
              />
              <span className={s.pageLabel}>
                Page {query.page + 1} of {pageCount(data.total, query.size)}
              </span>
              <span className={s.steps}>
                <Button
                  variant="secondary"
                  size="sm"
                  aria-label="Previous page"
                  disabled={!table.getCanPreviousPage()}
                  onClick={() => table.previousPage()}
                >
                  <ChevronLeftIcon size={14} />
                  Previous
                </Button>
                <Button
                  variant="secondary"
                  size="sm"
                  aria-label="Next page"
                  disabled={!data.loaded || !table.getCanNextPage()}
                  onClick={() => table.nextPage()}
                >
                  Next
                  <ChevronRightIcon size={14} />
                </Button>
              </span>
            </div>
          </div>
        </>
      )}
    </div>
  );
}

// biome-ignore lint/suspicious/noExplicitAny: see DataTableProps.columns
function columnLabel(def: ColumnDef<any, any>): string {
  return def.meta?.label ?? (typeof def.header === 'string' ? def.header : (def.id ?? ''));
}

function sortDescription<Row>(sorting: SortingState, table: ReturnType<typeof useReactTable<Row>>): string {
  if (sorting.length === 0) return '';
  const parts = sorting.map((sort) => {
    const column = table.getColumn(sort.id);
    return `${column ? columnLabel(column.columnDef) : sort.id} ${sort.desc ? 'descending' : 'ascending'}`;
  });
  return `Sorted by ${parts.join(', then ')}.`;
}

interface SearchBoxProps {
  label: string;
  placeholder: string | undefined;
  /** the search in the URL */
  value: string;
  /** called 300 ms after typing stops (or on Enter) with the trimmed text */
  onCommit: (value: string) => void;
}

/** The table's search box: local text, committed to the URL after a pause; back/forward refill it. */
function SearchBox({ label, placeholder, value, onCommit }: SearchBoxProps) {
  const [text, setText] = useState(value);
  const committed = useRef(value);
  const commitRef = useRef(onCommit);
  commitRef.current = onCommit;

  // the URL changed by itself (back/forward, 'Clear search'): show it
  useEffect(() => {
    if (value !== committed.current) {
      committed.current = value;
      setText(value);
    }
  }, [value]);

  const commit = useCallback((next: string) => {
    if (next === committed.current) return;
    committed.current = next;
    commitRef.current(next);
  }, []);

  useEffect(() => {
    const next = text.trim();
    if (next === committed.current) return;
    const timer = setTimeout(() => commit(next), TABLE_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, commit]);

  return (
    <TextField
      type="search"
      label={label}
      hideLabel
      containerClassName={s.search}
      leading={<SearchIcon />}
      placeholder={placeholder}
      value={text}
      autoComplete="off"
      onChange={(e) => setText(e.currentTarget.value)}
      onKeyDown={(e) => {
        if (e.key === 'Enter') commit(text.trim());
      }}
    />
  );
}

export interface RowActionsProps {
  /** names the menu button, e.g. `Actions for ${agent.name}` */
  label: string;
  /** MenuItem elements */
  children: ReactNode;
}

/** The per-row actions menu: an icon button (reachable with Tab) that opens a keyboard-operable menu. */
export function RowActions({ label, children }: RowActionsProps) {
  return (
    <Menu label={<MoreIcon size={18} />} aria-label={label} buttonVariant="ghost" buttonSize="icon" chevron={false}>
      {children}
    </Menu>
  );
}
