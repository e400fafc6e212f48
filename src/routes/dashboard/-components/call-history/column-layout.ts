import { useCallback, useState } from 'react';

/**
 * Which Call History columns a user sees, and in what order ('Customize Field', and 'Select Columns' of
 * the table), remembered per account in localStorage under `parley.callHistory.columns.<accountId>`.
 */
export interface ColumnLayout {
  /** every column id, in display order */
  order: string[];
  /** ids of the hidden columns (never all of them) */
  hidden: string[];
}

export const columnLayoutKey = (accountId: string | null | undefined) => `parley.callHistory.columns.${accountId || 'anonymous'}`;

export const defaultLayout = (ids: readonly string[]): ColumnLayout => ({ order: [...ids], hidden: [] });

/** A stored layout made valid for today's columns: unknown ids dropped, new ones appended, one column shown at least. */
export function sanitizeLayout(stored: unknown, ids: readonly string[]): ColumnLayout {
  if (!stored || typeof stored !== 'object') return defaultLayout(ids);
  const { order, hidden } = stored as Partial<Record<keyof ColumnLayout, unknown>>;
  const known = (list: unknown) =>
    Array.isArray(list) ? [...new Set(list.filter((id): id is string => typeof id === 'string' && ids.includes(id)))] : [];
  const ordered = known(order);
  const hiddenIds = known(hidden);
  return {
    order: [...ordered, ...ids.filter((id) => !ordered.includes(id))],
    hidden: hiddenIds.length >= ids.length ? [] : hiddenIds,
  };
}

function read(key: string, ids: readonly string[]): ColumnLayout {
  try {
    return sanitizeLayout(JSON.parse(localStorage.getItem(key) ?? 'null'), ids);
  } catch {
    return defaultLayout(ids);
  }
}

/** The account's layout and a setter that remembers it (a storage failure keeps it for this visit). */
export function useColumnLayout(key: string, ids: readonly string[]): [ColumnLayout, (next: ColumnLayout) => void] {
  const [state, setState] = useState(() => ({ key, layout: read(key, ids) }));
  const layout = state.key === key ? state.layout : read(key, ids);
  const save = useCallback(
    (next: ColumnLayout) => {
      const clean = sanitizeLayout(next, ids);
      setState({ key, layout: clean });
      try {
        localStorage.setItem(key, JSON.stringify(clean));
      } catch {
        // storage unavailable: the layout lasts for this visit
      }
    },
    [key, ids],
  );
  return [layout, save];
}
