import type { ReactNode } from 'react';
import * as t from '../../../../ui/panel/panel.css';
import { axisTicks } from '../chart-ticks';
import * as s from './call-analytics.css';

/**
 * Small per-day charts drawn as SVG (no chart package): stacked bars or lines over the days, each in a
 * <figure> named by its <figcaption>; the drawing is role="img" with a summary as its name, and every number
 * is in a table under 'Show as table'.
 */

export interface Series {
  key: string;
  label: string;
  colour: string;
  /** one per day; null: nothing measured that day (a gap in a line) */
  values: (number | null)[];
}

const W = 400;
const H = 170;
const LEFT = 60;
const BOTTOM = 20;
const TOP = 8;
const FONT = 12;

interface ChartProps {
  title: string;
  /** what the drawing shows, in words (its accessible name) */
  summary: string;
  days: readonly string[];
  series: readonly Series[];
  format: (n: number) => string;
  /** the smallest step `format` shows (see axisTicks): 1 unless given */
  unit?: number;
  kind: 'stacked-bars' | 'lines';
  /** the table's last column (e.g. the day's total), if any */
  total?: { label: string; values: readonly number[] };
}

export function DayChart({ title, summary, days, series, format, unit = 1, kind, total }: ChartProps) {
  const plotW = W - LEFT;
  const plotH = H - TOP - BOTTOM;
  const sums = days.map((_, i) =>
    kind === 'stacked-bars'
      ? series.reduce((sum, x) => sum + (x.values[i] ?? 0), 0)
      : Math.max(0, ...series.map((x) => x.values[i] ?? 0)),
  );
  const ticks = axisTicks(Math.max(0, ...sums), unit);
  const max = ticks[2];
  const y = (v: number) => TOP + plotH - (v / max) * plotH;
  const slot = plotW / Math.max(1, days.length);
  const x = (i: number) => LEFT + slot * i + slot / 2;
  const barW = Math.max(1, slot * 0.75);

  let drawing: ReactNode;
  if (kind === 'stacked-bars') {
    drawing = days.map((day, i) => {
      let base = 0;
      return (
        <g key={day}>
          {series.map((x2) => {
            const v = x2.values[i] ?? 0;
            if (v <= 0) return null;
            const top = y(base + v);
            const rect = <rect key={x2.key} x={x(i) - barW / 2} y={top} width={barW} height={y(base) - top} fill={x2.colour} />;
            base += v;
            return rect;
          })}
        </g>
      );
    });
  } else {
    drawing = series.map((x2) => {
      // a line per run of measured days
      const runs: string[][] = [];
      let run: string[] = [];
      x2.values.forEach((v, i) => {
        if (v === null) {
          if (run.length) runs.push(run);
          run = [];
        } else run.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
      });
      if (run.length) runs.push(run);
      return (
        <g key={x2.key} stroke={x2.colour} fill={x2.colour}>
          {runs.map((r, j) =>
            r.length === 1 ? (
              <circle key={j} cx={r[0]!.split(',')[0]} cy={r[0]!.split(',')[1]} r={3} stroke="none" />
            ) : (
              <polyline key={j} points={r.join(' ')} fill="none" strokeWidth={2} />
            ),
          )}
        </g>
      );
    });
  }

  return (
    <figure className={s.figure}>
      <figcaption className={s.caption}>{title}</figcaption>
      <svg className={s.chart} viewBox={`0 0 ${W} ${H}`} role="img" aria-label={summary}>
        {ticks.map((tick) => (
          <g key={tick}>
            <line x1={LEFT} x2={W} y1={y(tick)} y2={y(tick)} stroke="currentColor" strokeOpacity={0.2} />
            <text x={LEFT - 6} y={y(tick) + 4} fontSize={FONT} textAnchor="end" fill="currentColor">
              {format(tick)}
            </text>
          </g>
        ))}
        {drawing}
        {days.length > 0 ? (
          <>
            <text x={LEFT} y={H - 4} fontSize={FONT} fill="currentColor">
              {days[0]}
            </text>
            {days.length > 1 ? (
              <text x={W} y={H - 4} fontSize={FONT} textAnchor="end" fill="currentColor">
                {days[days.length - 1]}
              </text>
            ) : null}
          </>
        ) : null}
      </svg>
      {series.length > 1 ? (
        <div className={s.legend} aria-hidden="true">
          {series.map((x2) => (
            <span key={x2.key}>
              <span className={s.swatch} style={{ background: x2.colour }} />
              {x2.label}
            </span>
          ))}
        </div>
      ) : null}
      <details className={s.details}>
        <summary className={s.summary}>Show as table</summary>
        <div className={s.tableWrap}>
          <table className={t.table}>
            <caption className={s.tableCaption}>{title}</caption>
            <thead>
              <tr>
                <th scope="col" className={t.th}>
                  Day
                </th>
                {series.map((x2) => (
                  <th key={x2.key} scope="col" className={`${t.th} ${t.num}`}>
                    {x2.label}
                  </th>
                ))}
                {total ? (
                  <th scope="col" className={`${t.th} ${t.num}`}>
                    {total.label}
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {days.map((day, i) => (
                <tr key={day}>
                  <th scope="row" className={`${t.td} ${t.rowHeader}`}>
                    {day}
                  </th>
                  {series.map((x2) => {
                    const v = x2.values[i] ?? null;
                    return (
                      <td key={x2.key} className={`${t.td} ${t.num}`}>
                        {v === null ? '—' : format(v)}
                      </td>
                    );
                  })}
                  {total ? <td className={`${t.td} ${t.num}`}>{format(total.values[i] ?? 0)}</td> : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
