/**
 * The agent editor's form (client) and its save payload: form -> payload, loaded agent -> form.
 */
import * as v from 'valibot';
import { DataStorageSchema } from '../data-storage';
import { DEFAULT_LANGUAGE, DEFAULT_LLM_MODEL } from '../models';
import { AGENT_EDITOR_DEFAULTS, AGENT_FIXED_SETTINGS } from './defaults';
import { editorEntries } from './editor';
import { LanguageSchema, LlmModelSchema, range, requiredText, text } from './fields';
import { AGENT_MESSAGE_MAX, AGENT_MESSAGES, AGENT_PROMPT_MAX } from './messages';
import type { Agent } from './responses';
import type { AgentSavePayload } from './save';

/** The agent editor's form (the specification's 'Agent editor form'), with its messages and bounds. */
export const AgentEditorFormSchema = v.object({
  ...editorEntries({ speed: range(0.5, 2), temperature: range(0, 1) }),
  dataStorage: v.optional(DataStorageSchema, AGENT_EDITOR_DEFAULTS.dataStorage),
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

/** The payload of the specification's 'Agent save', with the LLM model and the language code in their corrected places. */
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
export function agentToSavePayload(
  agent: Pick<Agent, 'name' | 'prompt' | 'message' | 'settings' | 'editor'> & Partial<Pick<Agent, 'kind' | 'flow'>>,
): AgentSavePayload {
  const { name, prompt, message, settings, editor, kind, flow } = agent;
  const payload: AgentSavePayload = { name, prompt, message, settings, editor };
  if (kind === 'conversation_flow') return { ...payload, kind, ...(flow ? { flow } : {}) };
  return payload;
}
