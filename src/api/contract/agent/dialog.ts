/**
 * The Update Agent dialog (the specification's 'Agent edit form', the specification's 'Agent edit dialog') and PUT /agent/{id}.
 * The dialog's flat fields are a VIEW of the stored document (`agentDialogFields`) and a dialog save is
 * a PATCH onto it (`applyDialogPatch`):
 *
 * | dialog field                    | stored at                                                        |
 * |---------------------------------|------------------------------------------------------------------|
 * | agent_name                      | name (also answered as agent_name)                               |
 * | voice_id                        | settings.tts.options.voice_id                                    |
 * | voice_model                     | settings.tts.options.model + editor.voiceSettings.model          |
 * | language                        | settings.stt.options.language (BCP-47 code)                      |
 * | voice_speed                     | settings.tts.options.speed + editor.voiceSettings.speed          |
 * | voice_temperature               | settings.tts.options.temperature + editor.voiceSettings.temperature |
 * | volume                          | settings.tts.options.volume + editor.voiceSettings.volume        |
 * | enable_backchannel              | editor.backchanneling                                            |
 * | backchannel_frequency           | editor.backchannelFrequency                                      |
 * | interruption_sensitivity        | editor.interruption                                              |
 * | ambient_sound_volume            | editor.ambientSoundVolume (volume of editor.backgroundSound)     |
 * | opt_out_sensitive_data_storage  | editor.dataStorage === 'metadata_only' (true writes it; false writes |
 * |                                 | 'everything' only over 'metadata_only'); the old switch mirrors it |
 * | normalize_for_speech            | editor.speechNormalization                                       |
 * | end_call_after_silence_ms       | editor.endCallOnSilence (minutes) x 60,000                       |
 * | enable_voicemail_detection      | editor.voicemailDetection                                        |
 * | max_call_duration_ms            | editor.maxCallDuration (hours) x 3,600,000                       |
 * | voicemail_detection_timeout_ms  | editor.voicemailDetectionDuration (seconds) x 1,000              |
 */
import * as v from 'valibot';
import { AGENT_DIALOG_DEFAULTS } from './defaults';
import { storageLevelOf } from './editor';
import { LanguageSchema, positiveMs, range, requiredText, VoiceModelSchema } from './fields';
import { AGENT_MESSAGES } from './messages';
import { type AgentDoc, saveEntries } from './save';

const dialogEntries = {
  agent_name: requiredText(AGENT_MESSAGES.agentNameRequired),
  voice_id: requiredText(AGENT_MESSAGES.voiceIdRequired),
  voice_model: VoiceModelSchema,
  language: LanguageSchema,
  voice_temperature: range(0, 2),
  voice_speed: range(0, 2),
  volume: range(0, 1),
  enable_backchannel: v.boolean(),
  backchannel_frequency: range(0, 1),
  interruption_sensitivity: range(0, 1),
  ambient_sound_volume: range(0, 1),
  opt_out_sensitive_data_storage: v.boolean(),
  normalize_for_speech: v.boolean(),
  end_call_after_silence_ms: positiveMs,
  enable_voicemail_detection: v.boolean(),
  max_call_duration_ms: positiveMs,
  voicemail_detection_timeout_ms: positiveMs,
};
export const AGENT_DIALOG_FIELDS = Object.keys(dialogEntries) as (keyof typeof dialogEntries)[];

/** The Update Agent dialog form (every field required). */
export const AgentDialogFormSchema = v.object(dialogEntries);
export type AgentDialogForm = v.InferOutput<typeof AgentDialogFormSchema>;
export type AgentDialogFields = AgentDialogForm;

const VersionSchema = v.pipe(
  v.number('version must be a whole number'),
  v.integer('version must be a whole number'),
  v.minValue(1, 'version must be at least 1'),
);

/** PUT /agent/{id} from the dialog: any subset of the dialog fields, plus the version it was loaded at. */
export const AgentDialogPatchSchema = v.pipe(
  v.object({ ...v.partial(AgentDialogFormSchema).entries, version: v.optional(VersionSchema) }),
  v.check((p) => AGENT_DIALOG_FIELDS.some((k) => p[k] !== undefined), AGENT_MESSAGES.nothingToUpdate),
);
export type AgentDialogPatch = v.InferOutput<typeof AgentDialogPatchSchema>;

/** PUT /agent/{id} from the editor: the full save payload plus the version it was loaded at. */
export const AgentSaveUpdateSchema = v.object({ ...saveEntries, version: v.optional(VersionSchema) });
export type AgentSaveUpdate = v.InferOutput<typeof AgentSaveUpdateSchema>;

const SAVE_ONLY_KEYS = ['name', 'prompt', 'message', 'settings', 'editor', 'kind', 'flow'];
/** True when a PUT body is the editor's full save payload (it has a save-only key) rather than a dialog patch. */
export const isSavePayloadShape = (input: unknown): boolean =>
  typeof input === 'object' && input !== null && SAVE_ONLY_KEYS.some((k) => k in input);

/** PUT /agent/{id}: the full save payload, or a partial dialog-field update; both take an optional `version`. */
export const AgentUpdateBodySchema = v.lazy((input) =>
  isSavePayloadShape(input) ? AgentSaveUpdateSchema : AgentDialogPatchSchema,
);
export type AgentUpdateBody = v.InferOutput<typeof AgentUpdateBodySchema>;

const MIN = 60_000;
const HOUR = 3_600_000;

/** The dialog's view of a stored document. */
export function agentDialogFields(doc: AgentDoc): AgentDialogFields {
  const tts = doc.settings.tts.options;
  const e = doc.editor;
  return {
    agent_name: doc.name,
    voice_id: tts.voice_id,
    voice_model: tts.model,
    language: doc.settings.stt.options.language,
    voice_temperature: tts.temperature ?? e.voiceSettings.temperature,
    voice_speed: tts.speed,
    volume: tts.volume ?? e.voiceSettings.volume,
    enable_backchannel: e.backchanneling,
    backchannel_frequency: e.backchannelFrequency,
    interruption_sensitivity: e.interruption,
    ambient_sound_volume: e.ambientSoundVolume,
    opt_out_sensitive_data_storage: storageLevelOf(e) === 'metadata_only',
    normalize_for_speech: e.speechNormalization,
    end_call_after_silence_ms: Math.round(e.endCallOnSilence * MIN),
    enable_voicemail_detection: e.voicemailDetection,
    max_call_duration_ms: Math.round(e.maxCallDuration * HOUR),
    voicemail_detection_timeout_ms: Math.round(e.voicemailDetectionDuration * 1000),
  };
}

/** Applies a dialog update onto a stored document (returns a new document; every mirror is written). */
export function applyDialogPatch(doc: AgentDoc, p: Partial<AgentDialogFields>): AgentDoc {
  const opts = { ...doc.settings.tts.options };
  const voice = { ...doc.editor.voiceSettings };
  const e = { ...doc.editor };
  if (p.voice_id !== undefined) opts.voice_id = p.voice_id;
  if (p.voice_model !== undefined) opts.model = voice.model = p.voice_model;
  if (p.voice_speed !== undefined) opts.speed = voice.speed = p.voice_speed;
  if (p.voice_temperature !== undefined) opts.temperature = voice.temperature = p.voice_temperature;
  if (p.volume !== undefined) opts.volume = voice.volume = p.volume;
  if (p.enable_backchannel !== undefined) e.backchanneling = p.enable_backchannel;
  if (p.backchannel_frequency !== undefined) e.backchannelFrequency = p.backchannel_frequency;
  if (p.interruption_sensitivity !== undefined) e.interruption = p.interruption_sensitivity;
  if (p.ambient_sound_volume !== undefined) e.ambientSoundVolume = p.ambient_sound_volume;
  if (p.opt_out_sensitive_data_storage !== undefined) {
    const level = storageLevelOf(e);
    e.dataStorage = p.opt_out_sensitive_data_storage ? 'metadata_only' : level === 'metadata_only' ? 'everything' : level;
    e.sensitiveDataStorage = e.dataStorage !== 'metadata_only';
  }
  if (p.normalize_for_speech !== undefined) e.speechNormalization = p.normalize_for_speech;
  if (p.end_call_after_silence_ms !== undefined) e.endCallOnSilence = p.end_call_after_silence_ms / MIN;
  if (p.enable_voicemail_detection !== undefined) e.voicemailDetection = p.enable_voicemail_detection;
  if (p.max_call_duration_ms !== undefined) e.maxCallDuration = p.max_call_duration_ms / HOUR;
  if (p.voicemail_detection_timeout_ms !== undefined) e.voicemailDetectionDuration = p.voicemail_detection_timeout_ms / 1000;
  e.voiceSettings = voice;
  const stt = { ...doc.settings.stt, options: { ...doc.settings.stt.options } };
  if (p.language !== undefined) stt.options.language = p.language;
  return {
    ...doc,
    name: p.agent_name ?? doc.name,
    settings: { ...doc.settings, tts: { ...doc.settings.tts, options: opts }, stt },
    editor: e,
  };
}

/** The dialog form of a listed agent: its values, with the specification's dialog defaults for anything missing. */
export function agentToDialogForm(agent: Partial<AgentDialogFields>): AgentDialogForm {
  const out = { ...AGENT_DIALOG_DEFAULTS, agent_name: '', voice_id: '', voice_model: '' } as AgentDialogForm;
  for (const k of AGENT_DIALOG_FIELDS) {
    const value = agent[k];
    if (value !== undefined && value !== null) (out as Record<string, unknown>)[k] = value;
  }
  return out;
}
