import { memo, type ReactNode, useId, useState } from 'react';
import * as v from 'valibot';
import { AGENT_MESSAGES } from '../../../../api/contract/agent/messages';
import { EDITOR_RANGES } from '../../../../api/contract/agent/ranges';
import {
  ANALYSIS_FIELD_TYPE_LABELS,
  ANALYSIS_FIELD_TYPES,
  type AnalysisField,
  AnalysisFieldSchema,
  type AnalysisFieldType,
  type Pronunciation,
  type PronunciationType,
  type VoicemailAction,
} from '../../../../api/contract/agent/records';
import { DATA_STORAGE_LABELS, DATA_STORAGE_LEVELS, type DataStorage } from '../../../../api/contract/data-storage';
import { Button } from '../../../../ui/button/button';
import { Dialog } from '../../../../ui/dialog/dialog';
import { ChevronDownIcon, ChevronUpIcon, PlusIcon } from '../../../../ui/icons';
import { panel } from '../../../../ui/panel/panel.css';
import { Select } from '../../../../ui/select/select';
import { Slider } from '../../../../ui/slider/slider';
import { Switch } from '../../../../ui/switch/switch';
import { TextField } from '../../../../ui/text-field/text-field';
import { Textarea } from '../../../../ui/textarea/textarea';
import * as s from './editor.css';
import { fieldAttr, PencilIcon, TrashIcon, useField, useFieldError } from './editor-context';

/** A collapsible section of the middle column (a button with aria-expanded over a region). */
export function Section({ title, children, defaultOpen = true }: { title: string; children: ReactNode; defaultOpen?: boolean }) {
  const [open, setOpen] = useState(defaultOpen);
  const id = useId();
  return (
    <section className={panel} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>
        <button type="button" className={s.sectionToggle} aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
          {title}
          {open ? <ChevronUpIcon /> : <ChevronDownIcon />}
        </button>
      </h2>
      {open ? (
        <div id={id} className={s.sectionBody}>
          {children}
        </div>
      ) : null}
    </section>
  );
}

const fixed1 = (n: number) => n.toFixed(1);
const R = EDITOR_RANGES;

// ---------------------------------------------------------------------------------------------
// Speech settings (with pronunciations)

const BACKGROUND_SOUNDS = [
  'None',
  'Coffee shop',
  'Convention hall',
  'Summer outdoor',
  'Mountain outdoor',
  'Static noise',
  'Call center',
];
const SOUND_OPTIONS = BACKGROUND_SOUNDS.map((v) => ({ value: v, label: v }));

function useBoundSlider<K extends 'responsiveness' | 'interruption' | 'backchannelFrequency' | 'ambientSoundVolume'>(field: K) {
  const [value, set] = useField(field);
  return { value: value as number, onValueChange: set as (n: number) => void, error: useFieldError(field) };
}

export const SpeechSection = memo(function SpeechSection() {
  const [backgroundSound, setSound] = useField('backgroundSound');
  const [backchanneling, setBackchanneling] = useField('backchanneling');
  const [words, setWords] = useField('backchannelWords');
  const [normalization, setNormalization] = useField('speechNormalization');
  const [noFormatting, setNoFormatting] = useField('disableTranscriptFormatting');
  const [keywords, setKeywords] = useField('boostedKeywords');
  const responsiveness = useBoundSlider('responsiveness');
  const interruption = useBoundSlider('interruption');
  const frequency = useBoundSlider('backchannelFrequency');
  const ambient = useBoundSlider('ambientSoundVolume');
  return (
    <Section title="Speech Settings">
      <Select
        label="Background Sound"
        value={BACKGROUND_SOUNDS.includes(backgroundSound) ? backgroundSound : 'None'}
        onChange={setSound}
        options={SOUND_OPTIONS}
      />
      {backgroundSound !== 'None' ? (
        <Slider label="Background Sound Volume" {...R.volume} formatValue={fixed1} {...ambient} />
      ) : null}
      <Slider
        label="Responsiveness"
        {...R.responsiveness}
        formatValue={fixed1}
        hint="How quickly the agent answers once the caller stops."
        {...responsiveness}
      />
      <Slider
        label="Interruption Sensitivity"
        {...R.interruption}
        formatValue={fixed1}
        hint="How easily the caller can interrupt the agent."
        {...interruption}
      />
      <Switch
        label="Backchanneling"
        description="Short acknowledgements like 'yeah' while the caller speaks."
        labelFirst
        checked={backchanneling}
        onCheckedChange={setBackchanneling}
      />
      {backchanneling ? (
        <>
          <Slider label="Backchannel Frequency" {...R.backchannelFrequency} formatValue={fixed1} {...frequency} />
          <TextField
            label="Backchannel Words"
            value={words}
            placeholder="yeah, uh-huh, I see"
            hint="Separated by commas."
            onChange={(e) => setWords(e.target.value)}
          />
        </>
      ) : null}
      <Switch
        label="Speech Normalization"
        description="Reads numbers, dates and currencies the way people say them."
        labelFirst
        checked={normalization}
        onCheckedChange={setNormalization}
      />
      <Switch label="Disable Transcript Formatting" labelFirst checked={noFormatting} onCheckedChange={setNoFormatting} />
      <TextField
        label="Boosted Keywords"
        value={keywords}
        placeholder="Parley, appointment, pharmacy"
        hint="Words the transcriber should expect, separated by commas."
        onChange={(e) => setKeywords(e.target.value)}
      />
      <Pronunciations />
    </Section>
  );
});

const PRONUNCIATION_TYPE_OPTIONS = (['IPA', 'CMU'] as PronunciationType[]).map((t) => ({ value: t, label: t }));
interface PronunciationDraft {
  id: string | null;
  word: string;
  type: PronunciationType;
  phoneme: string;
}

/**
 * A list of entries edited in a dialog (pronunciations, analysis fields): each entry with Edit and
 * Delete icon buttons, an Add button, and the dialog whose form the caller gives.
 */
function ListEditor<T>({
  heading,
  listLabel,
  emptyText,
  addLabel,
  items,
  keyOf,
  text,
  meta,
  name,
  editLabel,
  deleteLabel,
  onEdit,
  onDelete,
  onAdd,
  dialog,
}: {
  heading: string;
  listLabel: string;
  emptyText: string;
  addLabel: string;
  items: T[];
  keyOf: (item: T, index: number) => string;
  text: (item: T) => ReactNode;
  meta: (item: T) => ReactNode;
  /** what the Edit/Delete buttons name */
  name: (item: T) => string;
  editLabel: string;
  deleteLabel: string;
  onEdit: (item: T, index: number) => void;
  onDelete: (index: number) => void;
  onAdd: () => void;
  dialog: { open: boolean; title: string; submitLabel: string; onClose: () => void; onSave: () => void; form: ReactNode };
}) {
  return (
    <div className={s.stack}>
      <h3 className={s.lead}>{heading}</h3>
      {items.length === 0 ? <p className={s.muted}>{emptyText}</p> : null}
      <ul className={s.list} aria-label={listLabel}>
        {items.map((item, i) => (
          <li key={keyOf(item, i)} className={s.listItem}>
            <span className={s.itemText}>
              <span>{text(item)}</span>
              <span className={s.itemMeta}>{meta(item)}</span>
            </span>
            <span>
              <Button variant="ghost" size="iconSm" aria-label={`${editLabel} ${name(item)}`} onClick={() => onEdit(item, i)}>
                <PencilIcon />
              </Button>
              <Button variant="ghost" size="iconSm" aria-label={`${deleteLabel} ${name(item)}`} onClick={() => onDelete(i)}>
                <TrashIcon />
              </Button>
            </span>
          </li>
        ))}
      </ul>
      <div>
        <Button size="sm" variant="secondary" onClick={onAdd}>
          <PlusIcon />
          {addLabel}
        </Button>
      </div>
      <Dialog
        open={dialog.open}
        onClose={dialog.onClose}
        title={dialog.title}
        footer={
          <>
            <Button variant="secondary" onClick={dialog.onClose}>
              Cancel
            </Button>
            <Button onClick={dialog.onSave}>{dialog.submitLabel}</Button>
          </>
        }
      >
        {dialog.open ? (
          <form
            className={s.stack}
            onSubmit={(e) => {
              e.preventDefault();
              dialog.onSave();
            }}
          >
            {dialog.form}
          </form>
        ) : null}
      </Dialog>
    </div>
  );
}

function Pronunciations() {
  const [list, setList] = useField('pronunciations');
  const [edit, setEdit] = useState<PronunciationDraft | null>(null);
  const [errors, setErrors] = useState<{ word?: string; phoneme?: string }>({});
  const start = (p?: Pronunciation) => {
    setErrors({});
    setEdit(p ? { ...p } : { id: null, word: '', type: 'IPA', phoneme: '' });
  };
  const save = () => {
    if (!edit) return;
    const problems = {
      word: edit.word.trim() ? undefined : AGENT_MESSAGES.pronunciationWordRequired,
      phoneme: edit.phoneme.trim() ? undefined : AGENT_MESSAGES.phonemeRequired,
    };
    if (problems.word || problems.phoneme) {
      setErrors(problems);
      return;
    }
    const entry: Pronunciation = {
      id: edit.id ?? `p${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`,
      word: edit.word.trim(),
      type: edit.type,
      phoneme: edit.phoneme.trim(),
    };
    setList(edit.id ? list.map((p) => (p.id === edit.id ? entry : p)) : [...list, entry]);
    setEdit(null);
  };
  const editing = edit?.id != null;
  return (
    <ListEditor
      heading="Pronunciations"
      listLabel="Pronunciations"
      emptyText="No pronunciations yet."
      addLabel="Add pronunciation"
      items={list}
      keyOf={(p) => p.id}
      text={(p) => p.word}
      meta={(p) => `${p.type} · ${p.phoneme}`}
      name={(p) => p.word}
      editLabel="Edit pronunciation of"
      deleteLabel="Delete pronunciation of"
      onEdit={(p) => start(p)}
      onDelete={(i) => setList(list.filter((_, j) => j !== i))}
      onAdd={() => start()}
      dialog={{
        open: edit !== null,
        title: editing ? 'Edit Pronunciation' : 'Add Pronunciation',
        submitLabel: editing ? 'Update' : 'Save',
        onClose: () => setEdit(null),
        onSave: save,
        form: edit ? (
          <>
            <TextField
              label="Word"
              value={edit.word}
              onChange={(e) => setEdit({ ...edit, word: e.target.value })}
              error={errors.word}
            />
            <Select
              label="Type"
              value={edit.type}
              onChange={(type) => setEdit({ ...edit, type })}
              options={PRONUNCIATION_TYPE_OPTIONS}
            />
            <TextField
              label="Phoneme"
              value={edit.phoneme}
              placeholder={edit.type === 'IPA' ? 'ˈpɑːrli' : 'P AA1 R L IY0'}
              onChange={(e) => setEdit({ ...edit, phoneme: e.target.value })}
              error={errors.phoneme}
            />
          </>
        ) : null,
      }}
    />
  );
}

// ---------------------------------------------------------------------------------------------
// Call settings

const VOICEMAIL_OPTIONS: { value: VoicemailAction; label: string }[] = [
  { value: 'hang', label: 'Hang up' },
  { value: 'leave', label: 'Leave a message' },
];

/** A number input bound to a numeric field (an empty or non-numeric entry fails validation, never silently 0). */
function NumberField({
  field,
  label,
  hint,
  max,
}: {
  field: 'reminderSeconds' | 'reminderTimes' | 'dtmf_max_digits' | 'dtmf_timeout_ms';
  label: string;
  hint?: string;
  max?: number;
}) {
  const [value, set] = useField(field);
  const error = useFieldError(field);
  return (
    <div {...fieldAttr(field)} className={s.grow}>
      <TextField
        label={label}
        type="number"
        min={0}
        max={max}
        inputMode="numeric"
        value={Number.isFinite(value) ? value : ''}
        onChange={(e) => set(e.target.value === '' ? Number.NaN : Number(e.target.value))}
        hint={hint}
        error={error}
      />
    </div>
  );
}

function useRangeSlider(field: 'voicemailDetectionDuration' | 'endCallOnSilence' | 'maxCallDuration' | 'pauseBeforeSpeaking') {
  const [value, set] = useField(field);
  return { value, onValueChange: set, error: useFieldError(field), ...R[field] };
}

export const CallSection = memo(function CallSection() {
  const [voicemail, setVoicemail] = useField('voicemailDetection');
  const [action, setAction] = useField('voicemailAction');
  const [message, setMessage] = useField('voicemailMessage');
  const duration = useRangeSlider('voicemailDetectionDuration');
  const silence = useRangeSlider('endCallOnSilence');
  const maxDuration = useRangeSlider('maxCallDuration');
  const pause = useRangeSlider('pauseBeforeSpeaking');
  return (
    <Section title="Call Settings">
      <div className={s.row}>
        <NumberField field="reminderSeconds" label="Reminder after (seconds)" hint="Silence before the agent checks in." />
        <NumberField field="reminderTimes" label="Reminder times" hint="How often it checks in." />
      </div>
      <Switch
        label="Voicemail Detection"
        description="Detect answering machines when calling out."
        labelFirst
        checked={voicemail}
        onCheckedChange={setVoicemail}
      />
      {voicemail ? (
        <>
          <Select label="Voicemail Action" value={action} onChange={setAction} options={VOICEMAIL_OPTIONS} />
          <Textarea
            label="Voicemail Message"
            rows={3}
            value={message}
            placeholder="Hi {{name}}, this is the clinic calling about your appointment."
            hint="{{variable}} placeholders are filled from the dynamic variables."
            onChange={(e) => setMessage(e.target.value)}
          />
          <Slider label="Voicemail Detection Duration" formatValue={(n) => `${n} s`} {...duration} />
        </>
      ) : null}
      <Slider label="End Call on Silence" formatValue={(n) => `${n.toFixed(1)} min`} {...silence} />
      <Slider label="Max Call Duration" formatValue={(n) => `${n.toFixed(1)} h`} {...maxDuration} />
      <Slider label="Pause Before Speaking" formatValue={(n) => `${n.toFixed(1)} s`} {...pause} />
      <div className={s.row}>
        <NumberField
          field="dtmf_max_digits"
          label="Keypad digits"
          max={50}
          hint="Keys the caller presses are collected until #, this many digits (0: no count) or the timeout."
        />
        <NumberField field="dtmf_timeout_ms" label="Keypad timeout (ms)" max={30_000} hint="Silence that ends the digits." />
      </div>
    </Section>
  );
});

// ---------------------------------------------------------------------------------------------
// Post call analysis, security, webhooks

export const PostCallSection = memo(function PostCallSection() {
  const [data, setData] = useField('postCallAnalysisData');
  return (
    <Section title="Post Call Analysis">
      <p className={s.muted}>
        After each call the agent's model writes a summary, the caller's sentiment and whether the call achieved its goal, plus
        the fields below.
      </p>
      <Textarea
        label="Post Call Analysis Data"
        rows={4}
        value={data}
        placeholder="What should be extracted from each call? e.g. Was an appointment booked?"
        onChange={(e) => setData(e.target.value)}
      />
      <AnalysisFields />
    </Section>
  );
});

const ANALYSIS_TYPE_OPTIONS = ANALYSIS_FIELD_TYPES.map((t) => ({ value: t, label: ANALYSIS_FIELD_TYPE_LABELS[t] }));

interface AnalysisFieldDraft {
  /** index in the list when editing */
  index: number | null;
  name: string;
  type: AnalysisFieldType;
  description: string;
  /** comma-separated */
  choices: string;
}

/** The agent's custom analysis fields: name, type (text, number, yes/no, one of a list), description. */
function AnalysisFields() {
  const [list, setList] = useField('postCallAnalysisFields');
  const [edit, setEdit] = useState<AnalysisFieldDraft | null>(null);
  const [error, setError] = useState<string | undefined>();
  const start = (f?: AnalysisField, index?: number) => {
    setError(undefined);
    setEdit(
      f
        ? { index: index ?? null, name: f.name, type: f.type, description: f.description, choices: f.choices.join(', ') }
        : { index: null, name: '', type: 'text', description: '', choices: '' },
    );
  };
  const save = () => {
    if (!edit) return;
    const parsed = v.safeParse(AnalysisFieldSchema, {
      name: edit.name.trim(),
      type: edit.type,
      description: edit.description.trim(),
      choices:
        edit.type === 'enum'
          ? edit.choices
              .split(',')
              .map((c) => c.trim())
              .filter(Boolean)
          : [],
    });
    if (!parsed.success) {
      setError(parsed.issues[0]?.message);
      return;
    }
    const others = list.filter((_, i) => i !== edit.index);
    if (others.some((f) => f.name.toLowerCase() === parsed.output.name.toLowerCase())) {
      setError('Field names must be different');
      return;
    }
    setList(edit.index === null ? [...list, parsed.output] : list.map((f, i) => (i === edit.index ? parsed.output : f)));
    setEdit(null);
  };
  return (
    <ListEditor
      heading="Analysis Fields"
      listLabel="Analysis fields"
      emptyText="No custom fields yet."
      addLabel="Add field"
      items={list}
      keyOf={(f) => f.name}
      text={(f) => f.name}
      meta={(f) =>
        `${ANALYSIS_FIELD_TYPE_LABELS[f.type]}${f.type === 'enum' ? `: ${f.choices.join(', ')}` : ''}${f.description ? ` · ${f.description}` : ''}`
      }
      name={(f) => f.name}
      editLabel="Edit analysis field"
      deleteLabel="Delete analysis field"
      onEdit={(f, i) => start(f, i)}
      onDelete={(i) => setList(list.filter((_, j) => j !== i))}
      onAdd={() => start()}
      dialog={{
        open: edit !== null,
        title: edit?.index != null ? 'Edit Analysis Field' : 'Add Analysis Field',
        submitLabel: edit?.index != null ? 'Update' : 'Save',
        onClose: () => setEdit(null),
        onSave: save,
        form: edit ? (
          <>
            <TextField
              label="Field name"
              value={edit.name}
              placeholder="appointment_booked"
              onChange={(e) => setEdit({ ...edit, name: e.target.value })}
              error={error}
            />
            <Select
              label="Field type"
              value={edit.type}
              onChange={(type) => setEdit({ ...edit, type })}
              options={ANALYSIS_TYPE_OPTIONS}
            />
            {edit.type === 'enum' ? (
              <TextField
                label="Choices"
                hint="Comma-separated, at least 2."
                value={edit.choices}
                placeholder="sales, support, billing"
                onChange={(e) => setEdit({ ...edit, choices: e.target.value })}
              />
            ) : null}
            <TextField
              label="Description"
              value={edit.description}
              placeholder="What the model should look for"
              onChange={(e) => setEdit({ ...edit, description: e.target.value })}
            />
          </>
        ) : null,
      }}
    />
  );
}

const DATA_STORAGE_DESCRIPTIONS: Record<DataStorage, string> = {
  everything: 'Transcripts, recordings, analysis and function calls as they were said.',
  everything_but_pii:
    'Phone numbers, emails, birth dates, SSNs, card numbers, addresses and names replaced by markers such as [PHONE]. No recording is kept.',
  metadata_only: 'Time, duration, numbers, status, reason, cost and latency only. Nothing that was said is kept or sent.',
};
const DATA_STORAGE_OPTIONS = DATA_STORAGE_LEVELS.map((value) => ({
  value,
  label: DATA_STORAGE_LABELS[value],
  description: DATA_STORAGE_DESCRIPTIONS[value],
}));

export const SecuritySection = memo(function SecuritySection() {
  const [level, setLevel] = useField('dataStorage');
  const [, setSensitive] = useField('sensitiveDataStorage');
  const [redact, setRedact] = useField('redactRecordings');
  const [record, setRecord] = useField('recordCalls');
  const [notice, setNotice] = useField('recordingNotice');
  const noticeError = useFieldError('recordingNotice');
  return (
    <Section title="Security">
      <div {...fieldAttr('dataStorage')}>
        <Select
          label="Data storage"
          value={level}
          onChange={(next) => {
            setLevel(next);
            // the old switch is kept in step: it is what older clients read
            setSensitive(next !== 'metadata_only');
          }}
          options={DATA_STORAGE_OPTIONS}
          hint="What Parley keeps of each call. The agent hears everything either way."
        />
      </div>
      {level === 'everything_but_pii' ? (
        <Switch
          label="Redact recordings"
          description="Keep recordings with the personal data silenced. Until word times are available no recording is kept at this level."
          labelFirst
          checked={redact}
          onCheckedChange={setRedact}
        />
      ) : null}
      <Switch
        label="Record calls"
        description="Keep a recording of each call (at Everything)."
        labelFirst
        checked={record}
        onCheckedChange={setRecord}
      />
      <div {...fieldAttr('recordingNotice')}>
        <TextField
          label="Recording notice"
          value={notice}
          placeholder="This call may be recorded."
          hint="Spoken before the welcome message on web and phone calls. Empty: none."
          error={noticeError}
          onChange={(e) => setNotice(e.target.value)}
        />
      </div>
    </Section>
  );
});

function UrlField({ field, label }: { field: 'inboundCallWebhook' | 'agentLevelWebhook'; label: string }) {
  const [value, set] = useField(field);
  const error = useFieldError(field);
  return (
    <div {...fieldAttr(field)}>
      <TextField
        label={label}
        type="url"
        inputMode="url"
        value={value}
        placeholder="https://"
        onChange={(e) => set(e.target.value)}
        error={error}
        hint="A valid URL, or empty."
      />
    </div>
  );
}

export const WebhookSection = memo(function WebhookSection() {
  return (
    <Section title="Webhook Settings">
      <UrlField field="inboundCallWebhook" label="Inbound Call Webhook URL" />
      <UrlField field="agentLevelWebhook" label="Agent Level Webhook URL" />
    </Section>
  );
});
