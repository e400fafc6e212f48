import { elementScroll, observeElementOffset, useVirtualizer } from '@tanstack/react-virtual';
import { type RefObject, useCallback, useMemo, useRef, useState } from 'react';
import { BATCH_MESSAGES, dynamicVariables } from '../../../../api/contract/batch';
import type { RecipientsSummary, RecipientsTable } from '../../../../recipients';
import { Badge } from '../../../../ui/badge/badge';
import { Checkbox } from '../../../../ui/checkbox/checkbox';
import { cx } from '../../../../ui/cx';
import { formatCount } from '../format';
import * as p from '../page.css';
import * as s from './batch.css';

const ROW_HEIGHT = 36;
/**
 * The virtualizer places blocks of this many rows, not single rows: it measures every item it holds
 * when the list appears, and 86,000 blocks cost a few milliseconds where 1.4 million rows cost tens.
 */
const BLOCK = 16;
/**
 * Browsers cap how tall an element may be (Chromium near 33.5 million px: 930,000 rows of 36 px). Past
 * this height the scroll range is scaled: the scrollbar spans at most this many pixels and a pixel of it
 * moves the list by `scale` pixels, while rows keep their height.
 */
const MAX_SCROLL_PX = 8_000_000;

/**
 * The rows of a list of `count` to draw now, by blocks of BLOCK rows, with the scroll range scaled down
 * to MAX_SCROLL_PX for very long lists. `top` is where the first row drawn goes in the scroller.
 */
function useRowWindow(count: number, scroller: RefObject<HTMLDivElement | null>) {
  const scale = useRef(1);
  const blocks = Math.ceil(count / BLOCK);
  // stable for a given count, so the blocks are measured once, not on every render
  const blockSize = useCallback((i: number) => (i === blocks - 1 ? count - i * BLOCK : BLOCK) * ROW_HEIGHT, [blocks, count]);
  const virtual = useVirtualizer({
    count: blocks,
    getScrollElement: () => scroller.current,
    estimateSize: blockSize,
    overscan: 1,
    observeElementOffset: (instance, cb) =>
      observeElementOffset(instance, (offset, scrolling) => cb(offset * scale.current, scrolling)),
    scrollToFn: (offset, options, instance) => elementScroll(offset / scale.current, options, instance),
  });
  const total = count * ROW_HEIGHT;
  const height = Math.min(total, MAX_SCROLL_PX);
  const view = virtual.scrollRect?.height ?? 0;
  scale.current = total > height && height > view ? (total - view) / (height - view) : 1;
  // where the list is minus where the scrollbar is: rows are drawn that much higher
  const shift = (virtual.scrollOffset ?? 0) * (1 - 1 / scale.current);
  const items = virtual.getVirtualItems();
  const first = (items[0]?.index ?? 0) * BLOCK;
  const last = Math.min(count, ((items.at(-1)?.index ?? -1) + 1) * BLOCK);
  return { height, top: Math.max(0, (items[0]?.start ?? 0) - shift), first, last };
}

/**
 * The recipients pane: counts of valid and invalid rows with their reasons, the dynamic variables the
 * file offers, and every row in a virtualised grid (only the rows in view are in the DOM, so a million
 * rows scroll like ten). 'Only rows with problems' narrows it to the rows that will not be called.
 */
export function RecipientsPane({
  summary,
  table,
  parsing,
}: {
  summary: RecipientsSummary | null;
  table: RecipientsTable | null;
  parsing: boolean;
}) {
  return (
    <section className={s.pane} aria-label="Recipients">
      {summary && table ? (
        <RecipientsGrid summary={summary} table={table} />
      ) : (
        <p className={s.empty}>{parsing ? 'Reading the recipients file…' : BATCH_MESSAGES.noRecipients}</p>
      )}
    </section>
  );
}

function RecipientsGrid({ summary, table }: { summary: RecipientsSummary; table: RecipientsTable }) {
  const [onlyProblems, setOnlyProblems] = useState(false);
  const problems = useMemo(() => (onlyProblems ? table.problems() : null), [onlyProblems, table]);
  const count = problems ? problems.length : table.size;
  const scroller = useRef<HTMLDivElement>(null);
  const { height, top, first, last } = useRowWindow(count, scroller);
  const slots = Array.from({ length: last - first }, (_, k) => first + k);
  const variables = dynamicVariables(summary);
  const others = summary.columns.map((c, i) => ({ name: c, i })).filter((c) => c.i !== summary.phoneIndex && c.name !== '');
  const template = `5rem minmax(9rem, 1fr) minmax(10rem, 1.2fr)${' minmax(6rem, 1fr)'.repeat(others.length)}`;
  const invalid = summary.invalid + summary.duplicates;

  return (
    <>
      <div className={s.paneHead}>
        <h3 className={p.sectionTitle}>Recipients</h3>
        <p className={s.counts} aria-live="polite">
          <Badge>{formatCount(summary.total)} rows</Badge>
          <Badge tone="green">{formatCount(summary.valid)} valid</Badge>
          <Badge tone={invalid ? 'red' : 'grey'}>{formatCount(invalid)} invalid</Badge>
        </p>
        {summary.reasons.length > 0 ? (
          <ul className={s.reasons} aria-label="Why rows will not be called">
            {summary.reasons.map((r) => (
              <li key={r.reason}>
                {r.reason}: {formatCount(r.count)}
              </li>
            ))}
          </ul>
        ) : null}
        <p className={p.muted}>
          {variables.length > 0
            ? `Dynamic variables for the agent: ${variables.join(', ')}`
            : 'No other columns: add columns to the file to give the agent dynamic variables.'}
        </p>
        {invalid > 0 ? (
          <Checkbox label="Only rows with problems" checked={onlyProblems} onCheckedChange={setOnlyProblems} />
        ) : null}
      </div>
      {/* Chromium makes a scrolling box keyboard-focusable by itself: no tabIndex needed */}
      <div className={s.scrollArea}>
        <div ref={scroller} className={s.scroller}>
          <table className={s.gridTable} aria-label="Recipient rows" aria-rowcount={count + 1}>
            <thead className={s.gridHead}>
              <tr aria-rowindex={1} className={s.headRow} style={{ gridTemplateColumns: template }}>
                <th scope="col">Row</th>
                <th scope="col">Phone number</th>
                <th scope="col">Status</th>
                {others.map((c) => (
                  <th scope="col" key={c.name} className={s.cell}>
                    {c.name}
                  </th>
                ))}
              </tr>
            </thead>
            {/*
            The rows in view flow after a padding as tall as the rows above them: one style changes per
            scroll. (Moving each <tr> with a transform costs Chromium a relayout of every row, 20-30 times
            slower.) Rows are keyed by slot, so a jump only changes their text.
          */}
            <tbody className={s.gridBody} style={{ height, paddingTop: top }}>
              {slots.map((position, slot) => {
                const index = problems ? (problems[position] ?? 0) : position;
                const row = table.at(index);
                if (!row) return null;
                return (
                  <tr
                    key={slot}
                    aria-rowindex={position + 2}
                    className={cx(s.bodyRow, row.reason && s.badRow)}
                    style={{ gridTemplateColumns: template }}
                  >
                    <td>{row.row}</td>
                    <td className={s.cell}>{row.phone || '—'}</td>
                    <td className={row.reason ? s.reasonCell : s.okCell}>{row.reason ?? 'Valid'}</td>
                    {others.map((c) => (
                      <td key={c.name} className={s.cell}>
                        {row.cells[c.i]}
                      </td>
                    ))}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      </div>
    </>
  );
}
