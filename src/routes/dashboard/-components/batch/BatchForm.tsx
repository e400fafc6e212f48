import { useActorRef, useSelector } from '@xstate/react';
import { type FormEvent, useEffect, useState } from 'react';
import { API_BASE_URL } from '../../../../api/client';
import { BATCH_CSV_MAX_BYTES, BATCH_DIAL_COST, BATCH_PATHS, type Batch, batchEstimate } from '../../../../api/contract/batch';
import { notify } from '../../../../app/toaster';
import { type BatchField, batchCallMachine, type FromNumber } from '../../../../machines/batchCall.machine';
import { AlertDialog } from '../../../../ui/alert-dialog/alert-dialog';
import { Button } from '../../../../ui/button/button';
import { Dialog } from '../../../../ui/dialog/dialog';
import { AlertIcon } from '../../../../ui/icons';
import { Select } from '../../../../ui/select/select';
import { TextField } from '../../../../ui/text-field/text-field';
import { formatBytes, formatCount, formatDuration, formatUsd, toDateTimeLocal } from '../format';
import * as p from '../page.css';
import * as s from './batch.css';
import { RecipientsPane } from './RecipientsPane';
import { TimingRadio } from './TimingRadio';

// toasts go to the app's toaster (the machines declare `notify`; src/app/toaster.ts supplies it)
const batchCallLogic = batchCallMachine.provide({ actions: { notify } });

const FORM_ID = 'batch-call-form';
const TEMPLATE_URL = `${API_BASE_URL}${BATCH_PATHS.template}`;

/**
 * The full-screen 'Create a batch call' form, bound to the batchCall machine. `onDone` gets the saved
 * batch; `onClose` leaves without saving (after asking, when something was entered).
 */
export function BatchForm({ onClose, onDone }: { onClose: () => void; onDone: (batch: Batch) => void }) {
  const actor = useActorRef(batchCallLogic, { input: {} });
  const snap = useSelector(actor, (s) => s);
  const { values, errors, numbers, summary, table, fileError, progress, failure, timeZone, concurrencyLimit } = snap.context;
  const busy = snap.hasTag('busy');
  const scheduled = snap.matches({ timing: 'scheduled' });
  const parsing = snap.matches({ recipients: 'parsing' });
  const [confirmClose, setConfirmClose] = useState(false);

  useEffect(() => {
    if (snap.hasTag('done') && snap.context.saved) onDone(snap.context.saved);
  }, [snap, onDone]);

  const field = (name: BatchField) => ({
    name,
    value: values[name],
    error: errors[name],
    disabled: busy,
    onChange: (e: { currentTarget: { value: string } }) =>
      actor.send({ type: 'field.change', field: name, value: e.currentTarget.value }),
  });
  const dirty = values.name !== '' || snap.context.file !== null;
  const close = () => {
    if (busy) return;
    if (dirty) setConfirmClose(true);
    else onClose();
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    actor.send({ type: 'form.send' });
  };

  return (
    <Dialog
      open
      onClose={close}
      size="full"
      title="Create a batch call"
      description="Call a list of recipients from one of your numbers, now or at a time you choose."
      footer={
        <>
          <Button
            variant="secondary"
            onClick={() => actor.send({ type: 'form.saveDraft' })}
            loading={busy && snap.context.intent === 'draft'}
            disabled={busy}
          >
            Save as draft
          </Button>
          <Button type="submit" form={FORM_ID} loading={busy && snap.context.intent === 'send'} disabled={busy}>
            Send
          </Button>
        </>
      }
    >
      <div className={s.formLayout}>
        <form id={FORM_ID} className={s.fields} noValidate onSubmit={onSubmit} aria-label="Batch call">
          {failure ? (
            <p className={p.alert} role="alert">
              <AlertIcon size={16} />
              {failure}
            </p>
          ) : null}
          <TextField label="Batch Call Name" placeholder="e.g. Flu shot reminders" required autoFocus {...field('name')} />
          <FromNumberSelect
            value={values.fromNumber}
            error={errors.fromNumber}
            numbers={numbers}
            total={snap.context.numbersTotal}
            state={snap.matches({ options: 'loading' }) ? 'loading' : snap.matches({ options: 'failed' }) ? 'failed' : 'ready'}
            disabled={busy}
            onChange={(value) => actor.send({ type: 'field.change', field: 'fromNumber', value })}
            onRetry={() => actor.send({ type: 'options.retry' })}
          />
          <div className={s.upload}>
            <TextField
              label="Recipients (CSV)"
              type="file"
              accept=".csv,text/csv"
              disabled={busy}
              hint={`A phone_number column, plus any other columns as {{column}} variables. Up to ${formatBytes(BATCH_CSV_MAX_BYTES)}.`}
              error={fileError ?? errors.recipients}
              onChange={(e) => {
                const file = e.currentTarget.files?.[0];
                if (file) actor.send({ type: 'recipients.pick', file });
                e.currentTarget.value = '';
              }}
            />
            <div className={s.fileLine}>
              <a className={p.link} href={TEMPLATE_URL} download>
                Download the template
              </a>
              {snap.context.file ? (
                <>
                  <span className={p.muted}>
                    {snap.context.file.name} ({formatBytes(snap.context.file.size)})
                  </span>
                  <Button variant="ghost" size="sm" onClick={() => actor.send({ type: 'recipients.clear' })} disabled={busy}>
                    Remove file
                  </Button>
                </>
              ) : null}
            </div>
            {parsing ? <Progress loaded={progress.loaded} size={progress.size} /> : null}
          </div>
          <TimingRadio
            value={scheduled ? 'scheduled' : 'now'}
            disabled={busy}
            onChange={(mode) => actor.send({ type: mode === 'scheduled' ? 'timing.schedule' : 'timing.now' })}
          />
          {scheduled ? (
            <TextField
              label="Date and time"
              type="datetime-local"
              min={toDateTimeLocal(new Date())}
              hint={`Your time zone: ${timeZone}`}
              {...field('scheduledAt')}
            />
          ) : null}
          <Estimate valid={summary?.valid ?? null} concurrency={concurrencyLimit} />
        </form>
        <RecipientsPane summary={summary} table={table} parsing={parsing} />
      </div>
      <AlertDialog
        open={confirmClose}
        onClose={() => setConfirmClose(false)}
        onConfirm={onClose}
        title="Discard this batch call?"
        description="What you entered has not been saved."
        confirmLabel="Discard"
        cancelLabel="Keep editing"
      />
    </Dialog>
  );
}

function FromNumberSelect({
  value,
  error,
  numbers,
  total,
  state,
  disabled,
  onChange,
  onRetry,
}: {
  value: string;
  error: string | undefined;
  numbers: FromNumber[];
  total: number;
  state: 'loading' | 'failed' | 'ready';
  disabled: boolean;
  onChange: (value: string) => void;
  onRetry: () => void;
}) {
  const hint =
    state === 'loading'
      ? 'Loading your numbers…'
      : state === 'ready' && numbers.length === 0
        ? 'You have no assigned number yet: request one in Phone Numbers.'
        : total > numbers.length
          ? `The first ${numbers.length} of your ${total} numbers.`
          : undefined;
  return (
    <div className={s.fieldset}>
      <Select
        label="From number"
        placeholder="Choose one of your numbers"
        value={value}
        onChange={onChange}
        options={numbers.map((n) => ({ value: n.phone, label: n.phone, description: n.provider }))}
        disabled={disabled || state !== 'ready' || numbers.length === 0}
        hint={hint}
        error={error}
      />
      {state === 'failed' ? (
        <p className={p.alert} role="alert">
          Could not load your numbers.
          <Button variant="link" size="sm" onClick={onRetry}>
            Retry
          </Button>
        </p>
      ) : null}
    </div>
  );
}

function Progress({ loaded, size }: { loaded: number; size: number }) {
  const pct = size > 0 ? Math.round((loaded / size) * 100) : 0;
  return (
    <div className={s.fieldset}>
      <div
        className={s.progressTrack}
        role="progressbar"
        aria-label="Reading recipients"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct}
      >
        <div className={s.progressBar} style={{ width: `${pct}%` }} />
      </div>
      <span className={p.muted}>
        Reading recipients… {pct}% ({formatBytes(loaded)} of {formatBytes(size)})
      </span>
    </div>
  );
}

/** The estimated-time box: from the valid recipients and the concurrency limit; cost at $0.005 a dial. */
function Estimate({ valid, concurrency }: { valid: number | null; concurrency: number }) {
  if (valid === null) {
    return (
      <div className={s.estimate}>
        <span className={s.estimateTitle}>Estimated time</span>
        <span>Please add recipients first</span>
      </div>
    );
  }
  const { seconds, cost } = batchEstimate(valid, concurrency);
  return (
    <div className={s.estimate} aria-live="polite">
      <span className={s.estimateTitle}>Estimated time</span>
      <span>
        About {formatDuration(seconds)} for {formatCount(valid)} recipients, {formatCount(concurrency)} calls at a time.
      </span>
      <span>
        Estimated cost {formatUsd(cost)} at ${BATCH_DIAL_COST} per dial.
      </span>
    </div>
  );
}
