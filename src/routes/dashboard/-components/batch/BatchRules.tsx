import { useActorRef, useSelector } from '@xstate/react';
import { BATCH_MAX_ATTEMPTS, BATCH_RETRY_DELAY_SECONDS, type Batch } from '../../../../api/contract/batch';
import { notify } from '../../../../app/toaster';
import { type BatchRules, batchRulesMachine, type RulesDraft } from '../../../../machines/batchRules.machine';
import { Button } from '../../../../ui/button/button';
import { Checkbox } from '../../../../ui/checkbox/checkbox';
import { Dialog } from '../../../../ui/dialog/dialog';
import { Select } from '../../../../ui/select/select';
import { Switch } from '../../../../ui/switch/switch';
import { TextField } from '../../../../ui/text-field/text-field';
import * as p from '../page.css';
import * as s from './batch.css';
import { attemptsSummary, WEEK, windowSummary } from './rules-summary';

// toasts go to the app's toaster (the machine declares `notify`; src/app/toaster.ts supplies it)
const batchRulesLogic = batchRulesMachine.provide({ actions: { notify } });

const localZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
/** The zones the browser knows, the user's own and UTC always among them. */
const ZONES: string[] = (() => {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return [...new Set([...known, localZone, 'UTC'])].sort();
})();

const rulesOf = (batch: Batch): BatchRules => ({
  callingWindow: batch.callingWindow,
  timeZone: batch.timeZone,
  maxAttempts: batch.maxAttempts,
  retryDelaySeconds: batch.retryDelaySeconds,
});

/**
 * "Dialling rules" of a batch that has not ended: the rules as they are, and 'Edit dialling rules'
 * (batchRules.machine) to change them.
 */
export function DiallingRules({ batch }: { batch: Batch }) {
  const actor = useActorRef(batchRulesLogic, { input: { batchId: batch._id } });
  const snap = useSelector(actor, (x) => x);
  const busy = snap.hasTag('busy');
  const { draft, errors, failure } = snap.context;
  const change = (patch: Partial<RulesDraft>) => actor.send({ type: 'rules.change', patch });
  const rules = rulesOf(batch);

  return (
    <section className={p.section} aria-labelledby="dialling-rules-title">
      <div className={p.row}>
        <h3 id="dialling-rules-title" className={p.sectionTitle}>
          Dialling rules
        </h3>
        <Button
          variant="secondary"
          onClick={() => actor.send({ type: 'rules.open', rules, localZone })}
          disabled={snap.hasTag('open')}
        >
          Edit dialling rules
        </Button>
      </div>
      <dl className={s.facts} aria-label="Dialling rules">
        <dt>Calling window</dt>
        <dd>{windowSummary(rules)}</dd>
        <dt>Attempts</dt>
        <dd>{attemptsSummary(rules)}</dd>
      </dl>

      <Dialog
        open={snap.hasTag('open')}
        onClose={() => actor.send({ type: 'rules.close' })}
        title="Edit dialling rules"
        description="When this batch call may dial, and how often it tries a busy or unanswered recipient."
        hideOnInteractOutside={!busy}
        footer={
          <>
            <Button variant="ghost" onClick={() => actor.send({ type: 'rules.close' })} disabled={busy}>
              Cancel
            </Button>
            <Button type="submit" form="dialling-rules-form" loading={busy}>
              {busy ? 'Saving...' : 'Save'}
            </Button>
          </>
        }
      >
        <form
          id="dialling-rules-form"
          className={s.fields}
          noValidate
          aria-label="Dialling rules"
          onSubmit={(e) => {
            e.preventDefault();
            actor.send({ type: 'rules.submit' });
          }}
        >
          {failure ? (
            <p role="alert" className={p.alert}>
              {failure}
            </p>
          ) : null}
          <Switch
            label="Only call inside a calling window"
            description="Outside it, no new calls are placed; calls in progress finish."
            checked={draft.windowOn}
            disabled={busy}
            onCheckedChange={(on) => change({ windowOn: on })}
          />
          {draft.windowOn ? (
            <>
              <fieldset
                className={s.fieldset}
                aria-describedby={errors.days ? 'dialling-rules-days-error' : undefined}
                aria-invalid={errors.days ? true : undefined}
              >
                <legend className={p.muted}>Days</legend>
                <div className={s.radios}>
                  {WEEK.map((d) => (
                    <Checkbox
                      key={d.day}
                      label={d.name}
                      checked={draft.days.includes(d.day)}
                      disabled={busy}
                      onCheckedChange={(on) =>
                        change({ days: on ? [...draft.days, d.day] : draft.days.filter((x) => x !== d.day) })
                      }
                    />
                  ))}
                </div>
                {errors.days ? (
                  <p id="dialling-rules-days-error" role="alert" className={p.alert}>
                    {errors.days}
                  </p>
                ) : null}
              </fieldset>
              <div className={s.timesRow}>
                <TextField
                  label="From"
                  type="time"
                  value={draft.start}
                  error={errors.start}
                  disabled={busy}
                  onChange={(e) => change({ start: e.currentTarget.value })}
                />
                <TextField
                  label="Until"
                  type="time"
                  value={draft.end}
                  error={errors.end}
                  disabled={busy}
                  onChange={(e) => change({ end: e.currentTarget.value })}
                />
              </div>
              <Select
                label="Time zone"
                value={draft.timeZone}
                options={ZONES.map((z) => ({ value: z, label: z }))}
                hint="Recipients whose number tells their time zone are called in their own zone; the others in this one."
                error={errors.timeZone}
                disabled={busy}
                onChange={(zone) => change({ timeZone: zone })}
              />
            </>
          ) : null}
          <TextField
            label="Attempts"
            type="number"
            inputMode="numeric"
            min={BATCH_MAX_ATTEMPTS.min}
            max={BATCH_MAX_ATTEMPTS.max}
            step={1}
            hint="A busy or unanswered recipient is called again until this many tries."
            value={draft.maxAttempts}
            error={errors.maxAttempts}
            disabled={busy}
            onChange={(e) => change({ maxAttempts: e.currentTarget.value })}
          />
          <TextField
            label="Retry delay (seconds)"
            type="number"
            inputMode="numeric"
            min={BATCH_RETRY_DELAY_SECONDS.min}
            max={BATCH_RETRY_DELAY_SECONDS.max}
            step={1}
            value={draft.retryDelaySeconds}
            error={errors.retryDelaySeconds}
            disabled={busy}
            onChange={(e) => change({ retryDelaySeconds: e.currentTarget.value })}
          />
        </form>
      </Dialog>
    </section>
  );
}
