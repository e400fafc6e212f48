import { lightFormat } from 'date-fns';
import { useId } from 'react';
import type { UsageResponse } from '../../../../api/contract/billing';
import { axisTicks } from '../chart-ticks';
import { formatCount, formatMinutes, formatUsd, monthTitle } from '../format';
import * as s from './billing.css';

const W = 720;
const H = 240;
const PAD = { top: 16, right: 56, bottom: 28, left: 48 };

/**
 * The days of the month that have begun: an open month's days after today are not drawn (they are not
 * $0 days, they have not happened). Days are the server's (UTC); the later of the UTC and the local date
 * counts as today, so a day that has begun anywhere for this user is drawn.
 */
export function daysSoFar<D extends { date: string }>(days: readonly D[], now = new Date()): D[] {
  const utc = now.toISOString().slice(0, 10);
  const local = lightFormat(now, 'yyyy-MM-dd');
  const today = [utc, local].sort()[1]!;
  return days.filter((d) => d.date <= today);
}

/**
 * role="img" makes everything inside the SVG presentational: it is read as its title and summary.
 * Minutes (bars, left axis) and cost (line, right axis) per day of a month, as an SVG that reads as one
 * image with a title and a summary; the numbers themselves are in the table alternative beside it.
 */
export function UsageChart({ usage, now }: { usage: UsageResponse; now?: Date }) {
  const id = useId();
  // the x axis spans the whole month; bars and the cost line stop at today
  const month = usage.days;
  const days = daysSoFar(month, now);
  // minutes are rounded to 0.1 and cost to the cent (see the contract): the axes' smallest steps
  const minTicks = axisTicks(Math.max(...days.map((d) => d.minutes), 0), 0.1);
  const costTicks = axisTicks(Math.max(...days.map((d) => d.cost), 0), 0.01);
  const maxMin = minTicks[2];
  const maxCost = costTicks[2];
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const step = innerW / Math.max(month.length, 1);
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
        {[0, 1, 2].map((k) => (
          <g key={k}>
            <line x1={PAD.left} x2={W - PAD.right} y1={yMin(minTicks[k]!)} y2={yMin(minTicks[k]!)} className={s.grid} />
            <text x={PAD.left - 6} y={yMin(minTicks[k]!) + 4} textAnchor="end" className={s.axis}>
              {formatCount(minTicks[k]!)}
            </text>
            <text x={W - PAD.right + 6} y={yCost(costTicks[k]!) + 4} className={s.axis}>
              {formatUsd(costTicks[k]!)}
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
        {month.map((d, i) =>
          i % 5 === 0 || i === month.length - 1 ? (
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
