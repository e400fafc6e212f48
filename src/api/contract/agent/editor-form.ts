/**
 * The agent editor's form (client) and its save payload: form -> payload, loaded agent -> form.
 */
import * as v from 'valibot';
import { DataStorageSchema } from '../data-storage';
import { DEFAULT_LANGUAGE, DEFAULT_LLM_MODEL } from '../models';
import { AGENT_EDITOR_DEFAULTS, AGENT_FIXED_SETTINGS } from './defaults';
import { editorEntries } from './editor';
import { LanguageSchema, LlmModelSchema, range, requiredText, text } from './fields';
import { AgentKindSchema, agentFlowProblems, type Flow, type FlowProblem, FlowSchema } from './flow';
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
  /** absent: a single-prompt agent */
  kind: v.optional(AgentKindSchema),
  /** a conversation-flow agent's flow (its graph is checked by `editorFlowProblems`) */
  flow: v.optional(FlowSchema),
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

/** A new flow: a start Conversation node leading to an End node. */
export const newFlow = (): Flow => ({
  start_node_id: 'start',
  global_prompt: '',
  nodes: [
    {
      id: 'start',
      type: 'conversation',
      name: 'Greeting',
      instruction: { type: 'prompt', text: 'Greet the caller and ask how you can help.' },
      edges: [{ id: 'e1', to: 'end', condition: { type: 'prompt', prompt: 'The caller has nothing else' } }],
      position: { x: 0, y: 0 },
    },
    {
      id: 'end',
      type: 'end',
      name: 'End call',
      instruction: { type: 'static_text', text: 'Goodbye!' },
      edges: [],
      position: { x: 0, y: 200 },
    },
  ],
});

/** The form of a new conversation-flow agent. */
export const newFlowAgentForm = (): AgentEditorForm => ({
  ...structuredClone(AGENT_EDITOR_FORM_DEFAULTS),
  agentName: 'New Flow Agent',
  kind: 'conversation_flow',
  flow: newFlow(),
});

/** The graph problems of a form's flow (none for a single-prompt form), against its own functions and variables. */
export const editorFlowProblems = (form: AgentEditorForm): FlowProblem[] =>
  agentFlowProblems({ kind: form.kind, flow: form.flow, editor: form });

/** The payload of the specification's 'Agent save', with the LLM model and the language code in their corrected places. */
export function editorFormToSavePayload(
  form: AgentEditorForm,
  owner: { company?: string; account?: string } = {},
): AgentSavePayload {
  const { agentName, llmModel, voiceId, language, promptText, welcomeMessage, kind, flow, ...editor } = form;
  const vs = editor.voiceSettings;
  const flowPart = kind === 'conversation_flow' ? { kind, ...(flow ? { flow } : {}) } : {};
  return {
    ...flowPart,
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
export function agentToEditorForm(
  agent: Pick<Agent, 'name' | 'prompt' | 'message' | 'settings' | 'editor'> & Partial<Pick<Agent, 'kind' | 'flow'>>,
): AgentEditorForm {
  const tts = agent.settings.tts.options;
  // a single-prompt agent's form has neither `kind` nor `flow` (its drafts stay what they were)
  const flowPart = agent.kind === 'conversation_flow' ? { kind: agent.kind, ...(agent.flow ? { flow: agent.flow } : {}) } : {};
  return {
    ...flowPart,
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
