import { useActorRef, useSelector } from '@xstate/react';
import { forwardRef, memo, type ReactNode, useEffect, useMemo, useRef } from 'react';
import { fromPromise } from 'xstate';
import { EDITOR_RANGES } from '../../../../api/contract/agent/ranges';
import { LANGUAGES, LLM_MODELS, VOICE_MODELS } from '../../../../api/contract/models';
import type { Voice, VoicesResponse } from '../../../../api/contract/voice';
import { voices as voicesApi } from '../../../../api/voices';
import { remoteListMachine } from '../../../../machines/remoteList.machine';
import { Button, type ButtonProps } from '../../../../ui/button/button';
import { Popover } from '../../../../ui/popover/popover';
import { Select } from '../../../../ui/select/select';
import { visuallyHidden } from '../../../../ui/shared.css';
import { Slider } from '../../../../ui/slider/slider';
import { Spinner } from '../../../../ui/spinner/spinner';
import { Switch } from '../../../../ui/switch/switch';
import { Textarea } from '../../../../ui/textarea/textarea';
import * as s from './editor.css';
import { fieldAttr, SlidersIcon, useEditor, useField, useFieldError } from './editor-context';

const MODEL_OPTIONS = LLM_MODELS.map((m) => ({ value: m.id, label: m.label, description: `$${m.pricePerMinute}/min` }));
const LANGUAGE_OPTIONS = LANGUAGES.map((l) => ({ value: l.code, label: l.label }));
const VOICE_MODEL_OPTIONS = VOICE_MODELS.map((m) => ({ value: m.id, label: m.label, description: m.note }));

const fixed1 = (n: number) => n.toFixed(1);

/** A settings button with the spec's blue dot when its values differ from the defaults. */
const SettingsTrigger = forwardRef<HTMLButtonElement, ButtonProps & { label: string; modified: boolean }>(
  function SettingsTrigger({ label, modified, ...rest }, ref) {
    return (
      <Button ref={ref} variant="secondary" className={s.dotted} data-modified={modified || undefined} {...rest}>
        <SlidersIcon />
        {label}
        {modified ? (
          <>
            <span className={s.dot} aria-hidden="true" />
            <span className={visuallyHidden}> (changed)</span>
          </>
        ) : null}
      </Button>
    );
  },
);

export const ModelPicker = memo(function ModelPicker() {
  const [llmModel, setModel] = useField('llmModel');
  const error = useFieldError('llmModel');
  return (
    <div {...fieldAttr('llmModel')} className={s.grow}>
      <Select label="LLM Model" value={llmModel} onChange={setModel} options={MODEL_OPTIONS} error={error} />
    </div>
  );
});

export const LlmSettings = memo(function LlmSettings() {
  const [settings, set] = useField('llmSettings');
  const tempError = useFieldError('llmSettings.temperature');
  const modified = settings.structuredOutput || settings.highPriority || settings.temperature > 0;
  const r = EDITOR_RANGES.llmTemperature;
  return (
    <Popover title="LLM Settings" trigger={<SettingsTrigger label="LLM Settings" modified={modified} />}>
      <div className={s.stack}>
        <Slider
          label="Temperature"
          min={r.min}
          max={r.max}
          step={r.step}
          value={settings.temperature}
          formatValue={fixed1}
          onValueChange={(temperature) => set({ ...settings, temperature })}
          hint="Lower is more predictable, higher more varied."
          error={tempError}
        />
        <Switch
          label="Structured Output"
          labelFirst
          checked={settings.structuredOutput}
          onCheckedChange={(structuredOutput) => set({ ...settings, structuredOutput })}
        />
        <Switch
          label="High Priority"
          labelFirst
          checked={settings.highPriority}
          onCheckedChange={(highPriority) => set({ ...settings, highPriority })}
        />
      </div>
    </Popover>
  );
});

export const LanguagePicker = memo(function LanguagePicker() {
  const [language, setLanguage] = useField('language');
  const error = useFieldError('language');
  return (
    <div {...fieldAttr('language')} className={s.grow}>
      <Select label="Language" value={language} onChange={setLanguage} options={LANGUAGE_OPTIONS} error={error} />
    </div>
  );
});

export const VoiceSettings = memo(function VoiceSettings() {
  const [vs, set] = useField('voiceSettings');
  const modified = vs.speed !== 1 || vs.temperature !== 1 || vs.volume !== 1;
  const speedError = useFieldError('voiceSettings.speed');
  const tempError = useFieldError('voiceSettings.temperature');
  const volumeError = useFieldError('voiceSettings.volume');
  const R = EDITOR_RANGES;
  return (
    <Popover title="Voice Settings" trigger={<SettingsTrigger label="Voice Settings" modified={modified} />}>
      <div className={s.stack}>
        <Select label="Voice Model" value={vs.model} onChange={(model) => set({ ...vs, model })} options={VOICE_MODEL_OPTIONS} />
        <Slider
          label="Speed"
          {...R.voiceSpeed}
          value={vs.speed}
          formatValue={fixed1}
          onValueChange={(speed) => set({ ...vs, speed })}
          error={speedError}
        />
        <Slider
          label="Temperature"
          {...R.voiceTemperature}
          value={vs.temperature}
          formatValue={fixed1}
          onValueChange={(temperature) => set({ ...vs, temperature })}
          error={tempError}
        />
        <Slider
          label="Volume"
          {...R.volume}
          value={vs.volume}
          formatValue={fixed1}
          onValueChange={(volume) => set({ ...vs, volume })}
          error={volumeError}
        />
      </div>
    </Popover>
  );
});

/** The voice picker: the server's voice list (GET /voices), asked once the session has hydrated. */
export const VoicePicker = memo(function VoicePicker({ whenHydrated }: { whenHydrated: () => Promise<unknown> }) {
  const editor = useEditor();
  const voiceId = useSelector(editor, (snap) => snap.context.form.voiceId);
  const voiceName = useSelector(editor, (snap) => snap.context.form.voice);
  const error = useFieldError('voice');
  const list = useActorRef(
    remoteListMachine.provide({
      actors: {
        load: fromPromise<unknown>(async () => {
          await whenHydrated();
          return voicesApi.list({ notify: false });
        }),
      },
    }),
  );
  const loading = useSelector(list, (snap) => snap.hasTag('loading'));
  const failed = useSelector(list, (snap) => snap.hasTag('failed'));
  const answer = useSelector(list, (snap) => snap.context.data as VoicesResponse | undefined);
  const voices: Voice[] = answer?.voices ?? [];
  const options = useMemo(() => {
    const opts = voices.map((v) => ({
      value: v.voice_id,
      label: v.name,
      description: [v.labels?.gender, v.source === 'elevenlabs' ? 'your ElevenLabs account' : undefined]
        .filter(Boolean)
        .join(' · '),
    }));
    // a saved voice the list no longer has stays selectable under its saved name
    if (voiceId && !voices.some((v) => v.voice_id === voiceId))
      opts.unshift({ value: voiceId, label: voiceName || voiceId, description: '' });
    return opts;
  }, [voices, voiceId, voiceName]);

  let status: ReactNode = null;
  if (loading)
    status = (
      <p className={s.muted} role="status">
        <Spinner size="sm" decorative /> Loading voices...
      </p>
    );
  else if (failed)
    status = (
      <div className={s.row} role="alert">
        <span className={s.error}>Failed to load voices</span>
        <Button size="sm" variant="secondary" onClick={() => list.send({ type: 'list.retry' })}>
          Retry
        </Button>
      </div>
    );
  else if (voices.length === 0)
    status = (
      <p className={s.muted} role="status">
        No voices available
      </p>
    );
  else if (answer?.notice)
    status = (
      <p className={s.muted} role="status">
        {answer.notice}
      </p>
    );

  return (
    <div {...fieldAttr('voice')}>
      <Select
        label="Voice"
        value={voiceId}
        placeholder={loading ? 'Loading voices...' : 'Choose a voice'}
        onChange={(id) => {
          const chosen = voices.find((v) => v.voice_id === id);
          editor.send({ type: 'voice.choose', voiceId: id, name: chosen?.name ?? voiceName });
        }}
        options={options}
        disabled={loading && options.length === 0}
        error={error}
      />
      {status}
    </div>
  );
});

export const WelcomeMessage = memo(function WelcomeMessage() {
  const [message, setMessage] = useField('welcomeMessage');
  const error = useFieldError('welcomeMessage');
  return (
    <div {...fieldAttr('welcomeMessage')}>
      <Textarea
        label="Welcome Message"
        rows={3}
        value={message}
        placeholder="Hello! Thanks for calling. How can I help you today?"
        onChange={(e) => setMessage(e.target.value)}
        hint="The first thing the agent says. Leave empty to let the caller speak first."
        error={error}
      />
    </div>
  );
});

/**
 * The large prompt. Uncontrolled on purpose: a keystroke only tells the machine (no React render of a
 * 20,000-character textarea); a change from elsewhere (draft restored, edits discarded) is written into
 * the element when it differs from what it shows.
 */
export const PromptField = memo(function PromptField() {
  const editor = useEditor();
  const ref = useRef<HTMLTextAreaElement>(null);
  const error = useFieldError('promptText');
  useEffect(() => {
    const sync = (value: string) => {
      if (ref.current && ref.current.value !== value) ref.current.value = value;
    };
    sync(editor.getSnapshot().context.form.promptText);
    const sub = editor.subscribe((snap) => sync(snap.context.form.promptText));
    return () => sub.unsubscribe();
  }, [editor]);
  return (
    <div {...fieldAttr('promptText')}>
      <Textarea
        ref={ref}
        label="Prompt"
        rows={18}
        className={s.prompt}
        defaultValue={editor.getSnapshot().context.form.promptText}
        placeholder="You are a friendly receptionist for ... Describe the agent's role, tone and what it should do."
        onChange={(e) => editor.send({ type: 'field.change', field: 'promptText', value: e.target.value })}
        spellCheck={false}
        error={error}
      />
    </div>
  );
});
