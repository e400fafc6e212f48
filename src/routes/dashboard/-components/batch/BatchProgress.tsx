import { Link } from '@tanstack/react-router';
import { batches } from '../../../../api/batches';
import {
  type BatchDetailResponse,
  RECIPIENT_STATE_LABELS,
  RECIPIENT_STATES,
  type RecipientState,
} from '../../../../api/contract/batch';
import * as pn from '../../../../ui/panel/panel.css';
import { DownloadButton } from '../DownloadButton';
import { formatCount, formatDuration } from '../format';
import * as p from '../page.css';
import * as s from './batch.css';

const stateLabel = (state: string) => RECIPIENT_STATE_LABELS[state as RecipientState] ?? state;

/**
 * The live progress of a batch: recipients per state, a progress bar of those finished (neither
 * queued nor calling), and the recipients dialled so far with their calls, each linking to its detail view.
 */
export function BatchProgress({ detail }: { detail: BatchDetailResponse }) {
  const { progress, calls } = detail;
  const pct = progress.total > 0 ? Math.round((progress.finished / progress.total) * 100) : 0;
  return (
    <div className={p.section}>
      <h3 className={p.sectionTitle}>Progress</h3>
      <dl className={s.stateCounts} aria-label="Recipients per state">
        {RECIPIENT_STATES.map((state) => (
          <div key={state} className={s.stateCount}>
            <dt>{RECIPIENT_STATE_LABELS[state]}</dt>
            <dd>{formatCount(progress.counts[state])}</dd>
          </div>
        ))}
      </dl>
      <div className={s.fieldset}>
        <div
          className={s.progressTrack}
          role="progressbar"
          aria-label="Recipients finished"
          aria-valuemin={0}
          aria-valuemax={progress.total}
          aria-valuenow={progress.finished}
          aria-valuetext={`${formatCount(progress.finished)} of ${formatCount(progress.total)} (${pct}%)`}
        >
          <div className={s.progressBar} style={{ width: `${pct}%` }} />
        </div>
        <span className={p.muted}>
          {formatCount(progress.finished)} of {formatCount(progress.total)} recipients finished ({pct}%)
        </span>
      </div>

      <h3 className={p.sectionTitle}>Calls</h3>
      {calls.rows.length === 0 ? (
        <p className={p.muted}>No calls yet.</p>
      ) : (
        <>
          <div className={pn.tableWrap}>
            <table className={pn.table} aria-label="Calls of this batch">
              <thead>
                <tr>
                  {['Row', 'Phone number', 'State', 'Attempts', 'Call status', 'Duration', 'Reason'].map((h) => (
                    <th key={h} className={pn.th} scope="col">
                      {h}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {calls.rows.map((r) => (
                  <tr key={r.row}>
                    <td className={pn.td}>{r.row}</td>
                    <td className={pn.td}>
                      {r.callId ? (
                        <Link to="/dashboard/call-history/$callId" params={{ callId: r.callId }}>
                          {r.phone}
                        </Link>
                      ) : (
                        r.phone
                      )}
                    </td>
                    <td className={pn.td}>{stateLabel(r.state)}</td>
                    <td className={pn.td}>{formatCount(r.attempts)}</td>
                    <td className={pn.td}>{r.callStatus ?? ''}</td>
                    <td className={pn.td}>{r.duration === null ? '' : formatDuration(r.duration)}</td>
                    <td className={pn.td}>{r.reason ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {calls.total > calls.rows.length ? (
            <p className={p.muted}>
              The first {formatCount(calls.rows.length)} of {formatCount(calls.total)} calls. Export recipients for all of them.
            </p>
          ) : null}
        </>
      )}
    </div>
  );
}

/** 'Export recipients': every recipient with its outcome as CSV, downloaded through a short-lived signed link. */
export function ExportRecipientsButton({ batchId }: { batchId: string }) {
  return <DownloadButton link={() => batches.recipientsExportLink(batchId)}>Export recipients</DownloadButton>;
}
