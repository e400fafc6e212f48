/**
 * The agent's defaults: the Update Agent dialog's, the editor's, and the saved payload's fixed values.
 */
import type { DataStorage } from '../data-storage';
import { DEFAULT_LANGUAGE, DEFAULT_VOICE_MODEL } from '../models';
import type { AgentFunction, AnalysisField, KnowledgeBaseSelection, Pronunciation, VoicemailAction } from './records';

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
  dataStorage: 'everything' as DataStorage,
  redactRecordings: false,
  recordingNotice: '',
  recordCalls: true,
  inboundCallWebhook: '',
  agentLevelWebhook: '',
  functions: [] as AgentFunction[],
  dtmf_max_digits: 0,
  dtmf_timeout_ms: 3_000,
  selectedKnowledgeBases: [] as KnowledgeBaseSelection[],
  pronunciations: [] as Pronunciation[],
  postCallAnalysisData: '',
  postCallAnalysisFields: [] as AnalysisField[],
};

/** The fixed values of the saved payload, with the two corrections applied by the builder. */
export const AGENT_FIXED_SETTINGS = {
  llmService: 'openai',
  ttsService: 'elevenlabs',
  stability: 0.5,
  similarity: 0.75,
  sttService: 'deepgram',
  sttModel: 'nova-2',
} as const;
