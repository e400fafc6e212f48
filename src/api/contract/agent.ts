/**
 * Contract of the agent API (spec sections 3, 5, 7 and 9; issues 4 and 5). Imported by the client
 * (forms, typed calls, the Update Agent dialog, the editor) AND the server (validation), so every
 * rule, default and message lives only here.
 *
 * ONE stored document per agent, `AgentDoc`: exactly the editor's save payload (spec 7 'Agent save'
 * plus the `editor` object holding every other editor field), without company/account (those come
 * from the token). The Update Agent dialog's flat fields (spec 3 'Agent edit form') are a VIEW of
 * that document (`agentDialogFields`) and a dialog save is a PATCH onto it (`applyDialogPatch`):
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
 * | opt_out_sensitive_data_storage  | NOT editor.sensitiveDataStorage                                  |
 * | normalize_for_speech            | editor.speechNormalization                                       |
 * | end_call_after_silence_ms       | editor.endCallOnSilence (minutes) x 60,000                       |
 * | enable_voicemail_detection      | editor.voicemailDetection                                        |
 * | max_call_duration_ms            | editor.maxCallDuration (hours) x 3,600,000                       |
 * | voicemail_detection_timeout_ms  | editor.voicemailDetectionDuration (seconds) x 1,000              |
 *
 * Ranges: where the dialog (voice speed 0..2, voice temperature 0..2) is wider than the editor's
 * sliders (0.5..2, 0..1), the stored document accepts the wider range so a dialog save is never
 * rejected by a later editor save; the editor FORM (`AgentEditorFormSchema`) keeps section 5's bounds.
 */
import * as v from 'valibot';
import { intParam, type SortPairs, searchParam, sortParam, sortToParam } from './list';

export type { SortDirection } from './list';

import {
  DEFAULT_LANGUAGE,
  DEFAULT_LLM_MODEL,
  DEFAULT_VOICE_MODEL,
  LANGUAGE_CODES,
  LLM_MODEL_IDS,
  VOICE_MODEL_IDS,
} from './models';

// ---------------------------------------------------------------------------------------------
// Messages and limits

export const AGENT_NAME_MAX = 200;
export const AGENT_PROMPT_MAX = 100_000;
export const AGENT_MESSAGE_MAX = 10_000;
export const AGENT_TEXT_MAX = 10_000;
/** A day, in ms: the sanity cap of the dialog's millisecond fields. */
const DAY_MS = 86_400_000;

export const AGENT_MESSAGES = {
  agentNameRequired: 'Agent name is required',
  voiceIdRequired: 'Voice ID is required',
  voiceModelRequired: 'Voice model is required',
  languageRequired: 'Language is required',
  llmModelRequired: 'LLM model is required',
  voiceRequired: 'Voice is required',
  unknownLlmModel: 'Choose one of the listed LLM models',
  unknownVoiceModel: 'Choose one of the listed voice models',
  unknownLanguage: 'Choose one of the listed languages',
  positiveInteger: 'Must be a positive whole number',
  nonNegative: 'Must be 0 or more',
  between: (min: number, max: number) => `Must be between ${min} and ${max}`,
  tooLong: (max: number) => `Must be at most ${max} characters`,
  invalidUrl: 'Must be a valid URL or empty',
  functionNameRequired: 'Function name is required',
  functionTypeOnce: 'Each function type can be added only once',
  pronunciationWordRequired: 'Word is required',
  phonemeRequired: 'Phoneme is required',
  knowledgeBaseNameRequired: 'Knowledge base name is required',
  nothingToUpdate: 'Nothing to update',
  notFound: 'Agent not found',
  conflict: 'This agent was changed by someone else. Reload to get the latest version.',
  created: 'New agent created successfully!',
  updated: 'Agent updated successfully!',
  deleted: 'The agent has been deleted successfully.',
} as const;

// ---------------------------------------------------------------------------------------------
// Field helpers

/** A required text: missing, non-text or blank all answer `msg`. */
export const requiredText = (msg: string, max = AGENT_NAME_MAX) =>
  v.pipe(v.optional(v.string(msg), ''), v.trim(), v.nonEmpty(msg), v.maxLength(max, AGENT_MESSAGES.tooLong(max)));
const text = (max = AGENT_TEXT_MAX) => v.pipe(v.string(), v.maxLength(max, AGENT_MESSAGES.tooLong(max)));
const oneOf = (list: readonly string[], required: string, unknown: string) =>
  v.pipe(
    requiredText(required, 100),
    v.check((s) => s === '' || list.includes(s), unknown),
  );
const range = (min: number, max: number) => {
  const msg = AGENT_MESSAGES.between(min, max);
  return v.pipe(v.number(msg), v.minValue(min, msg), v.maxValue(max, msg));
};
const nonNegative = (max: number) =>
  v.pipe(
    v.number(AGENT_MESSAGES.nonNegative),
    v.minValue(0, AGENT_MESSAGES.nonNegative),
    v.maxValue(max, AGENT_MESSAGES.between(0, max)),
  );
const positiveMs = v.pipe(
  v.number(AGENT_MESSAGES.positiveInteger),
  v.integer(AGENT_MESSAGES.positiveInteger),
  v.minValue(1, AGENT_MESSAGES.positiveInteger),
  v.maxValue(DAY_MS, AGENT_MESSAGES.between(1, DAY_MS)),
);
export const isWebUrl = (s: string) => {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
};
const urlOrEmpty = v.pipe(
  v.string(AGENT_MESSAGES.invalidUrl),
  v.trim(),
  v.maxLength(2048, AGENT_MESSAGES.tooLong(2048)),
  v.check((s) => s === '' || isWebUrl(s), AGENT_MESSAGES.invalidUrl),
);

export const LlmModelSchema = oneOf(LLM_MODEL_IDS, AGENT_MESSAGES.llmModelRequired, AGENT_MESSAGES.unknownLlmModel);
export const LanguageSchema = oneOf(LANGUAGE_CODES, AGENT_MESSAGES.languageRequired, AGENT_MESSAGES.unknownLanguage);
export const VoiceModelSchema = oneOf(VOICE_MODEL_IDS, AGENT_MESSAGES.voiceModelRequired, AGENT_MESSAGES.unknownVoiceModel);

// ---------------------------------------------------------------------------------------------
// Ranges for the UI sliders (spec section 5), and the stored bounds

export const EDITOR_RANGES = {
  llmTemperature: { min: 0, max: 1, step: 0.1 },
  voiceSpeed: { min: 0.5, max: 2, step: 0.1 },
  voiceTemperature: { min: 0, max: 1, step: 0.1 },
  volume: { min: 0, max: 1, step: 0.1 },
  responsiveness: { min: 0, max: 1, step: 0.1 },
  interruption: { min: 0, max: 1, step: 0.1 },
  backchannelFrequency: { min: 0, max: 1, step: 0.1 },
  /** seconds */
  voicemailDetectionDuration: { min: 0, max: 60, step: 1 },
  /** minutes */
  endCallOnSilence: { min: 0, max: 20, step: 0.1 },
  /** hours */
  maxCallDuration: { min: 0, max: 2, step: 0.1 },
  /** seconds */
  pauseBeforeSpeaking: { min: 0, max: 5, step: 0.1 },
} as const;

export const DIALOG_RANGES = {
  voice_temperature: { min: 0, max: 2, step: 0.1 },
  voice_speed: { min: 0, max: 2, step: 0.1 },
  volume: { min: 0, max: 1, step: 0.1 },
  backchannel_frequency: { min: 0, max: 1, step: 0.1 },
  interruption_sensitivity: { min: 0, max: 1, step: 0.1 },
  ambient_sound_volume: { min: 0, max: 1, step: 0.1 },
} as const;

// ---------------------------------------------------------------------------------------------
// Editor sub-records (spec section 3)

export const FUNCTION_TYPES = ['end_call', 'transfer'] as const;
export type FunctionType = (typeof FUNCTION_TYPES)[number];
export const PRONUNCIATION_TYPES = ['IPA', 'CMU'] as const;
export type PronunciationType = (typeof PRONUNCIATION_TYPES)[number];
export const VOICEMAIL_ACTIONS = ['hang', 'leave'] as const;
export type VoicemailAction = (typeof VOICEMAIL_ACTIONS)[number];
export const KNOWLEDGE_BASE_STATUSES = ['pending', 'processing', 'complete', 'failed'] as const;
export type KnowledgeBaseStatus = (typeof KNOWLEDGE_BASE_STATUSES)[number];

export const AgentFunctionSchema = v.object({
  id: v.number(),
  name: requiredText(AGENT_MESSAGES.functionNameRequired, 64),
  description: v.optional(text(2000)),
  type: v.picklist(FUNCTION_TYPES, 'Function type must be end_call or transfer'),
});
export type AgentFunction = v.InferOutput<typeof AgentFunctionSchema>;

export const PronunciationSchema = v.object({
  id: v.pipe(v.string(), v.maxLength(64)),
  word: requiredText(AGENT_MESSAGES.pronunciationWordRequired, 100),
  type: v.picklist(PRONUNCIATION_TYPES, 'Pronunciation type must be IPA or CMU'),
  phoneme: requiredText(AGENT_MESSAGES.phonemeRequired, 200),
});
export type Pronunciation = v.InferOutput<typeof PronunciationSchema>;

export const KnowledgeBaseSourceSchema = v.object({
  file_url: v.optional(text(2048)),
  filename: text(500),
  type: text(100),
  file_size: v.optional(v.pipe(v.number(), v.minValue(0))),
  content: v.optional(text(100_000)),
});

/** A knowledge base chosen for the agent (spec 3 'Knowledge base selection'); `knowledge_base_id` links to GET /knowledge-base. */
export const KnowledgeBaseSelectionSchema = v.object({
  knowledge_base_id: v.optional(text(64)),
  knowledge_base_name: requiredText(AGENT_MESSAGES.knowledgeBaseNameRequired, 200),
  knowledge_base_sources: v.optional(v.pipe(v.array(KnowledgeBaseSourceSchema), v.maxLength(100)), () => []),
  enable_auto_refresh: v.optional(v.boolean(), false),
  status: v.optional(v.picklist(KNOWLEDGE_BASE_STATUSES), 'pending'),
  user_modified_timestamp: v.optional(v.union([v.number(), v.string()])),
});
export type KnowledgeBaseSelection = v.InferOutput<typeof KnowledgeBaseSelectionSchema>;

export const DynamicVariableSchema = v.object({ name: text(100), value: text(2000) });
export type DynamicVariable = v.InferOutput<typeof DynamicVariableSchema>;

// ---------------------------------------------------------------------------------------------
// Defaults (spec section 9)

/** 'Agent edit dialog defaults': fill fields a record lacks when the Update Agent dialog opens. */
export const AGENT_DIALOG_DEFAULTS = {
  voice_temperature: 1,
  voice_speed: 1,
  volume: 1,
  backchannel_frequency: 0.9,
  interruption_sensitivity: 1,
  ambient_sound_volume: 0.7,
  language: DEFAULT_LANGUAGE as string,
  end_call_after_silence_ms: 33_000,
  max_call_duration_ms: 1_242_000,
  voicemail_detection_timeout_ms: 30_000,
  enable_backchannel: true,
  normalize_for_speech: true,
  enable_voicemail_detection: true,
  opt_out_sensitive_data_storage: false,
} as const;

/**
 * 'Agent editor defaults' for the `editor` object. Where spec 9 names no editor default, the value
 * of the matching dialog default is used (backchanneling, speech normalization and voicemail
 * detection on, sensitive data stored, ambient volume 0.7).
 */
export const AGENT_EDITOR_DEFAULTS = {
  voice: '',
  llmSettings: { temperature: 0, structuredOutput: false, highPriority: false },
  voiceSettings: { model: DEFAULT_VOICE_MODEL as string, speed: 1, temperature: 1, volume: 1 },
  dynamicVariables: [
    { name: '', value: '' },
    { name: '', value: '' },
  ],
  backgroundSound: 'None',
  ambientSoundVolume: 0.7,
  responsiveness: 1,
  interruption: 0.8,
  backchanneling: true,
  backchannelFrequency: 0.8,
  backchannelWords: '',
  speechNormalization: true,
  disableTranscriptFormatting: false,
  boostedKeywords: '',
  reminderSeconds: 10,
  reminderTimes: 1,
  voicemailDetection: true,
  voicemailAction: 'leave' as VoicemailAction,
  voicemailMessage: '',
  voicemailDetectionDuration: 30,
  endCallOnSilence: 10,
  maxCallDuration: 1,
  pauseBeforeSpeaking: 0,
  sensitiveDataStorage: true,
  inboundCallWebhook: '',
  agentLevelWebhook: '',
  functions: [] as AgentFunction[],
  selectedKnowledgeBases: [] as KnowledgeBaseSelection[],
  pronunciations: [] as Pronunciation[],
  postCallAnalysisData: '',
};

/** The fixed values of the saved payload (spec 9), with the two corrections of issue 5 applied by the builder. */
export const AGENT_FIXED_SETTINGS = {
  llmService: 'openai',
  ttsService: 'elevenlabs',
  stability: 0.5,
  similarity: 0.75,
  sttService: 'deepgram',
  sttModel: 'nova-2',
} as const;

// ---------------------------------------------------------------------------------------------
// The editor object (every editor field that is not name / prompt / message / settings)

const D = AGENT_EDITOR_DEFAULTS;
const VOICE_STORED = { speed: range(0, 2), temperature: range(0, 2) };

const editorEntries = (voice: { speed: v.GenericSchema<number>; temperature: v.GenericSchema<number> }) => ({
  /** display name of the chosen voice */
  voice: v.optional(text(200), D.voice),
  llmSettings: v.optional(
    v.object({
      temperature: v.optional(range(0, 1), D.llmSettings.temperature),
      structuredOutput: v.optional(v.boolean(), D.llmSettings.structuredOutput),
      highPriority: v.optional(v.boolean(), D.llmSettings.highPriority),
    }),
    {},
  ),
  voiceSettings: v.optional(
    v.object({
      model: v.optional(VoiceModelSchema, D.voiceSettings.model),
      speed: v.optional(voice.speed, D.voiceSettings.speed),
      temperature: v.optional(voice.temperature, D.voiceSettings.temperature),
      volume: v.optional(range(0, 1), D.voiceSettings.volume),
    }),
    {},
  ),
  dynamicVariables: v.optional(v.pipe(v.array(DynamicVariableSchema), v.maxLength(100)), () =>
    D.dynamicVariables.map((d) => ({ ...d })),
  ),
  backgroundSound: v.optional(text(100), D.backgroundSound),
  ambientSoundVolume: v.optional(range(0, 1), D.ambientSoundVolume),
  responsiveness: v.optional(range(0, 1), D.responsiveness),
  interruption: v.optional(range(0, 1), D.interruption),
  backchanneling: v.optional(v.boolean(), D.backchanneling),
  backchannelFrequency: v.optional(range(0, 1), D.backchannelFrequency),
  /** comma-separated */
  backchannelWords: v.optional(text(), D.backchannelWords),
  speechNormalization: v.optional(v.boolean(), D.speechNormalization),
  disableTranscriptFormatting: v.optional(v.boolean(), D.disableTranscriptFormatting),
  /** comma-separated */
  boostedKeywords: v.optional(text(), D.boostedKeywords),
  /** seconds */
  reminderSeconds: v.optional(nonNegative(86_400), D.reminderSeconds),
  reminderTimes: v.optional(v.pipe(nonNegative(1000), v.integer(AGENT_MESSAGES.nonNegative)), D.reminderTimes),
  voicemailDetection: v.optional(v.boolean(), D.voicemailDetection),
  voicemailAction: v.optional(v.picklist(VOICEMAIL_ACTIONS, 'Voicemail action must be hang or leave'), D.voicemailAction),
  /** may contain {{variable}} placeholders */
  voicemailMessage: v.optional(text(), D.voicemailMessage),
  /** seconds */
  voicemailDetectionDuration: v.optional(nonNegative(DAY_MS / 1000), D.voicemailDetectionDuration),
  /** minutes */
  endCallOnSilence: v.optional(nonNegative(DAY_MS / 60_000), D.endCallOnSilence),
  /** hours */
  maxCallDuration: v.optional(nonNegative(24), D.maxCallDuration),
  /** seconds */
  pauseBeforeSpeaking: v.optional(nonNegative(3600), D.pauseBeforeSpeaking),
  sensitiveDataStorage: v.optional(v.boolean(), D.sensitiveDataStorage),
  inboundCallWebhook: v.optional(urlOrEmpty, D.inboundCallWebhook),
  agentLevelWebhook: v.optional(urlOrEmpty, D.agentLevelWebhook),
  functions: v.optional(
    v.pipe(
      v.array(AgentFunctionSchema),
      v.check((fs) => new Set(fs.map((f) => f.type)).size === fs.length, AGENT_MESSAGES.functionTypeOnce),
    ),
    () => [],
  ),
  selectedKnowledgeBases: v.optional(v.pipe(v.array(KnowledgeBaseSelectionSchema), v.maxLength(100)), () => []),
  pronunciations: v.optional(v.pipe(v.array(PronunciationSchema), v.maxLength(500)), () => []),
  postCallAnalysisData: v.optional(text(), D.postCallAnalysisData),
});

/** The `editor` object as stored: every field optional on input, filled with AGENT_EDITOR_DEFAULTS on output. */
export const AgentEditorSchema = v.object(editorEntries(VOICE_STORED));
export type AgentEditor = v.InferOutput<typeof AgentEditorSchema>;
export type AgentEditorInput = v.InferInput<typeof AgentEditorSchema>;

// ---------------------------------------------------------------------------------------------
// Save payload (spec 7 'Agent save') = the stored document

export const AgentSettingsSchema = v.object({
  llm: v.object({
    service: v.optional(text(50), AGENT_FIXED_SETTINGS.llmService),
    /** `model` is the chosen LLM model (issue 5 correction) */
    options: v.object({ model: LlmModelSchema }),
  }),
  tts: v.object({
    service: v.optional(text(50), AGENT_FIXED_SETTINGS.ttsService),
    options: v.object({
      voice_id: requiredText(AGENT_MESSAGES.voiceRequired),
      model: VoiceModelSchema,
      speed: v.optional(VOICE_STORED.speed, 1),
      stability: v.optional(range(0, 1), AGENT_FIXED_SETTINGS.stability),
      similarity: v.optional(range(0, 1), AGENT_FIXED_SETTINGS.similarity),
      temperature: v.optional(VOICE_STORED.temperature),
      volume: v.optional(range(0, 1)),
    }),
  }),
  stt: v.object({
    service: v.optional(text(50), AGENT_FIXED_SETTINGS.sttService),
    /** `language` is the chosen language's BCP-47 code (issue 5 correction) */
    options: v.object({ language: LanguageSchema, model: v.optional(text(50), AGENT_FIXED_SETTINGS.sttModel) }),
  }),
});
export type AgentSettings = v.InferOutput<typeof AgentSettingsSchema>;

const saveEntries = {
  name: requiredText(AGENT_MESSAGES.agentNameRequired),
  /** ignored by the server: the owner comes from the access token */
  company: v.optional(v.string()),
  /** ignored by the server: the owner comes from the access token */
  account: v.optional(v.string()),
  prompt: v.optional(text(AGENT_PROMPT_MAX), ''),
  /** the welcome message */
  message: v.optional(text(AGENT_MESSAGE_MAX), ''),
  settings: AgentSettingsSchema,
  editor: v.optional(AgentEditorSchema, {}),
};

/** POST /agent (and PUT /agent/{id} with the full payload). */
export const AgentSavePayloadSchema = v.object(saveEntries);
export type AgentSavePayload = v.InferOutput<typeof AgentSavePayloadSchema>;
export type AgentSavePayloadInput = v.InferInput<typeof AgentSavePayloadSchema>;

/** What the server stores for an agent (its single source of truth). */
export type AgentDoc = Omit<AgentSavePayload, 'company' | 'account'>;

// ---------------------------------------------------------------------------------------------
// Update Agent dialog (spec 3 'Agent edit form', spec 5 'Agent edit dialog')

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

const SAVE_ONLY_KEYS = ['name', 'prompt', 'message', 'settings', 'editor'];
/** True when a PUT body is the editor's full save payload (it has a save-only key) rather than a dialog patch. */
export const isSavePayloadShape = (input: unknown): boolean =>
  typeof input === 'object' && input !== null && SAVE_ONLY_KEYS.some((k) => k in input);

/** PUT /agent/{id}: the full save payload, or a partial dialog-field update; both take an optional `version`. */
export const AgentUpdateBodySchema = v.lazy((input) =>
  isSavePayloadShape(input) ? AgentSaveUpdateSchema : AgentDialogPatchSchema,
);
export type AgentUpdateBody = v.InferOutput<typeof AgentUpdateBodySchema>;

// ---------------------------------------------------------------------------------------------
// Mapping between the stored document and the dialog view

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
    opt_out_sensitive_data_storage: !e.sensitiveDataStorage,
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
  if (p.opt_out_sensitive_data_storage !== undefined) e.sensitiveDataStorage = !p.opt_out_sensitive_data_storage;
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

// ---------------------------------------------------------------------------------------------
// Responses

const AgentDialogViewEntries = {
  agent_name: v.string(),
  voice_id: v.string(),
  voice_model: v.string(),
  language: v.string(),
  voice_temperature: v.number(),
  voice_speed: v.number(),
  volume: v.number(),
  enable_backchannel: v.boolean(),
  backchannel_frequency: v.number(),
  interruption_sensitivity: v.number(),
  ambient_sound_volume: v.number(),
  opt_out_sensitive_data_storage: v.boolean(),
  normalize_for_speech: v.boolean(),
  end_call_after_silence_ms: v.number(),
  enable_voicemail_detection: v.boolean(),
  max_call_duration_ms: v.number(),
  voicemail_detection_timeout_ms: v.number(),
};

/**
 * An agent as the server answers it: the stored document (name, prompt, message, settings, editor),
 * the dialog view (agent_name = name, voice_id, voice_model, language, ...), ownership and metadata.
 */
export const AgentSchema = v.object({
  _id: v.string(),
  name: v.string(),
  prompt: v.string(),
  message: v.string(),
  settings: AgentSettingsSchema,
  editor: AgentEditorSchema,
  ...AgentDialogViewEntries,
  company: v.string(),
  account: v.string(),
  /** starts at 1, +1 on every update; send it back with PUT to detect conflicting saves */
  version: v.number(),
  /** ISO-8601 UTC */
  createdAt: v.string(),
  /** ISO-8601 UTC */
  updatedAt: v.string(),
});
export type Agent = v.InferOutput<typeof AgentSchema>;

/**
 * A row of GET /agent: the agent without its long texts (prompt, message) and editor object, which
 * GET /agent/{id} answers. Everything the table and the Update Agent dialog show is here.
 */
export const AgentListItemSchema = v.omit(AgentSchema, ['prompt', 'message', 'editor']);
export type AgentListItem = v.InferOutput<typeof AgentListItemSchema>;

/** GET /agent */
export const AgentListResponseSchema = v.object({
  success: v.literal(true),
  data: v.object({ agents: v.array(AgentListItemSchema), total: v.number() }),
});
export type AgentListResponse = v.InferOutput<typeof AgentListResponseSchema>;

/** GET /agent/{id}, POST /agent (201), PUT /agent/{id} */
export const AgentResponseSchema = v.object({
  success: v.literal(true),
  msg: v.optional(v.string()),
  data: v.object({ agent: AgentSchema }),
});
export type AgentResponse = v.InferOutput<typeof AgentResponseSchema>;

/** DELETE /agent/{id} */
export const AgentDeleteResponseSchema = v.object({
  success: v.literal(true),
  msg: v.string(),
  data: v.object({ _id: v.string() }),
});
export type AgentDeleteResponse = v.InferOutput<typeof AgentDeleteResponseSchema>;

// ---------------------------------------------------------------------------------------------
// List query (GET /agent?page=1&limit=10&search=...&sort=...)

export const AGENT_LIST_LIMIT_MAX = 100;
export const AGENT_LIST_LIMIT_DEFAULT = 10;
export const AGENT_SEARCH_MAX = 200;
/** Fields the list may be sorted by (JSON keys of `sort`). */
export const AGENT_SORT_FIELDS = ['agent_name', 'updatedAt', 'createdAt', 'voice_id', 'voice_model'] as const;
export type AgentSortField = (typeof AGENT_SORT_FIELDS)[number];
export type AgentSort = SortPairs<AgentSortField>;

export const AgentListQuerySchema = v.object({
  page: intParam(1, 1, 1_000_000),
  limit: intParam(AGENT_LIST_LIMIT_DEFAULT, 1, AGENT_LIST_LIMIT_MAX),
  search: searchParam(AGENT_SEARCH_MAX),
  sort: sortParam(AGENT_SORT_FIELDS),
});
export type AgentListQuery = v.InferOutput<typeof AgentListQuerySchema>;

/** Builds the query string values of GET /agent (sort as the URL-encoded JSON object, keys in order). */
export function agentListParams(q: { page: number; limit: number; search?: string; sort?: AgentSort }): Record<string, string> {
  const params: Record<string, string> = { page: String(q.page), limit: String(q.limit) };
  if (q.search) params.search = q.search;
  const sort = sortToParam(q.sort);
  if (sort) params.sort = sort;
  return params;
}

export const AGENT_PATHS = {
  list: '/agent',
  create: '/agent',
  one: (id: string) => `/agent/${encodeURIComponent(id)}`,
} as const;

// ---------------------------------------------------------------------------------------------
// Editor form (client) <-> save payload

/** The agent editor's form (spec 3 'Agent editor form'), with section 5's messages and bounds. */
export const AgentEditorFormSchema = v.object({
  ...editorEntries({ speed: range(0.5, 2), temperature: range(0, 1) }),
  agentName: requiredText(AGENT_MESSAGES.agentNameRequired),
  llmModel: LlmModelSchema,
  /** display name of the chosen voice */
  voice: requiredText(AGENT_MESSAGES.voiceRequired),
  voiceId: requiredText(AGENT_MESSAGES.voiceRequired),
  language: LanguageSchema,
  promptText: text(AGENT_PROMPT_MAX),
  welcomeMessage: text(AGENT_MESSAGE_MAX),
});
export type AgentEditorForm = v.InferOutput<typeof AgentEditorFormSchema>;

export const AGENT_EDITOR_FORM_DEFAULTS: AgentEditorForm = {
  ...AGENT_EDITOR_DEFAULTS,
  agentName: 'New Agent',
  llmModel: DEFAULT_LLM_MODEL,
  voiceId: '',
  language: DEFAULT_LANGUAGE,
  promptText: '',
  welcomeMessage: '',
};

/** The payload of spec 7 'Agent save', with the LLM model and the language code in their corrected places. */
export function editorFormToSavePayload(
  form: AgentEditorForm,
  owner: { company?: string; account?: string } = {},
): AgentSavePayload {
  const { agentName, llmModel, voiceId, language, promptText, welcomeMessage, ...editor } = form;
  const vs = editor.voiceSettings;
  return {
    name: agentName.trim(),
    ...owner,
    prompt: promptText,
    message: welcomeMessage,
    settings: {
      llm: { service: AGENT_FIXED_SETTINGS.llmService, options: { model: llmModel } },
      tts: {
        service: AGENT_FIXED_SETTINGS.ttsService,
        options: {
          voice_id: voiceId,
          model: vs.model,
          speed: vs.speed,
          stability: AGENT_FIXED_SETTINGS.stability,
          similarity: AGENT_FIXED_SETTINGS.similarity,
          temperature: vs.temperature,
          volume: vs.volume,
        },
      },
      stt: { service: AGENT_FIXED_SETTINGS.sttService, options: { language, model: AGENT_FIXED_SETTINGS.sttModel } },
    },
    editor,
  };
}

/** The editor form of a loaded agent. */
export function agentToEditorForm(agent: Pick<Agent, 'name' | 'prompt' | 'message' | 'settings' | 'editor'>): AgentEditorForm {
  const tts = agent.settings.tts.options;
  return {
    ...agent.editor,
    voiceSettings: {
      model: tts.model,
      speed: tts.speed,
      temperature: tts.temperature ?? agent.editor.voiceSettings.temperature,
      volume: tts.volume ?? agent.editor.voiceSettings.volume,
    },
    agentName: agent.name,
    llmModel: agent.settings.llm.options.model,
    voiceId: tts.voice_id,
    language: agent.settings.stt.options.language,
    promptText: agent.prompt,
    welcomeMessage: agent.message,
  };
}

/** The save payload of a loaded agent (what 'Export' downloads and 'Import' posts back). */
export function agentToSavePayload(agent: Pick<Agent, 'name' | 'prompt' | 'message' | 'settings' | 'editor'>): AgentSavePayload {
  return { name: agent.name, prompt: agent.prompt, message: agent.message, settings: agent.settings, editor: agent.editor };
}

/** The dialog form of a listed agent: its values, with spec 9's dialog defaults for anything missing. */
export function agentToDialogForm(agent: Partial<AgentDialogFields>): AgentDialogForm {
  const out = { ...AGENT_DIALOG_DEFAULTS, agent_name: '', voice_id: '', voice_model: '' } as AgentDialogForm;
  for (const k of AGENT_DIALOG_FIELDS) {
    const value = agent[k];
    if (value !== undefined && value !== null) (out as Record<string, unknown>)[k] = value;
  }
  return out;
}
