import { useSelector } from '@xstate/react';
import { type FormEvent, useState } from 'react';
import { billing } from '../../../../api/billing';
import {
  BILLING_MESSAGES,
  type BillingLimitsBody,
  BillingLimitsFormSchema,
  CONCURRENCY_LIMIT_MAX,
  CONCURRENCY_LIMIT_MIN,
  type LimitsResponse,
  limitsToForm,
} from '../../../../api/contract/billing';
import { Button } from '../../../../ui/button/button';
import * as pn from '../../../../ui/panel/panel.css';
import { TextField } from '../../../../ui/text-field/text-field';
import { formatUsd } from '../format';
import * as p from '../page.css';
import { LoadError, Loading } from '../QueryStates';
import * as s from './billing.css';
import { useSettingsForm } from './useSettingsForm';

const noteOf = (res: LimitsResponse) => `Spent this month so far: ${formatUsd(res.monthToDateSpend)}.`;

/** What an empty allowed-countries field means for this company. */
const countriesHint = (numberCountries: readonly string[]) =>
  `Two-letter country codes separated by commas, like US, GB. Empty: the countries of your own phone numbers${
    numberCountries.length > 0 ? ` (now ${numberCountries.join(', ')})` : ''
  }. Premium-rate and other blocked numbers are never called.`;

/**
 * The Limits tab: concurrency limit, monthly spend limit and the countries outbound calls may go to,
 * validated with the contract and stored.
 */
export function LimitsForm() {
  const [numberCountries, setNumberCountries] = useState<readonly string[]>([]);
  const { actor, field, busy } = useSettingsForm(
    { dialog: false, schema: BillingLimitsFormSchema, savedTitle: 'Limits saved' },
    async () => {
      const res = await billing.limits({ notify: false });
      setNumberCountries(res.numberCountries);
      return { values: limitsToForm(res.limits), note: noteOf(res) };
    },
    async (body) => {
      const res = await billing.saveLimits(body as BillingLimitsBody, { notify: false });
      setNumberCountries(res.numberCountries);
      return { values: limitsToForm(res.limits), note: noteOf(res), msg: res.msg ?? BILLING_MESSAGES.limitsSaved };
    },
  );
  const loading = useSelector(actor, (snap) => snap.hasTag('loading'));
  const failed = useSelector(actor, (snap) => snap.matches('failed'));
  const failure = useSelector(actor, (snap) => snap.context.failure);
  const note = useSelector(actor, (snap) => snap.context.note);

  if (loading) return <Loading label="Loading limits" />;
  if (failed)
    return <LoadError what="Could not load your limits." error={failure} onRetry={() => actor.send({ type: 'load.retry' })} />;
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    actor.send({ type: 'form.submit' });
  };
  return (
    <form className={`${pn.panel} ${pn.panelBody}`} noValidate onSubmit={onSubmit} aria-label="Limits">
      <div>
        <h2 className={p.sectionTitle}>Limits</h2>
        <p className={p.muted}>
          Calls and batch calls respect these: how many calls run at once, how much a month may cost, and where calls may go.
        </p>
      </div>
      {failure ? (
        <p className={p.alert} role="alert">
          {failure}
        </p>
      ) : null}
      <div className={s.limitsGrid}>
        <TextField
          label="Concurrency limit"
          inputMode="numeric"
          hint={`Calls placed at the same time, ${CONCURRENCY_LIMIT_MIN} to ${CONCURRENCY_LIMIT_MAX}.`}
          {...field('concurrencyLimit')}
        />
        <TextField
          label="Monthly spend limit (USD)"
          inputMode="decimal"
          leading="$"
          hint={note ?? 'Calls and batch dials of a calendar month may not cost more.'}
          {...field('monthlySpendLimit')}
        />
      </div>
      <TextField
        label="Countries outbound calls may go to"
        autoCapitalize="characters"
        hint={countriesHint(numberCountries)}
        {...field('allowedCountries')}
      />
      <div className={p.row}>
        <Button type="submit" loading={busy}>
          Save limits
        </Button>
        <Button variant="ghost" onClick={() => actor.send({ type: 'form.reset' })} disabled={busy}>
          Reset
        </Button>
      </div>
    </form>
  );
}
