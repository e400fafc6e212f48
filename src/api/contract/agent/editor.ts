/**
 * The `editor` object of the stored agent: every editor field that is not name / prompt / message / settings.
 *
 * Ranges: where the dialog (voice speed 0..2, voice temperature 0..2) is wider than the editor's
 * sliders (0.5..2, 0..1), the stored document accepts the wider range so a dialog save is never
 * rejected by a later editor save; the editor FORM (`AgentEditorFormSchema`) keeps section 5's bounds.
 */
import * as v from 'valibot';
import { type DataStorage, DataStorageSchema } from '../data-storage';
import { AGENT_EDITOR_DEFAULTS } from './defaults';
import { nonNegative, range, text, urlOrEmpty, VoiceModelSchema } from './fields';
import { AGENT_MESSAGES, DAY_MS } from './messages';
import {
  AgentFunctionsSchema,
  ANALYSIS_FIELDS_MAX,
  AnalysisFieldSchema,
  DTMF_DEFAULTS,
  DynamicVariableSchema,
  KnowledgeBaseSelectionSchema,
  PronunciationSchema,
  VOICEMAIL_ACTIONS,
} from './records';

const D = AGENT_EDITOR_DEFAULTS;
const DTMF_DIGITS = 'Keypad digits must be a whole number from 0 to 50';
const DTMF_TIMEOUT = 'Keypad timeout must be between 500 and 30000 ms';
export const VOICE_STORED = { speed: range(0, 2), temperature: range(0, 2) };

export const editorEntries = (voice: { speed: v.GenericSchema<number>; temperature: v.GenericSchema<number> }) => ({
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
  /** the old switch (false = keep nothing but metadata); still accepted, mirrored from dataStorage on output */
  sensitiveDataStorage: v.optional(v.boolean(), D.sensitiveDataStorage),
  /** what a call keeps; when absent, read from sensitiveDataStorage (see storageLevelOf) */
  dataStorage: v.optional(DataStorageSchema),
  /** at 'everything_but_pii': keep the recording with the personal data silenced (otherwise none is kept) */
  redactRecordings: v.optional(v.boolean(), D.redactRecordings),
  /** spoken before the welcome message on web and phone calls; '' = none */
  recordingNotice: v.optional(text(500), D.recordingNotice),
  /** false: no recording is made */
  recordCalls: v.optional(v.boolean(), D.recordCalls),
  inboundCallWebhook: v.optional(urlOrEmpty, D.inboundCallWebhook),
  agentLevelWebhook: v.optional(urlOrEmpty, D.agentLevelWebhook),
  functions: v.optional(AgentFunctionsSchema, () => []),
  /** keypad input from the caller: collected until '#', this many digits (0 = no count) or this much silence */
  dtmf_max_digits: v.optional(
    v.pipe(v.number(DTMF_DIGITS), v.integer(DTMF_DIGITS), v.minValue(0, DTMF_DIGITS), v.maxValue(50, DTMF_DIGITS)),
    DTMF_DEFAULTS.dtmf_max_digits,
  ),
  dtmf_timeout_ms: v.optional(
    v.pipe(v.number(DTMF_TIMEOUT), v.integer(DTMF_TIMEOUT), v.minValue(500, DTMF_TIMEOUT), v.maxValue(30_000, DTMF_TIMEOUT)),
    DTMF_DEFAULTS.dtmf_timeout_ms,
  ),
  selectedKnowledgeBases: v.optional(v.pipe(v.array(KnowledgeBaseSelectionSchema), v.maxLength(100)), () => []),
  pronunciations: v.optional(v.pipe(v.array(PronunciationSchema), v.maxLength(500)), () => []),
  postCallAnalysisData: v.optional(text(), D.postCallAnalysisData),
  postCallAnalysisFields: v.optional(
    v.pipe(
      v.array(AnalysisFieldSchema),
      v.maxLength(ANALYSIS_FIELDS_MAX),
      v.check((fs) => new Set(fs.map((f) => f.name.toLowerCase())).size === fs.length, 'Field names must be different'),
    ),
    () => [],
  ),
});

/**
 * The storage level of an editor object as stored or sent: `dataStorage` when it is one, else the old
 * `sensitiveDataStorage` switch (false reads as 'metadata_only', anything else as 'everything').
 */
export function storageLevelOf(e: { dataStorage?: unknown; sensitiveDataStorage?: unknown } | null | undefined): DataStorage {
  if (v.is(DataStorageSchema, e?.dataStorage)) return e.dataStorage;
  return e?.sensitiveDataStorage === false ? 'metadata_only' : 'everything';
}

/** An editor object with its level settled and the old switch mirroring it. */
export function withStorageLevel<E extends { dataStorage?: unknown; sensitiveDataStorage?: unknown }>(
  e: E,
): E & { dataStorage: DataStorage; sensitiveDataStorage: boolean } {
  const dataStorage = storageLevelOf(e);
  return { ...e, dataStorage, sensitiveDataStorage: dataStorage !== 'metadata_only' };
}

/** The `editor` object as stored: every field optional on input, filled with AGENT_EDITOR_DEFAULTS on output. */
export const AgentEditorSchema = v.pipe(v.object(editorEntries(VOICE_STORED)), v.transform(withStorageLevel));
export type AgentEditor = v.InferOutput<typeof AgentEditorSchema>;
export type AgentEditorInput = v.InferInput<typeof AgentEditorSchema>;
