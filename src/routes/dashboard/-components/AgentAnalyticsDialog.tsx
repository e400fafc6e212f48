import { lightFormat } from 'date-fns';
import { useState } from 'react';
import type { AgentListItem } from '../../../api/contract/agent/responses';
import { Dialog } from '../../../ui/dialog/dialog';
import { CallFiguresList, useCallAnalytics } from './call-history/CallAnalytics';
import { DateRangePicker } from './call-history/DateRangePicker';
import * as p from './page.css';
import { LoadError, Loading } from './QueryStates';

/** The last 30 days up to today (yyyy-MM-dd). */
function lastDays(days: number, today = new Date()) {
  return {
    from: lightFormat(new Date(today.getTime() - (days - 1) * 86_400_000), 'yyyy-MM-dd'),
    to: lightFormat(today, 'yyyy-MM-dd'),
  };
}

/**
 * 'Analytics' of an agent's row menu: the agent's calls, success rate, average duration and cost
 * for the chosen date range (the last 30 days at first), from GET /call/analytics?agentId=.
 */
export function AgentAnalyticsDialog({
  agent,
  onClose,
}: {
  agent: Pick<AgentListItem, '_id' | 'agent_name'>;
  onClose: () => void;
}) {
  const [range, setRange] = useState<{ from?: string; to?: string }>(() => lastDays(30));
  const query = useCallAnalytics({ agentId: agent._id, dateFrom: range.from, dateTo: range.to });
  return (
    <Dialog
      open
      onClose={onClose}
      title={`Analytics: ${agent.agent_name}`}
      description="Calls this agent handled in the chosen date range."
      size="lg"
      bodyClassName={p.section}
    >
      <div className={p.row}>
        <DateRangePicker value={range} onChange={(next) => setRange(next ?? {})} />
      </div>
      {query.data ? (
        query.data.totals.calls === 0 ? (
          <p className={p.muted} role="status">
            No calls in this range
          </p>
        ) : (
          <CallFiguresList figures={query.data.totals} label={`Analytics of ${agent.agent_name}`} />
        )
      ) : query.error !== undefined && !query.loading ? (
        <LoadError what="Could not load this agent's analytics." error={query.error} onRetry={query.reload} />
      ) : (
        <Loading label="Loading analytics" />
      )}
    </Dialog>
  );
}
