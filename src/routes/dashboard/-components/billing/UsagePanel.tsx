import { billing, billingKeys } from '../../../../api/billing';
import type { UsageResponse } from '../../../../api/contract/billing';
import * as pn from '../../../../ui/panel/panel.css';
import { Select } from '../../../../ui/select/select';
import { useQuery } from '../../../-lib/useQuery';
import { formatCount, formatMinutes, formatUsd, monthTitle, recentMonths } from '../format';
import * as p from '../page.css';
import { QueryView } from '../QueryStates';
import * as s from './billing.css';
import { UsageChart } from './UsageChart';

/** The Usage tab: a month's minutes and cost per day (chart + table), totals, and the breakdown by agent. */
export function UsagePanel({ month, onMonthChange }: { month: string; onMonthChange: (month: string) => void }) {
  const query = useQuery(billingKeys.usage(month), () => billing.usage(month));
  const months = recentMonths(12);
  const options = (months.includes(month) ? months : [month, ...months]).map((m) => ({ value: m, label: monthTitle(m) }));
  return (
    <div className={p.section}>
      <div className={p.row}>
        <Select label="Month" value={month} onChange={onMonthChange} options={options} className={s.monthPicker} />
      </div>
      <QueryView query={query} loadingLabel="Loading usage" errorText="Could not load your usage.">
        {(usage) => <UsageReport usage={usage} />}
      </QueryView>
    </div>
  );
}

function UsageReport({ usage }: { usage: UsageResponse }) {
  const active = usage.days.filter((d) => d.calls > 0);
  return (
    <>
      <div className={p.stats}>
        <Stat label="Minutes" value={formatMinutes(usage.totals.minutes)} />
        <Stat label="Cost" value={formatUsd(usage.totals.cost)} />
        <Stat label="Calls" value={formatCount(usage.totals.calls)} />
      </div>
      <div className={`${pn.panel} ${pn.panelBody}`}>
        <h2 className={p.sectionTitle}>Per day</h2>
        {usage.totals.calls === 0 ? (
          <p className={p.muted}>No calls in {monthTitle(usage.month)}.</p>
        ) : (
          <>
            <UsageChart usage={usage} />
            <details className={s.details}>
              <summary>Show the numbers as a table</summary>
              <FiguresTable
                label={`Usage per day, ${monthTitle(usage.month)}`}
                first="Day"
                rows={active.map((d) => ({ key: d.date, name: d.date, ...d }))}
              />
              <p className={p.muted}>Days without calls are left out.</p>
            </details>
          </>
        )}
      </div>
      <div className={`${pn.panel} ${pn.panelBody}`}>
        <h2 className={p.sectionTitle}>By agent</h2>
        {usage.byAgent.length === 0 ? (
          <p className={p.muted}>No agent made or took a call this month.</p>
        ) : (
          <FiguresTable
            label="Usage by agent"
            first="Agent"
            rows={usage.byAgent.map((a) => ({ key: a.agentId ?? 'none', name: a.agentName, ...a }))}
          />
        )}
      </div>
    </>
  );
}

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <div className={p.stat}>
      <div className={p.statLabel}>{label}</div>
      <div className={p.statValue}>{value}</div>
    </div>
  );
}

/** Calls, minutes and cost per row (a day, an agent). */
function FiguresTable({
  label,
  first,
  rows,
}: {
  label: string;
  first: string;
  rows: { key: string; name: string; calls: number; minutes: number; cost: number }[];
}) {
  return (
    <div className={pn.tableWrap}>
      <table className={pn.table} aria-label={label}>
        <thead>
          <tr>
            <th className={pn.th} scope="col">
              {first}
            </th>
            {['Calls', 'Minutes', 'Cost'].map((h) => (
              <th key={h} className={`${pn.th} ${pn.num}`} scope="col">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.key}>
              <th className={`${pn.td} ${pn.rowHeader}`} scope="row">
                {r.name}
              </th>
              <td className={`${pn.td} ${pn.num}`}>{formatCount(r.calls)}</td>
              <td className={`${pn.td} ${pn.num}`}>{formatMinutes(r.minutes)}</td>
              <td className={`${pn.td} ${pn.num}`}>{formatUsd(r.cost)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
