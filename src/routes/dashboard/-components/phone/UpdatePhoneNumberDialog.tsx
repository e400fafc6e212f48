import { useSelector } from '@xstate/react';
import { type FormEvent, useId } from 'react';
import type { ActorRefFrom } from 'xstate';
import { PHONE_NUMBER_TYPE_LABELS, PHONE_NUMBER_TYPES, PHONE_PROVIDER_LABELS } from '../../../../api/contract/phone';
import type { PhoneFormField, phoneNumberUpdateMachine } from '../../../../machines/phoneNumberUpdate.machine';
import { Dialog } from '../../../../ui/dialog/dialog';
import { Select } from '../../../../ui/select/select';
import { TextField } from '../../../../ui/text-field/text-field';
import { FormDialogFooter } from './FormDialogFooter';
import * as s from './phone.css';

export type PhoneNumberUpdateActor = ActorRefFrom<typeof phoneNumberUpdateMachine>;

const TYPE_OPTIONS = PHONE_NUMBER_TYPES.map((t) => ({ value: t, label: PHONE_NUMBER_TYPE_LABELS[t] }));

type TextFieldName = Exclude<PhoneFormField, 'phone_number_type'>;
const TEXT_FIELDS: Record<TextFieldName, { label: string; placeholder: string; required?: boolean; hint?: string }> = {
  phone_number: {
    label: 'Phone number',
    placeholder: '+14155550123',
    required: true,
    hint: 'E.164, or 10 digits for the US and Canada.',
  },
  phone_number_pretty: { label: 'Pretty phone number', placeholder: '(415) 555-0123', required: true },
  termination_uri: { label: 'Termination URI', placeholder: 'example.pstn.twilio.com', required: true },
  nickname: { label: 'Nickname', placeholder: 'e.g. Front desk' },
  assistantId: { label: 'Assistant ID', placeholder: 'Optional' },
  area_code: { label: 'Area code', placeholder: 'e.g. 415' },
};

/** 'Update Phone Number', driven by the phoneNumberUpdate machine. */
export function UpdatePhoneNumberDialog({ actor }: { actor: PhoneNumberUpdateActor }) {
  const formId = useId();
  const open = useSelector(actor, (snap) => snap.hasTag('open'));
  const busy = useSelector(actor, (snap) => snap.hasTag('busy'));
  const { number, values, errors } = useSelector(actor, (snap) => snap.context);

  const change = (field: PhoneFormField, value: string) => actor.send({ type: 'field.change', field, value });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    actor.send({ type: 'form.submit' });
  };
  const text = (field: TextFieldName) => {
    const f = TEXT_FIELDS[field];
    return (
      <TextField
        label={f.label}
        placeholder={f.placeholder}
        hint={f.hint}
        required={f.required}
        inputMode={field === 'area_code' ? 'numeric' : field === 'phone_number' ? 'tel' : undefined}
        value={values[field]}
        error={errors[field]}
        disabled={busy}
        autoFocus={field === 'phone_number'}
        onChange={(e) => change(field, e.currentTarget.value)}
      />
    );
  };
  const readOnly = (label: string, value: string) => (
    <TextField label={label} value={value} readOnly hint="Set by Parley; cannot be changed." />
  );

  return (
    <Dialog
      open={open}
      onClose={() => actor.send({ type: 'dialog.close' })}
      hideOnInteractOutside={false}
      title="Update Phone Number"
      description={
        number
          ? `${PHONE_PROVIDER_LABELS[number.provider]} number. Agents are set with 'Assign Agent' in the row's menu.`
          : undefined
      }
      size="lg"
      footer={
        <FormDialogFooter
          formId={formId}
          busy={busy}
          onCancel={() => actor.send({ type: 'dialog.close' })}
          saveLabel="Save changes"
        />
      }
    >
      <form id={formId} className={s.form} noValidate onSubmit={onSubmit} aria-label="Update Phone Number">
        <div className={s.grid}>
          {text('phone_number')}
          {text('phone_number_pretty')}
          <Select
            label="Phone number type"
            value={values.phone_number_type}
            options={TYPE_OPTIONS}
            placeholder="Choose a type"
            error={errors.phone_number_type}
            disabled={busy}
            onChange={(value) => change('phone_number_type', value)}
          />
          {text('area_code')}
        </div>
        {text('termination_uri')}
        <div className={s.grid}>
          {text('nickname')}
          {text('assistantId')}
        </div>
        <div className={s.grid}>
          {readOnly('Account ID', number?.accountId ?? '')}
          {readOnly('Company ID', number?.companyId ?? '')}
        </div>
      </form>
    </Dialog>
  );
}
