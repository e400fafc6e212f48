import type { ReactNode } from 'react';
import { callAnalyticsKey, calls } from '../../../../api/calls';
import { CALL_STATUS_LABELS, formatCallDuration } from '../../../../api/contract/call';
import type { CallAnalytics, CallAnalyticsParams, CallFigures } from '../../../../api/contract/call-analytics';
import { CALL_STATUSES, type CallStatus } from '../../../../api/contract/call-values';
import { HistoryIcon } from '../../../../ui/icons';
import { useQuery } from '../../../-lib/useQuery';
import { formatCount, formatUsd } from '../format';
import { EmptyState } from '../PageHeader';
import * as p from '../page.css';
import { LoadError, Loading } from '../QueryStates';
import * as s from './call-analytics.css';
import { DayChart } from './charts';

/** One colour per status for the stacked bars (the legend and the table name them: never colour alone). */
const STATUS_COLOURS: Record<CallStatus, string> = {
  registered: '#94a3b8',
  ongoing: '#0ea5e9',
  ended: '#4ade80',
  completed: '#15803d',
  failed: '#dc2626',
  busy: '#f97316',
  'no-answer': '#f472b6',
  canceled: '#eab308',
  error: '#7f1d1d',
};

export const formatRate = (rate: number | null) => (rate === null ? '—' : `${(rate * 100).toFixed(1)}%`);
const formatMs = (ms: number | null) => (ms === null ? '—' : `${formatCount(Math.round(ms))} ms`);
const formatAvgDuration = (seconds: number | null) => (seconds === null ? '—' : formatCallDuration(seconds));

/**
 * The answer of GET /call/analytics for these parameters, through the query cache (under the calls' prefix:
 * reloaded with them). The cache holds the whole response under its key; the screen reads its data.
 */
export function useCallAnalytics(q: CallAnalyticsParams) {
  const query = useQuery(callAnalyticsKey(q), () => calls.analytics(q, { notify: false }), { keepPrevious: true });
  return { ...query, data: query.data?.data };
}

/** Calls, success rate, average duration and cost (and latency, when `latency`) as figures. */
export function CallFiguresList({ figures, latency = false, label }: { figures: CallFigures; latency?: boolean; label: string }) {
  const items: [string, string][] = [
    ['Calls', formatCount(figures.calls)],
    ['Success rate', formatRate(figures.successRate)],
    ['Average duration', formatAvgDuration(figures.avgDuration)],
    ['Cost', formatUsd(figures.cost)],
  ];
  if (latency) items.push(['Latency p50', formatMs(figures.latencyP50)], ['Latency p95', formatMs(figures.latencyP95)]);
  return (
    <dl className={p.stats} aria-label={label}>
      {items.map(([name, value]) => (
        <div key={name} className={p.stat}>
          <dt className={p.statLabel}>{name}</dt>
          <dd className={p.statValue}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

const range = (days: readonly { day: string }[]) =>
  days.length ? `from ${days[0]!.day} to ${days[days.length - 1]!.day}` : 'in this range';

function Charts({ data }: { data: CallAnalytics }) {
  const days = data.days.map((d) => d.day);
  const statuses = CALL_STATUSES.filter((st) => data.days.some((d) => (d.statuses[st] ?? 0) > 0));
  const busiest = data.days.reduce((a, d) => (d.calls > a.calls ? d : a), data.days[0]!);
  const costliest = data.days.reduce((a, d) => (d.cost > a.cost ? d : a), data.days[0]!);
  const measured = data.days.filter((d) => d.latencyP95 !== null);
  return (
    <div className={s.charts}>
      <DayChart
        title="Calls per day by status"
        summary={`Calls per day by status, ${range(data.days)}: ${formatCount(data.totals.calls)} calls, at most ${formatCount(busiest.calls)} on ${busiest.day}`}
        kind="stacked-bars"
        days={days}
        series={statuses.map((st) => ({
          key: st,
          label: CALL_STATUS_LABELS[st],
          colour: STATUS_COLOURS[st],
          values: data.days.map((d) => d.statuses[st] ?? 0),
        }))}
        total={{ label: 'Calls', values: data.days.map((d) => d.calls) }}
        format={(n) => formatCount(Math.round(n))}
      />
      <DayChart
        title="Success rate per day"
        summary={`Success rate per day, ${range(data.days)}: ${formatRate(data.totals.successRate)} of all calls were successful`}
        kind="lines"
        days={days}
        series={[{ key: 'rate', label: 'Success rate', colour: '#15803d', values: data.days.map((d) => d.successRate) }]}
        format={(n) => formatRate(n)}
        unit={0.001}
      />
      <DayChart
        title="Average duration per day"
        summary={`Average duration per day, ${range(data.days)}: ${formatAvgDuration(data.totals.avgDuration)} over all calls`}
        kind="lines"
        days={days}
        series={[{ key: 'duration', label: 'Average duration', colour: '#8b5cf6', values: data.days.map((d) => d.avgDuration) }]}
        format={(n) => formatCallDuration(n)}
      />
      <DayChart
        title="Cost per day"
        summary={`Cost per day, ${range(data.days)}: ${formatUsd(data.totals.cost)} in total, at most ${formatUsd(costliest.cost)} on ${costliest.day}`}
        kind="stacked-bars"
        days={days}
        series={[{ key: 'cost', label: 'Cost', colour: '#4f46e5', values: data.days.map((d) => d.cost) }]}
        format={(n) => formatUsd(n)}
        unit={0.01}
      />
      <DayChart
        title="Latency per day (p50 and p95)"
        summary={
          measured.length
            ? `Response latency per day, ${range(data.days)}: p50 ${formatMs(data.totals.latencyP50)} and p95 ${formatMs(data.totals.latencyP95)} over the range`
            : 'Response latency per day: no call in this range has a measured latency'
        }
        kind="lines"
        days={days}
        series={[
          { key: 'p50', label: 'p50', colour: '#0ea5e9', values: data.days.map((d) => d.latencyP50) },
          { key: 'p95', label: 'p95', colour: '#f59e0b', values: data.days.map((d) => d.latencyP95) },
        ]}
        format={(n) => formatMs(n)}
      />
    </div>
  );
}

/**
 * The overview above the Call History table: for the table's filters and date range, the totals
 * and per-day charts of calls by status, success rate, average duration, cost and latency. A search narrows
 * the table only (the overview is read from daily rollups; see the contract), and the overview says so.
 */
export function CallAnalyticsOverview({ filters, searching = false }: { filters: CallAnalyticsParams; searching?: boolean }) {
  const query = useCallAnalytics(filters);
  let body: ReactNode;
  if (query.data) {
    body =
      query.data.days.length === 0 || query.data.totals.calls === 0 ? (
        <EmptyState
          icon={HistoryIcon}
          title="No calls in this range"
          text={
            filters.dateFrom || filters.dateTo
              ? 'Choose another date range or other filters to see the overview.'
              : 'Change or clear the filters to see the overview.'
          }
        />
      ) : (
        <>
          <CallFiguresList figures={query.data.totals} latency label="Totals" />
          <Charts data={query.data} />
        </>
      );
  } else if (query.error !== undefined && !query.loading) {
    body = <LoadError what="Could not load the overview." error={query.error} onRetry={query.reload} />;
  } else body = <Loading label="Loading the overview" />;
  return (
    <section className={s.overview} aria-labelledby="call-overview-title" aria-busy={query.loading}>
      <h2 id="call-overview-title" className={p.sectionTitle}>
        Overview
      </h2>
      {searching ? (
        <p className={s.note} role="note">
          The overview counts every call of these filters and dates; the search narrows the table below.
        </p>
      ) : null}
      {body}
    </section>
  );
}
