import { useVirtualizer } from '@tanstack/react-virtual';
import { useMemo, useRef, useState } from 'react';
import { BATCH_MESSAGES, dynamicVariables } from '../../../../api/contract/batch';
import type { RecipientsSummary, RecipientsTable } from '../../../../recipients';
import { Checkbox } from '../../../../ui/checkbox/checkbox';
import { cx } from '../../../../ui/cx';
import { formatCount } from '../format';
import * as p from '../panels.css';
import * as s from './batch.css';

const ROW_HEIGHT = 36;

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
  const virtual = useVirtualizer({
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const variables = dynamicVariables(summary);
  const others = summary.columns.map((c, i) => ({ name: c, i })).filter((c) => c.i !== summary.phoneIndex && c.name !== '');
  const template = `5rem minmax(9rem, 1fr) minmax(10rem, 1.2fr)${' minmax(6rem, 1fr)'.repeat(others.length)}`;
  const invalid = summary.invalid + summary.duplicates;

  return (
    <>
      <div className={s.paneHead}>
        <h3 className={p.sectionTitle}>Recipients</h3>
        <p className={s.counts} aria-live="polite">
          <span className={cx(p.badge, p.tone.grey)}>{formatCount(summary.total)} rows</span>
          <span className={cx(p.badge, p.tone.green)}>{formatCount(summary.valid)} valid</span>
          <span className={cx(p.badge, invalid ? p.tone.red : p.tone.grey)}>{formatCount(invalid)} invalid</span>
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
          <tbody style={{ height: virtual.getTotalSize(), position: 'relative', display: 'block' }}>
            {virtual.getVirtualItems().map((item) => {
              const index = problems ? (problems[item.index] ?? 0) : item.index;
              const row = table.at(index);
              if (!row) return null;
              return (
                <tr
                  key={item.key}
                  aria-rowindex={item.index + 2}
                  className={cx(s.bodyRow, row.reason && s.badRow)}
                  style={{ gridTemplateColumns: template, transform: `translateY(${item.start}px)` }}
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
    </>
  );
}
