import { useId } from 'react';
import type { UsageResponse } from '../../../../api/contract/billing';
import { formatCount, formatMinutes, formatUsd, monthTitle } from '../format';
import * as s from './billing.css';

const W = 720;
const H = 240;
const PAD = { top: 16, right: 56, bottom: 28, left: 48 };

/** A tidy upper bound for an axis (1, 2, 5 x 10^n). */
function niceMax(n: number): number {
  if (n <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(n));
  return ([1, 2, 5, 10].find((k) => k * p >= n) ?? 10) * p;
}

/**
 * role="img" makes everything inside the SVG presentational: it is read as its title and summary.
 * Minutes (bars, left axis) and cost (line, right axis) per day of a month, as an SVG that reads as one
 * image with a title and a summary; the numbers themselves are in the table alternative beside it.
 */
export function UsageChart({ usage }: { usage: UsageResponse }) {
  const id = useId();
  const days = usage.days;
  const maxMin = niceMax(Math.max(...days.map((d) => d.minutes), 0));
  const maxCost = niceMax(Math.max(...days.map((d) => d.cost), 0));
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const step = innerW / Math.max(days.length, 1);
  const x = (i: number) => PAD.left + i * step;
  const yMin = (m: number) => PAD.top + innerH - (m / maxMin) * innerH;
  const yCost = (c: number) => PAD.top + innerH - (c / maxCost) * innerH;
  const busiest = days.reduce(
    (best, d) => (d.minutes > (best?.minutes ?? 0) ? d : best),
    undefined as (typeof days)[number] | undefined,
  );
  const line = days.map((d, i) => `${i === 0 ? 'M' : 'L'}${(x(i) + step / 2).toFixed(1)},${yCost(d.cost).toFixed(1)}`).join(' ');
  const summary =
    `${formatMinutes(usage.totals.minutes)} and ${formatUsd(usage.totals.cost)} over ${days.length} days` +
    (busiest ? `; the busiest day was ${busiest.date} with ${formatMinutes(busiest.minutes)}.` : '; no calls.');

  return (
    <figure className={s.chartFigure}>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}-t ${id}-d`} className={s.chart}>
        <title id={`${id}-t`}>{`Minutes and cost per day, ${monthTitle(usage.month)}`}</title>
        <desc id={`${id}-d`}>{summary}</desc>
        {[0, 0.5, 1].map((f) => (
          <g key={f}>
            <line
              x1={PAD.left}
              x2={W - PAD.right}
              y1={PAD.top + innerH * (1 - f)}
              y2={PAD.top + innerH * (1 - f)}
              className={s.grid}
            />
            <text x={PAD.left - 6} y={PAD.top + innerH * (1 - f) + 4} textAnchor="end" className={s.axis}>
              {formatCount(maxMin * f)}
            </text>
            <text x={W - PAD.right + 6} y={PAD.top + innerH * (1 - f) + 4} className={s.axis}>
              {formatUsd(maxCost * f)}
            </text>
          </g>
        ))}
        {days.map((d, i) => (
          <rect
            key={d.date}
            x={x(i) + step * 0.15}
            width={step * 0.7}
            y={yMin(d.minutes)}
            height={Math.max(0, PAD.top + innerH - yMin(d.minutes))}
            className={s.bar}
          >
            <title>{`${d.date}: ${formatMinutes(d.minutes)}, ${formatUsd(d.cost)}, ${d.calls} calls`}</title>
          </rect>
        ))}
        <path d={line} className={s.costLine} />
        {days.map((d, i) =>
          i % 5 === 0 || i === days.length - 1 ? (
            <text key={d.date} x={x(i) + step / 2} y={H - 8} textAnchor="middle" className={s.axis}>
              {Number(d.date.slice(8))}
            </text>
          ) : null,
        )}
      </svg>
      <figcaption className={s.legend}>
        <span>
          <span className={s.swatchBar} aria-hidden="true" /> Minutes (left axis)
        </span>
        <span>
          <span className={s.swatchLine} aria-hidden="true" /> Cost (right axis)
        </span>
      </figcaption>
    </figure>
  );
}
