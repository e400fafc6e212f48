import { useSelector } from '@xstate/react';
import { type FormEvent, useId, useState } from 'react';
import { PROVIDER_MESSAGES } from '../../../../api/contract/provider';
import type { CredentialField } from '../../../../machines/providerConnection.machine';
import { Button } from '../../../../ui/button/button';
import { Dialog } from '../../../../ui/dialog/dialog';
import { Icon } from '../../../../ui/icons';
import { Spinner } from '../../../../ui/spinner/spinner';
import { TextField } from '../../../../ui/text-field/text-field';
import type { ProviderConnectionActor } from './ProviderCard';
import * as s from './providers.css';

const EyeIcon = () => <Icon d="M2 12s3-7 10-7 10 7 10 7-3 7-10 7-10-7-10-7zM12 15a3 3 0 1 0 0-6 3 3 0 0 0 0 6z" />;
const EyeOffIcon = () => (
  <Icon d="M9.9 4.2A10 10 0 0 1 12 4c7 0 10 8 10 8a18 18 0 0 1-2.2 3.2M6.6 6.6A18 18 0 0 0 2 12s3 8 10 8a10 10 0 0 0 5.4-1.6M2 2l20 20M9.9 9.9a3 3 0 0 0 4.2 4.2" />
);

/** 'Connect {provider}' or 'Update {provider}': the provider's credential fields, driven by its machine. */
export function ProviderDialog({ actor }: { actor: ProviderConnectionActor }) {
  const open = useSelector(actor, (snap) => snap.hasTag('open'));
  const label = useSelector(actor, (snap) => snap.context.label);
  const updating = useSelector(actor, (snap) => snap.context.connected);
  const formId = useId();
  const editing = useSelector(actor, (snap) => snap.hasTag('editing') || snap.hasTag('busy'));
  const saving = useSelector(actor, (snap) => snap.hasTag('busy'));

  return (
    <Dialog
      open={open}
      onClose={() => actor.send({ type: 'dialog.close' })}
      hideOnEscape={!saving}
      hideOnInteractOutside={!saving}
      title={`${updating ? 'Update' : 'Connect'} ${label}`}
      description={
        updating
          ? 'Stored values are shown masked. Keep a value as it is to keep it, or replace it.'
          : `Enter the credentials of your ${label} account. They are encrypted before they are stored.`
      }
      footer={
        editing ? (
          <>
            <Button variant="secondary" onClick={() => actor.send({ type: 'dialog.close' })} disabled={saving}>
              Cancel
            </Button>
            <Button type="submit" form={formId} loading={saving}>
              {/* the server tries the key with the provider before saving */}
              {saving ? 'Checking…' : updating ? 'Update' : 'Connect'}
            </Button>
          </>
        ) : null
      }
    >
      <DialogBody actor={actor} formId={formId} />
    </Dialog>
  );
}

function DialogBody({ actor, formId }: { actor: ProviderConnectionActor; formId: string }) {
  const loading = useSelector(actor, (snap) => snap.hasTag('loading'));
  const failed = useSelector(actor, (snap) => snap.hasTag('fieldsFailed'));
  const fields = useSelector(actor, (snap) => snap.context.fields);
  const values = useSelector(actor, (snap) => snap.context.values);
  const errors = useSelector(actor, (snap) => snap.context.fieldErrors);
  const saving = useSelector(actor, (snap) => snap.hasTag('busy'));

  if (loading) {
    return (
      <div className={s.centered}>
        <Spinner label="Loading provider fields" />
      </div>
    );
  }
  if (failed) {
    return (
      <div className={s.centered}>
        <p role="alert">{PROVIDER_MESSAGES.fieldsLoadFailed}</p>
        <Button variant="secondary" onClick={() => actor.send({ type: 'fields.retry' })}>
          Retry
        </Button>
      </div>
    );
  }
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    actor.send({ type: 'form.submit' });
  };
  return (
    <form id={formId} className={s.form} noValidate onSubmit={onSubmit} aria-label="Credentials">
      {fields.map((field, i) => (
        <CredentialInput
          key={field.name}
          field={field}
          value={values[field.name] ?? ''}
          error={errors[field.name]}
          disabled={saving}
          autoFocus={i === 0}
          onChange={(value) => actor.send({ type: 'field.change', name: field.name, value })}
        />
      ))}
      <p className={s.note}>
        {fields.some((f) => f.optional) ? 'Fields marked optional may be left empty.' : 'Every field is required.'} Keys are
        encrypted at rest and never shown again in full.
      </p>
    </form>
  );
}

/** What an optional field is for, under its input. */
const optionalHint = (field: CredentialField) =>
  field.url
    ? 'Optional. An OpenAI-compatible server of your own (vLLM, Ollama), e.g. https://llm.example.com/v1. Empty: OpenAI.'
    : 'Optional.';

interface CredentialInputProps {
  field: CredentialField;
  value: string;
  /** what is wrong with it: empty, or the provider refused it (its reason) */
  error: string | undefined;
  disabled: boolean;
  autoFocus: boolean;
  onChange: (value: string) => void;
}

/** A text input, required unless the field is optional; a secret is a password input with a show/hide toggle. */
function CredentialInput({ field, value, error, disabled, autoFocus, onChange }: CredentialInputProps) {
  const [shown, setShown] = useState(false);
  const input = (
    <TextField
      containerClassName={field.secret ? s.grow : undefined}
      label={field.name}
      type={field.secret && !shown ? 'password' : field.url ? 'url' : 'text'}
      required={!field.optional}
      hint={field.optional ? optionalHint(field) : undefined}
      error={error}
      value={value}
      disabled={disabled}
      autoFocus={autoFocus}
      autoComplete={field.secret ? 'new-password' : 'off'}
      spellCheck={false}
      autoCapitalize="off"
      // a stored value shows as its mask: focusing selects it, so typing replaces it
      onFocus={(e) => e.currentTarget.select()}
      onChange={(e) => onChange(e.currentTarget.value)}
    />
  );
  if (!field.secret) return input;
  return (
    <div className={s.secretRow}>
      {input}
      <Button
        variant="secondary"
        size="icon"
        aria-label={`Show ${field.name}`}
        aria-pressed={shown}
        disabled={disabled}
        onClick={() => setShown((v) => !v)}
      >
        {shown ? <EyeOffIcon /> : <EyeIcon />}
      </Button>
    </div>
  );
}
