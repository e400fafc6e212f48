import { useSelector } from '@xstate/react';
import type { FormEvent } from 'react';
import { billing } from '../../../../api/billing';
import { BILLING_MESSAGES, type BillingContact, BillingContactSchema } from '../../../../api/contract/billing';
import type { FormValues } from '../../../../machines/settingsForm.machine';
import { Button } from '../../../../ui/button/button';
import { Dialog } from '../../../../ui/dialog/dialog';
import { TextField } from '../../../../ui/text-field/text-field';
import { Textarea } from '../../../../ui/textarea/textarea';
import * as p from '../page.css';
import { LoadError, Loading } from '../QueryStates';
import * as s from './billing.css';
import { useSettingsForm } from './useSettingsForm';

const FORM_ID = 'billing-contact-form';

/**
 * 'Manage billing info': the billing contact stored on the company, used on invoices. How costs are paid
 * is explained by PaymentMethodsDialog.tsx ('Change payment methods').
 */
export function useContactDialog() {
  const form = useSettingsForm(
    { dialog: true, schema: BillingContactSchema, savedTitle: 'Billing information saved' },
    async () => ({ values: (await billing.contact({ notify: false })).contact as FormValues }),
    async (body) => {
      const res = await billing.saveContact(body as BillingContact, { notify: false });
      return { values: res.contact as FormValues, msg: res.msg ?? BILLING_MESSAGES.contactSaved };
    },
  );
  return { ...form, open: () => form.actor.send({ type: 'dialog.open' }) };
}

export function ContactDialog({ form }: { form: ReturnType<typeof useContactDialog> }) {
  const { actor, field, busy } = form;
  const open = useSelector(actor, (snap) => snap.hasTag('open'));
  const loading = useSelector(actor, (snap) => snap.hasTag('loading'));
  const failed = useSelector(actor, (snap) => snap.matches('failed'));
  const failure = useSelector(actor, (snap) => snap.context.failure);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    actor.send({ type: 'form.submit' });
  };
  return (
    <Dialog
      open={open}
      onClose={() => actor.send({ type: 'dialog.close' })}
      title="Billing information"
      description="The contact and address printed on your invoices."
      footer={
        <>
          <Button variant="secondary" onClick={() => actor.send({ type: 'dialog.close' })} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" form={FORM_ID} loading={busy} disabled={loading || failed}>
            Save
          </Button>
        </>
      }
    >
      {loading ? <Loading label="Loading billing information" /> : null}
      {failed ? (
        <LoadError
          what="Could not load your billing information."
          error={failure}
          onRetry={() => actor.send({ type: 'load.retry' })}
        />
      ) : null}
      {!loading && !failed ? (
        <form id={FORM_ID} className={s.form} noValidate onSubmit={onSubmit} aria-label="Billing information">
          {failure ? (
            <p className={p.alert} role="alert">
              {failure}
            </p>
          ) : null}
          <TextField label="Name" autoComplete="organization" required {...field('name')} />
          <TextField label="Email" type="email" autoComplete="email" required {...field('email')} />
          <Textarea label="Address" rows={3} autoComplete="street-address" {...field('address')} />
          <TextField label="Tax ID" hint="VAT or other tax number, printed on invoices." {...field('taxId')} />
        </form>
      ) : null}
    </Dialog>
  );
}
