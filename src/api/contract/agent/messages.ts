/**
 * The agent contract's messages and its text limits. The agent
 * contract (src/api/contract/agent/) is imported by the client (forms, typed calls, the Update Agent
 * dialog, the editor) AND the server (validation), so every rule, default and message lives only there.
 */
export const AGENT_NAME_MAX = 200;
export const AGENT_PROMPT_MAX = 100_000;
export const AGENT_MESSAGE_MAX = 10_000;
export const AGENT_TEXT_MAX = 10_000;
/** A day, in ms: the sanity cap of the dialog's millisecond fields. */
export const DAY_MS = 86_400_000;

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
