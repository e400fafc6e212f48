import { useActorRef, useSelector } from '@xstate/react';
import { useEffect } from 'react';
import { batches, batchKeys } from '../../../../api/batches';
import { type BatchDetailResponse, batchEstimate } from '../../../../api/contract/batch';
import { notify } from '../../../../app/toaster';
import { batchDetailMachine } from '../../../../machines/batchDetail.machine';
import { AlertDialog } from '../../../../ui/alert-dialog/alert-dialog';
import { Button } from '../../../../ui/button/button';
import { Dialog } from '../../../../ui/dialog/dialog';
import * as pn from '../../../../ui/panel/panel.css';
import { TextField } from '../../../../ui/text-field/text-field';
import { useQuery } from '../../../-lib/useQuery';
import { formatCount, formatDateTime, formatDuration, formatUsd, toDateTimeLocal } from '../format';
import * as p from '../page.css';
import { QueryView } from '../QueryStates';
import { BatchProgress, ExportRecipientsButton } from './BatchProgress';
import { DiallingRules } from './BatchRules';
import * as s from './batch.css';
import { BatchStatusBadge } from './status';

// toasts go to the app's toaster (the machines declare `notify`; src/app/toaster.ts supplies it)
const batchDetailLogic = batchDetailMachine.provide({ actions: { notify } });

const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
/** An ISO instant as a datetime-local value in the user's time zone. */
const toLocalInput = (iso: string | null) => (iso ? toDateTimeLocal(new Date(iso)) : '');

/** How often the detail asks again while its batch is sending (its live progress). */
export const BATCH_REFRESH_MS = 2500;

/** The batch's `pausedReason` when the server sends one (read defensively: an older server has none). */
const pausedReasonOf = (batch: { pausedReason?: unknown }) =>
  typeof batch.pausedReason === 'string' && batch.pausedReason.trim() !== '' ? batch.pausedReason : null;

/**
 * The detail view of one batch: what it holds, its live progress, and send / schedule / reschedule /
 * pause / resume / cancel. While the batch is sending it is asked for again every BATCH_REFRESH_MS; the
 * refresh stops when it is no longer sending or the dialog closes.
 */
export function BatchDetail({ id, onClose }: { id: string; onClose: () => void }) {
  const query = useQuery(batchKeys.one(id), () => batches.get(id));
  const sending = query.data?.batch.status === 'sending';
  useEffect(() => {
    if (!sending) return;
    const timer = setInterval(() => batches.refresh(id), BATCH_REFRESH_MS);
    return () => clearInterval(timer);
  }, [sending, id]);
  return (
    <Dialog open onClose={onClose} size="lg" title={query.data?.batch.name ?? 'Batch call'} description="Batch call details">
      <QueryView query={query} loadingLabel="Loading the batch call" errorText="Could not load this batch call.">
        {(detail) => <DetailBody detail={detail} />}
      </QueryView>
    </Dialog>
  );
}

function DetailBody({ detail }: { detail: BatchDetailResponse }) {
  const { batch, recipients } = detail;
  const actor = useActorRef(batchDetailLogic, { input: { batchId: batch._id } });
  const snap = useSelector(actor, (x) => x);
  const busy = snap.hasTag('busy');
  const editable = batch.status === 'draft' || batch.status === 'scheduled';
  const cancelable = editable || batch.status === 'sending' || batch.status === 'paused';
  const pausedReason = batch.status === 'paused' ? pausedReasonOf(batch) : null;
  const estimate = batchEstimate(batch.recipients, detail.concurrencyLimit);

  return (
    <div className={p.section}>
      <dl className={s.facts}>
        <dt>Status</dt>
        <dd>
          <BatchStatusBadge status={batch.status} allFailed={batch.allFailed} />
        </dd>
        <dt>From number</dt>
        <dd>{batch.fromNumber}</dd>
        <dt>When</dt>
        <dd>
          {batch.scheduledAt
            ? `Scheduled for ${formatDateTime(batch.scheduledAt)} (${timeZone})`
            : batch.status === 'draft'
              ? 'Not sent yet'
              : 'Now'}
        </dd>
        <dt>Recipients</dt>
        <dd>
          {formatCount(batch.recipients)} to call
          {batch.invalid + batch.duplicates > 0
            ? ` (${formatCount(batch.invalid)} invalid and ${formatCount(batch.duplicates)} duplicate rows left out)`
            : ''}
        </dd>
        <dt>Sent</dt>
        <dd>{formatCount(batch.sent)}</dd>
        <dt>Estimate</dt>
        <dd>
          About {formatDuration(estimate.seconds)} at {formatCount(detail.concurrencyLimit)} calls at a time,{' '}
          {formatUsd(detail.estimatedCost)}
        </dd>
        <dt>Created</dt>
        <dd>{formatDateTime(batch.createdAt)}</dd>
      </dl>

      {pausedReason ? (
        <p role="status" className={p.alert}>
          Paused: {pausedReason}
        </p>
      ) : null}

      {editable || cancelable ? (
        <div className={p.row}>
          {editable ? (
            <>
              <Button onClick={() => actor.send({ type: 'action.ask', action: 'send' })} disabled={busy}>
                Send now
              </Button>
              <Button
                variant="secondary"
                onClick={() => actor.send({ type: 'schedule.open', current: toLocalInput(batch.scheduledAt) })}
                disabled={busy}
              >
                {batch.status === 'scheduled' ? 'Reschedule' : 'Schedule'}
              </Button>
            </>
          ) : null}
          {batch.status === 'sending' ? (
            <Button variant="secondary" onClick={() => actor.send({ type: 'action.run', action: 'pause' })} disabled={busy}>
              Pause
            </Button>
          ) : null}
          {batch.status === 'paused' ? (
            <Button onClick={() => actor.send({ type: 'action.run', action: 'resume' })} disabled={busy}>
              Resume
            </Button>
          ) : null}
          {cancelable ? (
            <Button variant="destructive" onClick={() => actor.send({ type: 'action.ask', action: 'cancel' })} disabled={busy}>
              Cancel batch call
            </Button>
          ) : null}
        </div>
      ) : null}

      {snap.matches('scheduling') || (busy && snap.context.action === 'schedule') ? (
        <form
          className={s.scheduleBox}
          noValidate
          aria-label="Schedule"
          onSubmit={(e) => {
            e.preventDefault();
            actor.send({ type: 'schedule.submit' });
          }}
        >
          <TextField
            label="Date and time"
            type="datetime-local"
            min={toDateTimeLocal(new Date())}
            hint={`Your time zone: ${timeZone}`}
            value={snap.context.scheduledAt}
            error={snap.context.error ?? undefined}
            disabled={busy}
            onChange={(e) => actor.send({ type: 'schedule.change', value: e.currentTarget.value })}
          />
          <Button type="submit" loading={busy}>
            Save schedule
          </Button>
          <Button variant="ghost" onClick={() => actor.send({ type: 'schedule.close' })} disabled={busy}>
            Close
          </Button>
        </form>
      ) : null}

      {cancelable ? <DiallingRules batch={batch} /> : null}

      {batch.status !== 'draft' ? <BatchProgress detail={detail} /> : null}

      <div className={p.section}>
        <div className={p.row}>
          <h3 className={p.sectionTitle}>Recipients</h3>
          {batch.recipients > 0 ? <ExportRecipientsButton batchId={batch._id} /> : null}
        </div>
        {recipients.length === 0 ? (
          <p className={p.muted}>No recipients stored yet.</p>
        ) : (
          <>
            <div className={pn.tableWrap}>
              <table className={pn.table} aria-label="Stored recipients">
                <thead>
                  <tr>
                    <th className={pn.th} scope="col">
                      Row
                    </th>
                    <th className={pn.th} scope="col">
                      Phone number
                    </th>
                    <th className={pn.th} scope="col">
                      Variables
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {recipients.map((r) => (
                    <tr key={r.row}>
                      <td className={pn.td}>{r.row}</td>
                      <td className={pn.td}>{r.phone}</td>
                      <td className={pn.td}>
                        {Object.entries(r.variables)
                          .map(([k, v]) => `${k}: ${v}`)
                          .join(', ')}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {batch.recipients > recipients.length ? (
              <p className={p.muted}>
                The first {formatCount(recipients.length)} of {formatCount(batch.recipients)}.
              </p>
            ) : null}
          </>
        )}
      </div>

      <AlertDialog
        open={snap.matches('confirming') || (busy && (snap.context.action === 'send' || snap.context.action === 'cancel'))}
        onClose={() => actor.send({ type: 'action.dismiss' })}
        onConfirm={() => actor.send({ type: 'action.confirm' })}
        confirming={busy}
        destructive={snap.context.action === 'cancel'}
        title={snap.context.action === 'cancel' ? 'Cancel this batch call?' : 'Send this batch call now?'}
        description={
          snap.context.action === 'cancel'
            ? 'No more recipients will be called. This cannot be undone.'
            : `${formatCount(batch.recipients)} recipients will be called from ${batch.fromNumber}.`
        }
        confirmLabel={snap.context.action === 'cancel' ? 'Cancel batch call' : 'Send now'}
        cancelLabel="Go back"
      />
    </div>
  );
}
