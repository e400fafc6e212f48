/**
 * Ranges for the UI sliders: the editor's and the Update Agent dialog's.
 */
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
