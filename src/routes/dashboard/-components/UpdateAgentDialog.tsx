import { useSelector } from '@xstate/react';
import { type FormEvent, type ReactNode, useId } from 'react';
import type { ActorRefFrom } from 'xstate';
import type { AgentDialogForm } from '../../../api/contract/agent/dialog';
import { DIALOG_RANGES } from '../../../api/contract/agent/ranges';
import { LANGUAGES, VOICE_MODELS } from '../../../api/contract/models';
import type { AgentDialogField, agentUpdateMachine } from '../../../machines/agentUpdate.machine';
import { Button } from '../../../ui/button/button';
import { Dialog } from '../../../ui/dialog/dialog';
import { Select, type SelectOption } from '../../../ui/select/select';
import { Slider } from '../../../ui/slider/slider';
import { Switch } from '../../../ui/switch/switch';
import { TextField } from '../../../ui/text-field/text-field';
import * as s from './agents.css';

export type AgentUpdateActor = ActorRefFrom<typeof agentUpdateMachine>;

const VOICE_MODEL_OPTIONS = VOICE_MODELS.map((m) => ({ value: m.id, label: m.label, description: m.note }));
const LANGUAGE_OPTIONS = LANGUAGES.map((l) => ({ value: l.code, label: l.label, description: l.code }));

type NumberField = Extract<
  AgentDialogField,
  'end_call_after_silence_ms' | 'max_call_duration_ms' | 'voicemail_detection_timeout_ms'
>;
type SliderField = keyof typeof DIALOG_RANGES;
type SwitchField = Extract<
  AgentDialogField,
  'enable_backchannel' | 'opt_out_sensitive_data_storage' | 'normalize_for_speech' | 'enable_voicemail_detection'
>;

const SLIDER_LABELS: Record<SliderField, string> = {
  voice_temperature: 'Voice temperature',
  voice_speed: 'Voice speed',
  volume: 'Volume',
  backchannel_frequency: 'Backchannel frequency',
  interruption_sensitivity: 'Interruption sensitivity',
  ambient_sound_volume: 'Ambient sound volume',
};

/** A titled group of fields. */
function Section({ legend, children }: { legend: string; children: ReactNode }) {
  return (
    <fieldset className={s.section}>
      <legend className={s.legend}>{legend}</legend>
      {children}
    </fieldset>
  );
}

/** One decimal, as the sliders step (0.1). */
const oneDecimal = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '');

/** 'Update Agent': the agent edit form, driven by the agentUpdate machine. */
export function UpdateAgentDialog({ actor }: { actor: AgentUpdateActor }) {
  const formId = useId();
  const open = useSelector(actor, (snap) => snap.hasTag('open'));
  const busy = useSelector(actor, (snap) => snap.hasTag('busy'));
  const values = useSelector(actor, (snap) => snap.context.values);
  const errors = useSelector(actor, (snap) => snap.context.errors);

  const change = <K extends AgentDialogField>(field: K, value: AgentDialogForm[K]) =>
    actor.send({ type: 'field.change', field, value } as Parameters<AgentUpdateActor['send']>[0]);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    actor.send({ type: 'form.submit' });
  };

  const text = (field: 'agent_name' | 'voice_id', label: string, placeholder: string) => (
    <TextField
      label={label}
      placeholder={placeholder}
      value={values[field]}
      error={errors[field]}
      disabled={busy}
      required
      // the dialog opens on its first field
      autoFocus={field === 'agent_name'}
      onChange={(e) => change(field, e.currentTarget.value)}
    />
  );
  const choice = (
    field: 'voice_model' | 'language',
    label: string,
    options: ReadonlyArray<SelectOption>,
    placeholder: string,
  ) => (
    <Select
      label={label}
      value={values[field]}
      options={options}
      placeholder={placeholder}
      error={errors[field]}
      disabled={busy}
      onChange={(value) => change(field, value)}
    />
  );
  const slider = (field: SliderField) => (
    <Slider
      label={SLIDER_LABELS[field]}
      {...DIALOG_RANGES[field]}
      value={values[field]}
      formatValue={oneDecimal}
      error={errors[field]}
      disabled={busy}
      onValueChange={(n) => change(field, n)}
    />
  );
  const toggle = (field: SwitchField, label: string, description?: string) => (
    <Switch
      label={label}
      description={description}
      labelFirst
      checked={values[field]}
      disabled={busy}
      onCheckedChange={(checked) => change(field, checked)}
    />
  );
  const ms = (field: NumberField, label: string, hint: string) => (
    <TextField
      label={label}
      type="number"
      inputMode="numeric"
      min={1}
      step={1}
      hint={hint}
      value={Number.isNaN(values[field]) ? '' : String(values[field])}
      error={errors[field]}
      disabled={busy}
      onChange={(e) => change(field, e.currentTarget.value.trim() === '' ? Number.NaN : Number(e.currentTarget.value))}
    />
  );

  return (
    <Dialog
      open={open}
      onClose={() => actor.send({ type: 'dialog.close' })}
      hideOnInteractOutside={false}
      title="Update Agent"
      description="Change the agent's voice and call settings. The prompt and functions are edited in the agent editor."
      size="lg"
      footer={
        <>
          <Button variant="secondary" disabled={busy} onClick={() => actor.send({ type: 'dialog.close' })}>
            Cancel
          </Button>
          <Button type="submit" form={formId} loading={busy}>
            Save changes
          </Button>
        </>
      }
    >
      <form id={formId} className={s.form} noValidate onSubmit={onSubmit} aria-label="Update Agent">
        <Section legend="Agent">
          <div className={s.grid}>
            {text('agent_name', 'Agent name', 'e.g. Front desk')}
            {text('voice_id', 'Voice ID', 'e.g. 21m00Tcm4TlvDq8ikWAM')}
            {choice('voice_model', 'Voice model', VOICE_MODEL_OPTIONS, 'Choose a voice model')}
            {choice('language', 'Language', LANGUAGE_OPTIONS, 'Choose a language')}
          </div>
        </Section>

        <Section legend="Voice">
          <div className={s.grid}>
            {slider('voice_temperature')}
            {slider('voice_speed')}
            {slider('volume')}
            {slider('ambient_sound_volume')}
          </div>
        </Section>

        <Section legend="Conversation">
          <div className={s.grid}>
            {slider('interruption_sensitivity')}
            <div className={s.stack}>
              {toggle(
                'enable_backchannel',
                'Enable backchannel',
                'Short acknowledgements such as "mm-hmm" while the caller talks.',
              )}
              {values.enable_backchannel ? slider('backchannel_frequency') : null}
            </div>
          </div>
          {toggle('normalize_for_speech', 'Normalize for speech', 'Read numbers, dates and currencies the way people say them.')}
          {toggle(
            'opt_out_sensitive_data_storage',
            'Opt out of sensitive data storage',
            'Do not keep transcripts and recordings of calls.',
          )}
        </Section>

        <Section legend="Call limits">
          <div className={s.grid}>
            {ms('end_call_after_silence_ms', 'End call after silence (ms)', 'Hang up after this much silence. 33000 = 33 s.')}
            {ms('max_call_duration_ms', 'Max call duration (ms)', 'The longest a call may last. 1242000 = 20.7 min.')}
          </div>
          {toggle('enable_voicemail_detection', 'Enable voicemail detection', 'Notice when a voicemail answers the call.')}
          {ms(
            'voicemail_detection_timeout_ms',
            'Voicemail detection timeout (ms)',
            'How long to listen for a voicemail. 30000 = 30 s.',
          )}
        </Section>
      </form>
    </Dialog>
  );
}
